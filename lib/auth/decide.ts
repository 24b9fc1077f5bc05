/**
 * Who may read the dashboard: the pure decision, no I/O. The server (proxy.ts through server/auth.ts) gathers the inputs:
 * the request path, the peer address of the TCP connection (never a header the client can set), the request headers,
 * and the tokens read from the token file.
 *
 * - `none`: everyone (local use, or a network policy in front).
 * - `proxy`: an authenticating reverse proxy (oauth2-proxy and the like) sits in front. Only requests whose TCP peer is one of
 *   `trustedProxies` are served, and only when the proxy says who the user is in one of `userHeaders` (default
 *   `X-Auth-Request-User`, `X-Auth-Request-Email`: what an ingress with external auth copies from oauth2-proxy's
 *   `--set-xauthrequest` answer; oauth2-proxy as the reverse proxy itself sends `X-Forwarded-User`/`-Email` with
 *   `--pass-user-headers`). List only the headers the proxy sets and strips from the client's request: a header it passes
 *   through untouched could be chosen by the signed-in client. Anyone else reaching the pod directly gets 403.
 * - `token`: `Authorization: Bearer <token>` with one of the tokens of the token file (portals calling the API). Tokens are
 *   compared in constant time (SHA-256 digests of equal length, compared with every configured token).
 *
 * Exempt paths (default: the probes /api/healthz and /api/readyz) are served to everyone in every mode.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { cidrContains, parseCidr, parseIp, type Cidr } from "@/lib/auth/cidr";
import { isExempt } from "@/lib/auth/paths";

export { DEFAULT_EXEMPT_PATHS, isExempt } from "@/lib/auth/paths";

export type AuthMode = "none" | "proxy" | "token";

/** The default `userHeaders`: oauth2-proxy's `--set-xauthrequest` names, as an ingress with external auth forwards them. */
export const USER_HEADERS = ["X-Auth-Request-User", "X-Auth-Request-Email"] as const;
/** What oauth2-proxy as the reverse proxy sends upstream with `--pass-user-headers` (stripped from the client's request). */
export const OAUTH2_PROXY_UPSTREAM_HEADERS = ["X-Forwarded-User", "X-Forwarded-Email"] as const;

export interface AuthSettings {
  mode: AuthMode;
  trustedProxies: string[];
  exemptPaths: string[];
  /** proxy mode: the headers naming the user, first non-empty wins; default USER_HEADERS */
  userHeaders?: string[];
}

export interface AuthPolicy {
  mode: AuthMode;
  trustedProxies: Cidr[];
  exemptPaths: string[];
  /** as configured (the messages name them); compared case-insensitively */
  userHeaders?: readonly string[];
}

export interface AuthRequest {
  /** path without the base path, e.g. /api/v1/summary */
  path: string;
  /** the TCP peer's address as the server saw it; undefined when unknown (then proxy mode refuses) */
  peer: string | undefined;
  header(name: string): string | null;
}

export type AuthDecision =
  | { allow: true; user: string | null; reason: "none" | "exempt" | "proxy" | "token" }
  | { allow: false; status: 401 | 403 | 429 | 503; code: string; message: string; wwwAuthenticate?: string; retryAfterSeconds?: number };

export function compilePolicy(settings: AuthSettings): AuthPolicy {
  const trustedProxies = settings.trustedProxies.map((t) => {
    const c = parseCidr(t);
    if (!c) throw new Error(`not an IP address or CIDR range: ${JSON.stringify(t)}`);
    return c;
  });
  const userHeaders = settings.userHeaders?.length ? [...settings.userHeaders] : [...USER_HEADERS];
  return { mode: settings.mode, trustedProxies, exemptPaths: settings.exemptPaths, userHeaders };
}

