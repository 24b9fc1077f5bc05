import "server-only";
/**
 * Access control and security headers of every request: the decision and the headers, applied by proxy.ts through
 * server/auth.ts (which Next.js 16 runs in the Node.js runtime, in the server's own process, before every route: pages,
 * /api/*, /metrics, static files) and by the server entry's own answers (server/inbound/pushed.ts). No Next.js import:
 * the server entry bundles this module.
 *
 * The policy comes from the configuration file (the same one the runtime loads; without one, the embedded demo: mode none).
 * The token file is re-read when it changes (rotation without restart); when it cannot be read, token mode refuses every
 * request (503) rather than opening up. The peer address for proxy mode comes from server/security/peer.ts.
 */
import fs from "node:fs";
import { configPathFromEnv, loadConfigFile } from "@/server/config";
import { compilePolicy, decide, isExempt, type AuthDecision, type AuthPolicy } from "@/lib/auth/decide";
import { clientKey, FailureLimiter } from "@/lib/auth/failures";
import { readTokenFile, tokenFileProblems } from "@/server/tokens";
import { DEFAULT_EXEMPT_PATHS } from "@/lib/auth/paths";
import { contentSecurityPolicy, DEFAULT_FRAME_ANCESTORS, newNonce, STATIC_SECURITY_HEADERS } from "@/lib/security/headers";
import { peerFromHeaders } from "@/server/security/peer";

export interface SecurityPolicy {
  auth: AuthPolicy;
  tokenFile: string | undefined;
  frameAncestors: string[];
  /** demo mode (the embedded demo, or a configuration with `demo`): the only mode in which /api/v1/demo/* exists */
  demo: boolean;
  /** token mode: failed attempts per client address within windowMs before 429 */
  failures: { maxFailures: number; windowMs: number };
  /** set when the configuration cannot be loaded: every request but the probes is refused with this message */
  broken?: string;
}

const KEY = Symbol.for("allocation-lens.security-policy");
const TOKENS = Symbol.for("allocation-lens.tokens");
const FAILURES = Symbol.for("allocation-lens.auth-failures");
type Holder = {
  [KEY]?: SecurityPolicy;
  [FAILURES]?: FailureLimiter;
  [TOKENS]?: { file: string; mtimeMs: number; size: number; checkedAt: number; digests: Buffer[] | null };
};

const OPEN: SecurityPolicy = {
  auth: { mode: "none", trustedProxies: [], exemptPaths: [...DEFAULT_EXEMPT_PATHS] },
  tokenFile: undefined,
  frameAncestors: [...DEFAULT_FRAME_ANCESTORS],
  demo: true,
  failures: { maxFailures: 10, windowMs: 60_000 },
};

export function loadSecurityPolicy(file = configPathFromEnv()): SecurityPolicy {
  if (!file) return OPEN; // the embedded demo: local use
  try {
    const config = loadConfigFile(file);
    return {
      auth: compilePolicy(config.auth),
      tokenFile: config.auth.tokenFile,
      frameAncestors: config.embed.frameAncestors,
      demo: Boolean(config.demo),
      failures: { maxFailures: config.auth.maxFailedAttempts, windowMs: config.auth.failureWindowSeconds * 1000 },
    };
  } catch (e) {
    return { ...OPEN, demo: false, auth: { ...OPEN.auth, mode: "token" }, broken: `the configuration cannot be loaded: ${(e as Error).message.split("\n")[0]}` };
  }
}

export function securityPolicy(): SecurityPolicy {
  const holder = globalThis as Holder;
  holder[KEY] ??= loadSecurityPolicy();
  return holder[KEY];
}

/** For tests: forget the cached policy, tokens and failure counts. */
export function resetSecurityPolicy(policy?: SecurityPolicy): void {
  const holder = globalThis as Holder;
  holder[KEY] = policy;
  holder[TOKENS] = undefined;
  holder[FAILURES] = undefined;
}

function failureLimiter(policy: SecurityPolicy): FailureLimiter {
  const holder = globalThis as Holder;
  holder[FAILURES] ??= new FailureLimiter({ ...policy.failures, maxEntries: 10_000 });
  return holder[FAILURES];
}

