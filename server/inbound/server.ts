/**
 * The dashboard's own HTTP server, in front of Next.js: Node's limits set explicitly (lib/inbound/limits.ts) and the body
 * gate (lib/inbound/gate.ts) applied to the request line and headers before Next sees the request, so that no body is read
 * that nobody wants. A refused request gets a small JSON answer and its connection is closed; its body is never read.
 *
 * A body a route accepts (the demo's fault requests, in demo mode) is held back from readers and counted as it arrives,
 * and handed on only once complete, or refused with 413 as soon as it passes the limit (chunked bodies have no declared
 * length). Holding it happens in the request object's own `push`, where the HTTP parser delivers body bytes, so that the
 * request Next receives is the untouched IncomingMessage.
 *
 * No "server-only" import: this module is bundled into the server entry (scripts/build-server.mjs), outside Next.
 */
import http from "node:http";
import { InFlight, RateLimiter } from "@/lib/inbound/clients";
import { gate, type GateSettings, type GateVerdict } from "@/lib/inbound/gate";
import type { InboundLimits } from "@/lib/inbound/limits";
import { STATIC_SECURITY_HEADERS } from "@/lib/security/headers";

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => unknown;

type Holding = { limit: number; size: number; chunks: Buffer[]; done: (complete: boolean) => void };

/** An IncomingMessage that can hold its body back until it is complete, counting it against a limit. */
export class GatedRequest extends http.IncomingMessage {
  private holding: Holding | null = null;
  private overflowed = false;

  /** Hold the body: `done(true)` once it is complete and within `limit`, `done(false)` as soon as it passes `limit`. */
  holdBody(limit: number, done: (complete: boolean) => void): void {
    this.holding = { limit, size: 0, chunks: [], done };
  }

  // The HTTP parser delivers each body chunk, and the end (null), through push.
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (this.overflowed) return false; // dropped; false also stops the parser reading the socket
    const h = this.holding;
    if (!h) return super.push(chunk, encoding);
    if (chunk === null) {
      this.holding = null;
      for (const c of h.chunks) super.push(c);
      const more = super.push(null);
      h.done(true);
      return more;
    }
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, encoding);
    h.size += bytes.length;
    if (h.size > h.limit) {
      this.holding = null;
      this.overflowed = true;
      h.done(false);
      return false;
    }
    h.chunks.push(bytes);
    return true;
  }
}

