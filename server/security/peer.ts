import "server-only";
/**
 * The TCP peer address of each request, for `auth.mode: proxy`. Neither a Next.js route handler nor proxy.ts sees the socket,
 * and `X-Forwarded-For` is whatever the client sends (Next.js only fills it in when it is absent). So the Node HTTP server's
 * own diagnostics channel `http.server.request.start` (published before the request reaches Next.js) stamps every request
 * with a private header carrying the socket's remote address and a per-process random secret; a client-sent header of that
 * name is overwritten. proxy.ts trusts the header only with the right secret: where stamping is not installed (or for a
 * request that arrived before it was), the peer is unknown and proxy mode refuses the request.
 */
import diagnostics from "node:diagnostics_channel";
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const PEER_HEADER = "x-allocation-lens-peer";

const KEY = Symbol.for("allocation-lens.peer-stamp");
type Holder = { [KEY]?: { secret: string } };

/** Idempotent; call once at server start (instrumentation.ts), before requests are served. */
export function installPeerStamping(): void {
  const holder = globalThis as Holder;
  if (holder[KEY]) return;
  const secret = randomBytes(18).toString("base64url");
  holder[KEY] = { secret };
  diagnostics.subscribe("http.server.request.start", (message) => {
    const { request } = message as { request: IncomingMessage };
    const addr = request.socket?.remoteAddress ?? "";
    request.headers[PEER_HEADER] = `${secret} ${addr}`;
  });
}

/** The peer address of a request stamped by this process, or undefined. */
export function peerFromHeaders(headers: { get(name: string): string | null }): string | undefined {
  const stamp = (globalThis as Holder)[KEY];
  const value = headers.get(PEER_HEADER);
  if (!stamp || !value) return undefined;
  const space = value.indexOf(" ");
  const given = Buffer.from(value.slice(0, Math.max(space, 0)));
  const secret = Buffer.from(stamp.secret);
  if (space < 0 || given.length !== secret.length || !timingSafeEqual(given, secret)) return undefined;
  return value.slice(space + 1) || undefined;
}
