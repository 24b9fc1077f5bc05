/**
 * The build's static assets (`<basePath>/_next/static/…`: the pages' scripts, styles and fonts), served by the server
 * entry from memory, gzipped once at start, before Next.js. Next.js reads each from disk through its router and gzips it
 * again for every request; a page load asks for a dozen of them (about 180 kB gzipped, 580 kB as they are), and on a busy
 * machine those requests waited for CPU on the serving thread while the page could not start.
 *
 * Only the files found under `<distDir>/static` at start are served (the index is made from the directory, never from a
 * request's path), with the headers Next.js gives them: immutable caching, a weak ETag of size and mtime (304 for
 * If-None-Match), Last-Modified, the content type, plus the access decision and security headers of every answer
 * (server/inbound/early.ts: in token mode, static files need the token as everything else does). Anything else (another
 * method, a Range request, an unknown file) goes on to Next.js.
 */
import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { acceptsGzip } from "@/lib/inbound/pushed";
import { admit, headerOf, send } from "@/server/inbound/early";

const gzip = promisify(zlib.gzip);

const TYPES: Record<string, string> = {
  ".js": "application/javascript; charset=UTF-8",
  ".css": "text/css; charset=UTF-8",
  ".json": "application/json; charset=UTF-8",
  ".map": "application/json; charset=UTF-8",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=UTF-8",
};
/** Gzipped when it saves something: text types only. */
const COMPRESSIBLE = new Set([".js", ".css", ".json", ".map", ".svg", ".txt"]);

interface Asset {
  body: Buffer;
  gzipped: Buffer | null;
  type: string;
  etag: string;
  lastModified: string;
}

/** At most this much is held in memory (a build's static directory is 1-3 MB); beyond it the rest is left to Next.js. */
const MAX_TOTAL_BYTES = 64 * 2 ** 20;

export interface StaticAssets {
  /** files held, by URL path */
  readonly size: number;
  serve(req: http.IncomingMessage, res: http.ServerResponse): boolean;
}

/** Reads `<dir>` (the build's static directory) into memory, served at `<basePath>/_next/static/`. */
export async function loadStaticAssets(dir: string, basePath: string): Promise<StaticAssets> {
  const assets = new Map<string, Asset>();
  const prefix = `${basePath}/_next/static/`;
  let total = 0;
  const files = fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()) : [];
  for (const e of files) {
    const file = path.join(e.parentPath, e.name);
    const ext = path.extname(e.name).toLowerCase();
    const type = TYPES[ext];
    if (!type) continue;
    const st = fs.statSync(file);
    if (total + st.size > MAX_TOTAL_BYTES) continue;
    const body = fs.readFileSync(file);
    total += body.length;
    const rel = path.relative(dir, file).split(path.sep).map(encodeURIComponent).join("/");
    const gz = COMPRESSIBLE.has(ext) && body.length >= 1024 ? await gzip(body, { level: 9 }) : null;
    assets.set(prefix + rel, {
      body,
      gzipped: gz && gz.length < body.length ? gz : null,
      type,
      // as Next.js (send's etag) writes it: W/"<size hex>-<mtime ms hex>"
      etag: `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`,
      lastModified: st.mtime.toUTCString(),
    });
  }
  return {
    size: assets.size,
    serve(req, res) {
      if (req.method !== "GET" || req.headers.range) return false;
      const url = req.url ?? "";
      const q = url.indexOf("?");
      const pathname = q < 0 ? url : url.slice(0, q);
      const asset = assets.get(pathname);
      if (!asset) return false;
      const admitted = admit(req, res, pathname.slice(basePath.length));
      if (admitted === "next") return false;
      if (admitted === "refused") return true;
      const headers = { ...admitted, "Cache-Control": "public, max-age=31536000, immutable", ETag: asset.etag, "Last-Modified": asset.lastModified, "Content-Type": asset.type, Vary: "Accept-Encoding" };
      if (headerOf(req, "if-none-match")?.split(",").some((t) => t.trim() === asset.etag)) {
        res.writeHead(304, headers).end();
        return true;
      }
      if (asset.gzipped && acceptsGzip(headerOf(req, "accept-encoding") ?? undefined)) send(res, 200, { ...headers, "Content-Encoding": "gzip" }, asset.gzipped);
      else send(res, 200, headers, asset.body);
      return true;
    },
  };
}
