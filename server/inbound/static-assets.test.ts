/**
 * The build's static assets served from memory (server/inbound/static-assets.ts) over real sockets, from a directory laid
 * out as a build's: gzipped once, Next.js' caching headers and ETag, the access decision of every answer, and everything
 * it does not hold left to Next.js (a marker answer here).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import type { AddressInfo } from "node:net";
import { compilePolicy } from "@/lib/auth/decide";
import { resetSecurityPolicy } from "@/server/access";
import { loadStaticAssets, type StaticAssets } from "@/server/inbound/static-assets";
import { installPeerStamping } from "@/server/security/peer";

const GOOD = "good-token-0123456789abcdefghijklmnopqrstuvwxyz";
const SCRIPT = `console.log(${JSON.stringify("x".repeat(5000))});`;
let dir: string;
let server: http.Server;
let port: number;
let assets: StaticAssets;

function call(p: string, headers: Record<string, string> = {}, method = "GET"): Promise<{ status: number; headers: http.IncomingHttpHeaders; raw: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: p, headers, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-static-"));
  fs.mkdirSync(path.join(dir, "static", "chunks"), { recursive: true });
  fs.writeFileSync(path.join(dir, "static", "chunks", "app-1a2b.js"), SCRIPT);
  fs.writeFileSync(path.join(dir, "static", "chunks", "tiny.css"), "a{}");
  fs.writeFileSync(path.join(dir, "static", "chunks", "data.bin"), "not a known type");
  fs.writeFileSync(path.join(dir, "tokens"), `${GOOD}\n`);
  installPeerStamping();
  assets = await loadStaticAssets(path.join(dir, "static"), "/lens");
  server = http.createServer((req, res) => {
    if (!assets.serve(req, res)) res.writeHead(299, { "X-Next": "yes" }).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(() => resetSecurityPolicy());

describe("static assets served before Next.js", () => {
  it("serves what the build holds, gzipped once, with Next.js' caching headers and the security headers", async () => {
    expect(assets.size).toBe(2); // the unknown type is left to Next.js
    const gz = await call("/lens/_next/static/chunks/app-1a2b.js", { "Accept-Encoding": "gzip, deflate, br" });
    expect(gz.status).toBe(200);
    expect(gz.headers["x-next"]).toBeUndefined();
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gz.raw).toString()).toBe(SCRIPT);
    expect(gz.raw.length).toBeLessThan(SCRIPT.length / 10);
    expect(gz.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(gz.headers["content-type"]).toBe("application/javascript; charset=UTF-8");
    expect(gz.headers.vary).toBe("Accept-Encoding");
    expect(gz.headers["x-content-type-options"]).toBe("nosniff");
    expect(gz.headers["content-security-policy"]).toContain("default-src 'self'");
    const st = fs.statSync(path.join(dir, "static", "chunks", "app-1a2b.js"));
    expect(gz.headers.etag).toBe(`W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`);
    const plain = await call("/lens/_next/static/chunks/app-1a2b.js");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.raw.toString()).toBe(SCRIPT);
    // too small to gain from gzip
    const tiny = await call("/lens/_next/static/chunks/tiny.css", { "Accept-Encoding": "gzip" });
    expect(tiny.headers["content-encoding"]).toBeUndefined();
    expect(tiny.raw.toString()).toBe("a{}");
    // a revalidation with the ETag: 304 without a body
    const again = await call("/lens/_next/static/chunks/app-1a2b.js", { "If-None-Match": String(gz.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.raw.length).toBe(0);
  });

  it("leaves to Next.js what it does not hold or does not do", async () => {
    for (const [p, h, m] of [
      ["/lens/_next/static/chunks/missing.js", {}, "GET"],
      ["/lens/_next/static/chunks/data.bin", {}, "GET"],
      ["/lens/_next/static/chunks/../chunks/app-1a2b.js", {}, "GET"],
      ["/_next/static/chunks/app-1a2b.js", {}, "GET"],
      ["/lens/_next/static/chunks/app-1a2b.js", { Range: "bytes=0-10" }, "GET"],
      ["/lens/_next/static/chunks/app-1a2b.js", {}, "HEAD"],
      ["/lens/_next/static/chunks/app-1a2b.js", {}, "POST"],
    ] as const) {
      expect((await call(p, h, m)).headers["x-next"], `${m} ${p}`).toBe("yes");
    }
  });

  it("needs the token in token mode, as every other answer does", async () => {
    resetSecurityPolicy({
      auth: compilePolicy({ mode: "token", trustedProxies: [], exemptPaths: [] }),
      tokenFile: path.join(dir, "tokens"),
      frameAncestors: ["'self'"],
      demo: false,
      failures: { maxFailures: 10, windowMs: 60_000 },
    });
    const refused = await call("/lens/_next/static/chunks/app-1a2b.js");
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.raw.toString()).error.code).toBeTruthy();
    expect((await call("/lens/_next/static/chunks/app-1a2b.js", { Authorization: `Bearer ${GOOD}` })).status).toBe(200);
  });
});
