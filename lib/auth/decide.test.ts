import { describe, expect, it } from "vitest";
import { cidrContains, parseCidr, parseIp } from "./cidr";
import {
  bearerToken,
  compilePolicy,
  decide,
  isExempt,
  isTrustedPeer,
  MIN_TOKEN_LENGTH,
  OAUTH2_PROXY_UPSTREAM_HEADERS,
  parseTokenFile,
  tokenDigests,
  tokenMatches,
  USER_HEADERS,
  type AuthRequest,
} from "./decide";
import { DEFAULT_EXEMPT_PATHS } from "./paths";

const req = (path: string, peer: string | undefined, headers: Record<string, string> = {}): AuthRequest => ({
  path,
  peer,
  header: (n) => headers[n.toLowerCase()] ?? null,
});

describe("CIDR matching", () => {
  it("parses IPv4, IPv6 and IPv4-mapped IPv6 addresses", () => {
    expect(parseIp("10.1.2.3")).toEqual({ family: 4, value: BigInt(0x0a010203) });
    expect(parseIp("::ffff:10.1.2.3")).toEqual({ family: 4, value: BigInt(0x0a010203) });
    expect(parseIp("::1")?.family).toBe(6);
    expect(parseIp("fe80::1%eth0")?.family).toBe(6);
    expect(parseIp("[2001:db8::1]")?.family).toBe(6);
    for (const bad of ["", "10.1.2", "10.1.2.256", "010.1.2.3", "1::2::3", "x.y.z.w", "10.0.0.1/8", "::ffff:10.0.0.300"]) expect(parseIp(bad), bad).toBeNull();
  });

  it("matches addresses against ranges of both families, never across families", () => {
    const c = parseCidr("10.0.0.0/8")!;
    expect(cidrContains(c, parseIp("10.255.0.1")!)).toBe(true);
    expect(cidrContains(c, parseIp("::ffff:10.2.3.4")!)).toBe(true);
    expect(cidrContains(c, parseIp("11.0.0.1")!)).toBe(false);
    expect(cidrContains(parseCidr("fd00::/8")!, parseIp("fd12::5")!)).toBe(true);
    expect(cidrContains(parseCidr("fd00::/8")!, parseIp("fe80::5")!)).toBe(false);
    expect(cidrContains(parseCidr("::/0")!, parseIp("10.0.0.1")!)).toBe(false);
    expect(cidrContains(parseCidr("0.0.0.0/0")!, parseIp("10.0.0.1")!)).toBe(true);
    expect(cidrContains(parseCidr("192.168.1.7")!, parseIp("192.168.1.7")!)).toBe(true);
    expect(cidrContains(parseCidr("192.168.1.7")!, parseIp("192.168.1.8")!)).toBe(false);
    expect(cidrContains(parseCidr("::ffff:10.0.0.0/104")!, parseIp("10.9.9.9")!)).toBe(true);
    for (const bad of ["10.0.0.0/33", "fd00::/129", "10.0.0.0/8/1", "10.0.0.0/x", "host.example.com"]) expect(parseCidr(bad), bad).toBeNull();
  });

  it("an unknown peer is never trusted", () => {
    expect(isTrustedPeer(undefined, [parseCidr("0.0.0.0/0")!])).toBe(false);
    expect(isTrustedPeer("not-an-ip", [parseCidr("0.0.0.0/0")!])).toBe(false);
  });
});

describe("exempt paths", () => {
  it("are exact, or a prefix with /*; a trailing slash is ignored; nothing else slips through", () => {
    const ex = [...DEFAULT_EXEMPT_PATHS, "/public/*"];
    expect(isExempt("/api/healthz", ex)).toBe(true);
    expect(isExempt("/api/healthz/", ex)).toBe(true);
    expect(isExempt("/api/readyz", ex)).toBe(true);
    expect(isExempt("/public/a/b", ex)).toBe(true);
    expect(isExempt("/public", ex)).toBe(true);
    expect(isExempt("/publicity", ex)).toBe(false);
    expect(isExempt("/api/healthz2", ex)).toBe(false);
    expect(isExempt("/api/healthz/../v1/summary", ex)).toBe(false);
    expect(isExempt("/api/v1/summary", ex)).toBe(false);
    expect(isExempt("/", ex)).toBe(false);
  });
});