export function isTrustedPeer(peer: string | undefined, trusted: readonly Cidr[]): boolean {
  if (!peer) return false;
  const ip = parseIp(peer);
  return Boolean(ip) && trusted.some((c) => cidrContains(c, ip!));
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Shorter tokens are refused at load: a bearer token must not be guessable (`openssl rand -base64 32` gives 44). */
export const MIN_TOKEN_LENGTH = 32;

export interface TokenFile {
  digests: Buffer[];
  /** lines that hold no usable token, by line number (1-based); the message never quotes the token */
  problems: { line: number; message: string }[];
}

/**
 * A token file: one token per line; blank lines and `#` comments ignored. A token shorter than MIN_TOKEN_LENGTH or with
 * spaces in it is not accepted (and named by its line number in `problems`).
 */
export function parseTokenFile(fileText: string): TokenFile {
  const digests: Buffer[] = [];
  const problems: TokenFile["problems"] = [];
  fileText.split(/\r?\n/).forEach((raw, i) => {
    const l = raw.trim();
    if (!l || l.startsWith("#")) return;
    if (/\s/.test(l)) problems.push({ line: i + 1, message: "a token cannot contain spaces" });
    else if (l.length < MIN_TOKEN_LENGTH) problems.push({ line: i + 1, message: `a token must be at least ${MIN_TOKEN_LENGTH} characters long (this one has ${l.length}); generate one with \`openssl rand -base64 32\`` });
    else digests.push(digest(l));
  });
  return { digests, problems };
}

/** Digests of the usable tokens of a token file (see parseTokenFile). */
export function tokenDigests(fileText: string): Buffer[] {
  return parseTokenFile(fileText).digests;
}

/** Constant-time membership: every configured digest is compared, whatever matches first. */
export function tokenMatches(presented: string, digests: readonly Buffer[]): boolean {
  const d = digest(presented);
  let found = false;
  for (const known of digests) found = timingSafeEqual(d, known) || found;
  return found;
}

/** The bearer token of an Authorization header, or null. */
export function bearerToken(authorization: string | null): string | null {
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(authorization ?? "");
  return m ? m[1] : null;
}

/** Printable, short: a header value from a proxy becomes a user name in logs and in the page, as text. */
function cleanUser(v: string | null): string | null {
  if (!v) return null;
  const t = v.trim().slice(0, 256);
  return /^[\x20-\x7e]+$/.test(t) ? t : null;
}

export function decide(policy: AuthPolicy, req: AuthRequest, tokens: readonly Buffer[] | null): AuthDecision {
  if (isExempt(req.path, policy.exemptPaths)) return { allow: true, user: null, reason: "exempt" };
  switch (policy.mode) {
    case "none":
      return { allow: true, user: null, reason: "none" };
    case "proxy": {
      if (!isTrustedPeer(req.peer, policy.trustedProxies)) {
        return {
          allow: false,
          status: 403,
          code: "untrusted_peer",
          message: "this dashboard is served through its authenticating proxy only; open it through the proxy's address",
        };
      }
      const names = policy.userHeaders?.length ? policy.userHeaders : USER_HEADERS;
      let user: string | null = null;
      for (const name of names) user ??= cleanUser(req.header(name.toLowerCase()));
      if (!user) {
        return {
          allow: false,
          status: 401,
          code: "unauthenticated",
          message: `the authenticating proxy did not name a user (${names.join(" or ")}); check auth.userHeaders against what it sends (oauth2-proxy: --pass-user-headers sends X-Forwarded-User, --set-xauthrequest answers X-Auth-Request-User)`,
        };
      }
      return { allow: true, user, reason: "proxy" };
    }
    case "token": {
      if (tokens === null) {
        return { allow: false, status: 503, code: "tokens_unavailable", message: "the token file cannot be read: no request can be authorized" };
      }
      const presented = bearerToken(req.header("authorization"));
      if (!presented) {
        return {
          allow: false,
          status: 401,
          code: "unauthenticated",
          message: "send Authorization: Bearer <token>",
          wwwAuthenticate: 'Bearer realm="allocation-lens"',
        };
      }
      if (!tokenMatches(presented, tokens)) {
        return {
          allow: false,
          status: 401,
          code: "invalid_token",
          message: "the bearer token is not valid",
          wwwAuthenticate: 'Bearer realm="allocation-lens", error="invalid_token"',
        };
      }
      return { allow: true, user: "token", reason: "token" };
    }
  }
}
