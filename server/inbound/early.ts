/**
 * What the server entry's own answers (before Next.js: server/inbound/pushed.ts, server/inbound/static-assets.ts) share
 * with proxy.ts: the same access decision (server/access.ts, with the same failure counting in token mode), the same
 * refusal body and the same security headers, so that a request answered here gets what Next.js would have given it.
 */
import type http from "node:http";
import { authorize, freshCsp, refusal, securityHeaders, securityPolicy } from "@/server/access";

export function headerOf(req: http.IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? null;
}

export function send(res: http.ServerResponse, status: number, headers: Record<string, string>, body: Uint8Array | string): void {
  res.writeHead(status, { ...headers, "Content-Length": typeof body === "string" ? Buffer.byteLength(body) : body.byteLength });
  res.end(body);
}

/**
 * The access decision for a request at `path` (without the base path): the security headers to answer with when it may
 * pass, "refused" when it may not (the refusal has been sent), or "next" when Next.js should decide (the configuration
 * cannot be loaded: Next.js says so).
 */
export function admit(req: http.IncomingMessage, res: http.ServerResponse, path: string): Record<string, string> | "refused" | "next" {
  const policy = securityPolicy();
  if (policy.broken) return "next";
  const decision = authorize({ path, headers: { get: (n) => headerOf(req, n) } }, policy);
  const headers = securityHeaders(freshCsp(policy).csp);
  if (decision.allow) return headers;
  const r = refusal(decision);
  send(res, r.status, { "Content-Type": "application/json", ...headers, ...r.headers }, JSON.stringify(r.body));
  return "refused";
}