/** The JSON refusal, with Connection: close (Node then closes the socket once it is written, without reading the body). */
export function refuse(res: http.ServerResponse, status: number, code: string, message: string, retryAfterSeconds?: number): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${JSON.stringify({ error: { code, message } })}\n`;
  res.writeHead(status, {
    ...STATIC_SECURITY_HEADERS,
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    ...(retryAfterSeconds ? { "Retry-After": String(retryAfterSeconds) } : {}),
    Connection: "close",
  });
  res.end(body);
  // A client that never reads the answer cannot keep the socket either.
  const timer = setTimeout(() => res.socket?.destroy(), 2_000);
  timer.unref();
  res.once("close", () => clearTimeout(timer));
}

/** A file of the build's `/_next/static/` (content-hashed, immutable) or the favicon. */
export function isStaticAsset(url: string, basePath: string): boolean {
  const path = url.split("?")[0];
  if (path.includes("..") || path.includes("%") || path.includes("\\")) return false; // no way round the rate to another route
  return path.startsWith(`${basePath}/_next/static/`) || path === `${basePath}/favicon.ico`;
}

export interface InboundServerOptions {
  limits: InboundLimits;
  gate: Omit<GateSettings, "maxBodyBytes">;
  handler: Handler;
  /**
   * Per-client fairness: who a request is from (lib/inbound/clients.ts) and how many of its requests may be in flight;
   * past that it gets 429 at once, before Next.js. Without it, no per-client limit.
   */
  clients?: { of(req: http.IncomingMessage): string; maxInFlight: number; perSecond?: number; burst?: number };
  /**
   * Seconds a client must wait before it may try again (an address locked out after too many wrong tokens), 0 when it may
   * now: answered 429 here, before Next.js, so that a locked-out client costs next to nothing.
   */
  lockout?: (req: http.IncomingMessage, client: string) => number;
  /**
   * Requests of a trusted peer (another replica with the peer token, server/lease/peer-server.ts): the handler that serves
   * one, which is then run without the per-client limits; null for any other request.
   */
  trusted?: (req: http.IncomingMessage) => Handler | null;
  /** called when the handler throws (the answer is then a 500 when nothing was sent yet) */
  onError?: (e: unknown, req: http.IncomingMessage) => void;
}

function verdictOf(req: http.IncomingMessage, settings: GateSettings): GateVerdict {
  const te = req.headers["transfer-encoding"];
  return gate({ method: req.method ?? "GET", url: req.url ?? "/", contentLength: req.headers["content-length"], transferEncoding: te }, settings);
}

export function createInboundServer(o: InboundServerOptions): http.Server {
  const { limits } = o;
  const settings: GateSettings = { ...o.gate, maxBodyBytes: limits.maxBodyBytes };
  const headersTimeout = limits.headersTimeoutSeconds * 1000;
  const run = (req: http.IncomingMessage, res: http.ServerResponse, handler: Handler = o.handler) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((e) => {
        o.onError?.(e, req);
        if (!res.headersSent) refuse(res, 500, "internal", "internal error");
        else res.destroy();
      });
  };
  const inFlight = o.clients ? new InFlight(o.clients.maxInFlight) : null;
  const rate = o.clients?.perSecond && o.clients.burst ? new RateLimiter(o.clients.perSecond, o.clients.burst) : null;
  const admit = (req: http.IncomingMessage, res: http.ServerResponse, verdict: GateVerdict, continued: () => void) => {
    if (verdict.action === "refuse") return refuse(res, verdict.status, verdict.code, verdict.message);
    const peer = verdict.action === "pass" ? o.trusted?.(req) : null;
    if (peer) return run(req, res, peer);
    if (o.clients && inFlight) {
      const client = o.clients.of(req);
      const wait = o.lockout?.(req, client) ?? 0;
      if (wait > 0) return refuse(res, 429, "too_many_failures", `too many failed authentication attempts from this address; retry in ${wait} s`, wait);
      // the build's static files (scripts, styles, fonts) are cheap, immutable and most of a page load: not counted
      const slow = rate && !isStaticAsset(req.url ?? "/", settings.basePath) ? rate.take(client, Date.now()) : 0;
      if (slow > 0) return refuse(res, 429, "too_many_requests", `more than ${rate!.perSecond} requests a second from this client (server.requestsPerSecondPerClient)`, slow);
      if (!inFlight.enter(client)) {
        return refuse(res, 429, "too_many_requests", `more than ${inFlight.limit} requests of this client at once (server.maxRequestsPerClient)`, 1);
      }
      res.once("close", () => inFlight.leave(client));
    }
    continued();
    if (verdict.action === "pass") return run(req, res);
    (req as GatedRequest).holdBody(verdict.limit, (complete) => {
      if (complete) run(req, res);
      else refuse(res, 413, "body_too_large", `the request body is over ${verdict.limit} bytes (server.maxBodyBytes)`);
    });
  };
  const server = http.createServer(
    {
      IncomingMessage: GatedRequest,
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout,
      requestTimeout: limits.requestTimeoutSeconds * 1000,
      // Node checks the two timeouts above every connectionsCheckingInterval (default 30 s, which would triple a 10 s limit)
      connectionsCheckingInterval: Math.max(250, Math.min(1000, headersTimeout / 4)),
      requireHostHeader: true,
    },
    (req, res) => admit(req, res, verdictOf(req, settings), () => {}),
  );
  // Expect: 100-continue: a refused request never gets its 100 (and a well-behaved client never sends the body).
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => admit(req, res, verdictOf(req, settings), () => res.writeContinue()));
  server.keepAliveTimeout = limits.keepAliveTimeoutSeconds * 1000;
  server.timeout = limits.idleTimeoutSeconds * 1000;
  server.maxHeadersCount = limits.maxHeadersCount;
  server.maxConnections = limits.maxConnections;
  return server;
}