describe("tokens", () => {
  it("reads one token per line, ignoring blanks and comments, and matches in constant time", () => {
    const alpha = "alpha-0123456789abcdefghijklmnopq";
    const beta = "beta-0123456789abcdefghijklmnopqr";
    const digests = tokenDigests(`# portal\n${alpha}\n\n  ${beta}  \r\n#gamma\n`);
    expect(digests).toHaveLength(2);
    expect(tokenMatches(alpha, digests)).toBe(true);
    expect(tokenMatches(beta, digests)).toBe(true);
    expect(tokenMatches("gamma", digests)).toBe(false);
    expect(tokenMatches(alpha.slice(0, -1), digests)).toBe(false);
    expect(tokenMatches("", digests)).toBe(false);
    expect(tokenMatches(alpha, [])).toBe(false);
  });

  it(`refuses tokens shorter than ${MIN_TOKEN_LENGTH} characters or with spaces, naming the line, never the token`, () => {
    const long = "x".repeat(MIN_TOKEN_LENGTH);
    const f = parseTokenFile(`# comment\n${long}\nshort-secret-value\n\nhas a space in it but is long enough ok\n${"y".repeat(MIN_TOKEN_LENGTH - 1)}\n`);
    expect(f.digests).toHaveLength(1);
    expect(tokenMatches(long, f.digests)).toBe(true);
    expect(tokenMatches("short-secret-value", f.digests)).toBe(false);
    expect(f.problems.map((p) => p.line)).toEqual([3, 5, 6]);
    expect(f.problems[0].message).toContain(`at least ${MIN_TOKEN_LENGTH} characters`);
    expect(f.problems[0].message).toContain("has 18");
    for (const p of f.problems) {
      expect(p.message).not.toContain("short-secret");
      expect(p.message).not.toContain("yyyy");
      expect(p.message).not.toContain("space in it");
    }
  });

  it("takes the bearer token from the Authorization header only", () => {
    expect(bearerToken("Bearer abc.def")).toBe("abc.def");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("Basic YWJj")).toBeNull();
    expect(bearerToken("Bearer a b")).toBeNull();
    expect(bearerToken("Bearer ")).toBeNull();
    expect(bearerToken(null)).toBeNull();
  });
});

