/**
 * GET /metrics, answered by the server entry before Next.js: the access decision, then the process metrics and the poll
 * worker's part written as they are (server/metrics.ts). Through Next.js' route each scrape cost a route handler's work on
 * the serving thread and a copy of the ~0.8 MB text (at 5,000 collectors); here a scrape is the access decision and two
 * writes, or one gzip in zlib's thread pool for a client that takes gzip (Prometheus does). Anything else (HEAD, a broken
 * configuration, no runtime yet) is left to Next.js' route (app/metrics/route.ts), which answers the same.
 */
import type http from "node:http";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { acceptsGzip } from "@/lib/inbound/pushed";
import { renderMetrics } from "@/server/metrics";
import { admit, headerOf, send } from "@/server/inbound/early";
import { runtimeIfSettled } from "@/server/inbound/runtime-now";

const gzip = promisify(zlib.gzip);

/** Serves GET `<base>/metrics` and returns true, or returns false (having written nothing) for Next.js to serve it. */
export async function serveMetrics(req: http.IncomingMessage, res: http.ServerResponse, basePath: string): Promise<boolean> {
  if (req.method !== "GET") return false;
  const url = req.url ?? "";
  const q = url.indexOf("?");
  if ((q < 0 ? url : url.slice(0, q)) !== `${basePath}/metrics`) return false;
  const runtime = runtimeIfSettled();
  if (!runtime) return false;
  const admitted = admit(req, res, "/metrics");
  if (admitted === "next") return false;
  if (admitted === "refused") return true;
  let rendered: Awaited<ReturnType<typeof renderMetrics>>;
  let zipped: Buffer | null = null;
  try {
    rendered = await renderMetrics(runtime.host);
    // level 1: the text is repetitive (about 10:1 even so), and a scrape should cost little of the thread pool
    if (acceptsGzip(headerOf(req, "accept-encoding") ?? undefined)) zipped = await gzip(Buffer.concat(rendered.parts), { level: 1 });
  } catch (e) {
    console.error("allocation-lens: /metrics failed", (e as Error)?.message);
    send(res, 500, { "Content-Type": "text/plain; charset=utf-8", ...admitted, "Cache-Control": "no-store" }, "# metrics unavailable\n");
    return true;
  }
  const headers = { "Content-Type": rendered.contentType, ...admitted, "Cache-Control": "no-store", Vary: "Accept-Encoding" };
  if (zipped) {
    send(res, 200, { ...headers, "Content-Encoding": "gzip" }, zipped);
    return true;
  }
  const { parts } = rendered;
  res.writeHead(200, { ...headers, "Content-Length": parts.reduce((n, p) => n + p.byteLength, 0) });
  for (const p of parts.slice(0, -1)) res.write(p);
  res.end(parts.at(-1));
  return true;
}
