import "server-only";
/**
 * proxy.ts's whole work: refuse a request with a JSON body naming the reason, or pass it on with a fresh CSP nonce and the
 * security headers. The decision and the headers are server/access.ts's.
 */
import { NextResponse, type NextRequest } from "next/server";
import { isDemoPath, routePath } from "@/lib/inbound/gate";
import { authorize, freshCsp, refusal, securityHeaders, securityPolicy } from "@/server/access";

function withSecurityHeaders(res: NextResponse, csp: string): NextResponse {
  for (const [k, v] of Object.entries(securityHeaders(csp))) res.headers.set(k, v);
  return res;
}

/** The whole of proxy.ts: refuse with a JSON body naming the reason, or pass on with a fresh CSP nonce. */
export function guard(request: NextRequest): NextResponse {
  const policy = securityPolicy();
  const { nonce, csp } = freshCsp(policy);
  // Outside demo mode the demo routes do not exist (the server entry's gate already says so before reading a body).
  if (!policy.demo && isDemoPath(routePath(request.nextUrl.pathname, "") ?? "")) {
    return withSecurityHeaders(NextResponse.json({ error: { code: "not_found", message: "not found" } }, { status: 404, headers: { "Cache-Control": "no-store" } }), csp);
  }
  const decision = authorize({ path: request.nextUrl.pathname, headers: request.headers }, policy);
  if (!decision.allow) {
    const r = refusal(decision);
    return withSecurityHeaders(NextResponse.json(r.body, { status: r.status, headers: r.headers }), csp);
  }
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("Content-Security-Policy", csp);
  headers.delete("x-allocation-lens-user");
  if (decision.user) headers.set("x-allocation-lens-user", decision.user);
  return withSecurityHeaders(NextResponse.next({ request: { headers } }), csp);
}
