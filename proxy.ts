/**
 * Runs before every request (Next.js 16 "proxy", formerly middleware; Node.js runtime, in the server's process): access
 * control (auth.mode none | proxy | token, probes exempt) and the security headers (CSP with a per-request nonce and
 * frame-ancestors from the configuration, nosniff, Referrer-Policy). The logic is in server/auth.ts and lib/auth/decide.ts.
 * No matcher: pages, /api/*, /metrics and static files all pass through it.
 */
import type { NextRequest } from "next/server";
import { guard } from "@/server/auth";

export function proxy(request: NextRequest) {
  return guard(request);
}