const RECHECK_MS = 5_000;

/** Digests of the token file's tokens, re-read when its size or mtime changes; null when it cannot be read. */
export function currentTokens(file: string, now = Date.now()): Buffer[] | null {
  const holder = globalThis as Holder;
  const cached = holder[TOKENS];
  if (cached && cached.file === file && now - cached.checkedAt < RECHECK_MS) return cached.digests;
  try {
    const st = fs.statSync(file);
    if (cached && cached.file === file && cached.mtimeMs === st.mtimeMs && cached.size === st.size && cached.digests) {
      cached.checkedAt = now;
      return cached.digests;
    }
    const parsed = readTokenFile(file);
    holder[TOKENS] = { file, mtimeMs: st.mtimeMs, size: st.size, checkedAt: now, digests: parsed.digests };
    // named by line, never quoted; such lines are not accepted as tokens
    for (const line of tokenFileProblems(file, parsed)) console.error(line);
    return parsed.digests;
  } catch (e) {
    if (cached?.file !== file || cached.digests !== null) console.error(`allocation-lens: cannot read the token file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    holder[TOKENS] = { file, mtimeMs: 0, size: 0, checkedAt: now, digests: null };
    return null;
  }
}

/** What the access decision reads of a request: its path (without the base path) and its headers. */
export interface GuardedRequest {
  path: string;
  headers: { get(name: string): string | null };
}

export function authorize(request: GuardedRequest, policy = securityPolicy()): AuthDecision {
  const path = request.path;
  if (policy.broken) {
    const d = decide({ ...policy.auth, mode: "none" }, { path, peer: undefined, header: () => null }, null);
    if (d.allow && d.reason === "exempt") return d;
    return { allow: false, status: 503, code: "misconfigured", message: policy.broken };
  }
  const peer = peerFromHeaders(request.headers);
  const req = { path, peer, header: (n: string) => request.headers.get(n) };
  if (policy.auth.mode !== "token") return decide(policy.auth, req, []);
  // Token mode: an address that sent too many wrong tokens is refused, unchecked, until its window ends.
  if (isExempt(path, policy.auth.exemptPaths)) return decide(policy.auth, req, []);
  const limiter = failureLimiter(policy);
  const key = clientKey(peer);
  const now = Date.now();
  const wait = limiter.retryAfterSeconds(key, now);
  if (wait > 0) {
    return { allow: false, status: 429, code: "too_many_failures", message: `too many failed authentication attempts from this address; retry in ${wait} s`, retryAfterSeconds: wait };
  }
  const decision = decide(policy.auth, req, policy.tokenFile ? currentTokens(policy.tokenFile) : null);
  if (!decision.allow && decision.code === "invalid_token") limiter.fail(key, now);
  else if (decision.allow) limiter.succeed(key);
  return decision;
}

/** The security headers of every answer, the CSP given. */
export function securityHeaders(csp: string): Record<string, string> {
  return { "Content-Security-Policy": csp, ...STATIC_SECURITY_HEADERS };
}

/** A fresh nonce and the CSP that carries it. */
export function freshCsp(policy = securityPolicy()): { nonce: string; csp: string } {
  const nonce = newNonce(crypto.getRandomValues(new Uint8Array(18)));
  return { nonce, csp: contentSecurityPolicy({ nonce, frameAncestors: policy.frameAncestors, dev: process.env.NODE_ENV === "development" }) };
}

/** A refused request's answer: the JSON body naming the reason, and its headers (the security headers apart). */
export function refusal(decision: Extract<AuthDecision, { allow: false }>): { status: number; headers: Record<string, string>; body: { error: { code: string; message: string } } } {
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  if (decision.wwwAuthenticate) headers["WWW-Authenticate"] = decision.wwwAuthenticate;
  if (decision.retryAfterSeconds) headers["Retry-After"] = String(decision.retryAfterSeconds);
  return { status: decision.status, headers, body: { error: { code: decision.code, message: decision.message } } };
}