describe("decide", () => {
  const exemptPaths = [...DEFAULT_EXEMPT_PATHS];

  it("mode none lets everyone in", () => {
    const p = compilePolicy({ mode: "none", trustedProxies: [], exemptPaths });
    expect(decide(p, req("/api/v1/summary", undefined), [])).toMatchObject({ allow: true, reason: "none" });
  });

  it("mode proxy: user headers only from a trusted peer; others get 403; a trusted peer without a user 401", () => {
    const p = compilePolicy({ mode: "proxy", trustedProxies: ["10.0.0.0/8", "fd00::/8"], exemptPaths });
    const user = { "x-auth-request-user": "alice" };
    expect(decide(p, req("/nodes", "10.3.4.5", user), [])).toEqual({ allow: true, user: "alice", reason: "proxy" });
    expect(decide(p, req("/nodes", "::ffff:10.3.4.5", { "x-auth-request-email": "a@example.com" }), [])).toMatchObject({ allow: true, user: "a@example.com" });
    expect(decide(p, req("/nodes", "192.168.0.9", user), [])).toMatchObject({ allow: false, status: 403, code: "untrusted_peer" });
    expect(decide(p, req("/metrics", undefined, user), [])).toMatchObject({ allow: false, status: 403 });
    expect(decide(p, req("/api/v1/summary", "10.3.4.5"), [])).toMatchObject({ allow: false, status: 401, code: "unauthenticated" });
    expect(decide(p, req("/api/v1/summary", "10.3.4.5", { "x-auth-request-user": "\u0000evil" }), [])).toMatchObject({ allow: false, status: 401 });
    // probes come from the kubelet, not through the proxy
    expect(decide(p, req("/api/healthz", "192.168.0.9"), [])).toMatchObject({ allow: true, reason: "exempt" });
    expect(decide(p, req("/api/readyz", undefined), [])).toMatchObject({ allow: true, reason: "exempt" });
  });

  it("mode proxy with userHeaders: only the configured headers name the user (oauth2-proxy as the reverse proxy: X-Forwarded-*)", () => {
    const p = compilePolicy({ mode: "proxy", trustedProxies: ["127.0.0.1"], exemptPaths, userHeaders: [...OAUTH2_PROXY_UPSTREAM_HEADERS] });
    expect(decide(p, req("/embed/nodes", "127.0.0.1", { "x-forwarded-user": "alice" }), [])).toEqual({ allow: true, user: "alice", reason: "proxy" });
    expect(decide(p, req("/embed/nodes", "127.0.0.1", { "x-forwarded-email": "a@example.com" }), [])).toMatchObject({ allow: true, user: "a@example.com" });
    expect(decide(p, req("/embed/nodes", "127.0.0.1", { "x-forwarded-user": "alice", "x-forwarded-email": "b@example.com" }), [])).toMatchObject({ user: "alice" });
    // oauth2-proxy passes X-Auth-Request-User from the client through untouched: it must not name the user here
    const forged = decide(p, req("/embed/nodes", "127.0.0.1", { "x-auth-request-user": "mallory" }), []);
    expect(forged).toMatchObject({ allow: false, status: 401, code: "unauthenticated" });
    expect(forged.allow === false && forged.message).toContain("X-Forwarded-User or X-Forwarded-Email");
    expect(decide(p, req("/embed/nodes", "127.0.0.1", { "x-forwarded-user": "alice", "x-auth-request-user": "mallory" }), [])).toMatchObject({ user: "alice" });
    // the headers are still worth nothing from any other peer
    expect(decide(p, req("/embed/nodes", "10.0.0.7", { "x-forwarded-user": "alice" }), [])).toMatchObject({ allow: false, status: 403, code: "untrusted_peer" });
    // the default stays the X-Auth-Request pair
    const d = compilePolicy({ mode: "proxy", trustedProxies: ["127.0.0.1"], exemptPaths });
    expect(d.userHeaders).toEqual([...USER_HEADERS]);
    expect(decide(d, req("/", "127.0.0.1", { "x-forwarded-user": "alice" }), [])).toMatchObject({ allow: false, status: 401 });
  });

  it("mode token: 401 with WWW-Authenticate without or with a wrong token; 503 when the token file cannot be read", () => {
    const p = compilePolicy({ mode: "token", trustedProxies: [], exemptPaths });
    const secret = "s3cret-0123456789abcdefghijklmnop";
    const tokens = tokenDigests(`${secret}\n`);
    expect(decide(p, req("/api/v1/summary", "1.2.3.4", { authorization: `Bearer ${secret}` }), tokens)).toMatchObject({ allow: true, reason: "token" });
    const none = decide(p, req("/api/v1/summary", "1.2.3.4"), tokens);
    expect(none).toMatchObject({ allow: false, status: 401, code: "unauthenticated" });
    expect(none.allow === false && none.wwwAuthenticate).toContain("Bearer");
    expect(decide(p, req("/", "1.2.3.4", { authorization: "Bearer wrong" }), tokens)).toMatchObject({ allow: false, status: 401, code: "invalid_token" });
    expect(decide(p, req("/metrics", "1.2.3.4", { authorization: `Bearer ${secret}` }), null)).toMatchObject({ allow: false, status: 503 });
    expect(decide(p, req("/metrics", "1.2.3.4", { authorization: "Bearer " }), [])).toMatchObject({ allow: false, status: 401 });
    expect(decide(p, req("/api/healthz", undefined), null)).toMatchObject({ allow: true, reason: "exempt" });
  });

  it("refuses a policy with a bad proxy address", () => {
    expect(() => compilePolicy({ mode: "proxy", trustedProxies: ["proxy.example.com"], exemptPaths })).toThrow(/not an IP address/);
  });
});
