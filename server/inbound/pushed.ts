/**
 * The pushed answers (the cluster routes without parameters that every page asks for: summary, nodes, collectors, lost,
 * monitors, diagnostics), served by the server entry itself, before Next.js. They are the latest poll's bytes as the
 * worker pushed them; through Next.js each such request cost a few milliseconds of the serving thread (its router, the
 * proxy, the route handler) and the 1.8 MB nodes answer at 5,000 nodes was gzipped again for every page load. Here a
 * request costs the access decision and a write. The worker sends each large answer gzipped as well (made on the poll
 * thread, at its lower priority); an answer without that copy (one asked for on request, or a holder's) is gzipped once,
 * in zlib's thread pool, not on the event loop.
 *
 * The answer is the same as Next.js' route would give: the same access decision, refusal and security headers
 * (server/inbound/early.ts), the same bytes. Whatever this module is unsure of goes on to Next.js untouched: another
 * method or spelling of the path, other query parameters, an unknown cluster, a cluster before its first poll, a broken
 * configuration, an answer that fails. (A replica that does not hold the cluster's Lease marks the holder's last answer
 * stale in a new body per request while the holder is unreachable: such bodies are gzipped per request.)
 */
import type http from "node:http";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { acceptsGzip, GZIP_MIN_BYTES, pushedRequest } from "@/lib/inbound/pushed";
import { admit, headerOf, send } from "@/server/inbound/early";
import { settledRuntime } from "@/server/inbound/runtime-now";
import { PUSHED_ROUTES, type Answer } from "@/server/poll/protocol";

const gzip = promisify(zlib.gzip);

/** Each answer's gzipped bytes, made once per answer (the bodies are replaced at every poll, and collected with them). */
const gzipped = new WeakMap<Uint8Array, Promise<Buffer>>();

function gzipOnce(body: Uint8Array): Promise<Buffer> {
  let p = gzipped.get(body);
  if (!p) {
    p = gzip(body, { level: 6 });
    gzipped.set(body, p);
  }
  return p;
}

/**
 * Serves the request when it is a pushed answer this module can give exactly as Next.js would; returns false (having
 * written nothing) for Next.js to serve it.
 */
export async function servePushed(req: http.IncomingMessage, res: http.ServerResponse, basePath: string): Promise<boolean> {
  if (req.method !== "GET") return false;
  const asked = pushedRequest(req.url ?? "", basePath, PUSHED_ROUTES);
  if (!asked) return false;
  const runtime = await settledRuntime();
  if (!runtime) return false;
  const handle = runtime.pollers.get(asked.cluster ?? runtime.config.clusters[0].name);
  if (!handle?.latest) return false;
  const admitted = admit(req, res, `/api/v1/${asked.route}`);
  if (admitted === "next") return false;
  if (admitted === "refused") return true;
  let a: Answer;
  try {
    a = await handle.answer({ route: asked.route, search: asked.search });
  } catch {
    return false; // Next.js' route asks again and says what failed
  }
  const answerHeaders = { "Content-Type": "application/json", ...admitted, "Cache-Control": "no-store", Vary: "Accept-Encoding" };
  if (a.body.byteLength >= GZIP_MIN_BYTES && acceptsGzip(headerOf(req, "accept-encoding") ?? undefined)) {
    send(res, a.status, { ...answerHeaders, "Content-Encoding": "gzip" }, a.gzip ?? (await gzipOnce(a.body)));
  } else {
    send(res, a.status, answerHeaders, a.body);
  }
  return true;
}
