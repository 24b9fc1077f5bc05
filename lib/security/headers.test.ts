import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, FRAME_ANCESTOR_PATTERN, newNonce, STATIC_SECURITY_HEADERS } from "./headers";

const nonce = newNonce(new Uint8Array(18).fill(7));

describe("Content-Security-Policy", () => {
  it("is strict: self only, scripts by nonce, frame-ancestors 'self' by default", () => {
    const csp = contentSecurityPolicy({ nonce, frameAncestors: [] });
    const d = Object.fromEntries(csp.split("; ").map((x) => [x.split(" ")[0], x.split(" ").slice(1).join(" ")]));
    expect(d["default-src"]).toBe("'self'");
    expect(d["script-src"]).toBe(`'self' 'nonce-${nonce}' 'strict-dynamic'`);
    expect(d["script-src"]).not.toContain("unsafe");
    expect(d["style-src"]).toBe("'self' 'unsafe-inline'");
    expect(d["img-src"]).toBe("'self' data:");
    expect(d["connect-src"]).toBe("'self'");
    expect(d["object-src"]).toBe("'none'");
    expect(d["frame-ancestors"]).toBe("'self'");
  });

  it("takes frame-ancestors from the configuration and refuses anything that could inject a directive", () => {
    expect(contentSecurityPolicy({ nonce, frameAncestors: ["'self'", "https://portal.example.com", "*.corp.example"] })).toContain(
      "frame-ancestors 'self' https://portal.example.com *.corp.example",
    );
    for (const bad of ["https://a.example; script-src *", "'unsafe-inline'", "a b", "https://x.example,https://y", ""]) {
      expect(FRAME_ANCESTOR_PATTERN.test(bad), bad).toBe(false);
      expect(() => contentSecurityPolicy({ nonce, frameAncestors: [bad] }), bad).toThrow();
    }
    expect(() => contentSecurityPolicy({ nonce, frameAncestors: ["'none'", "'self'"] })).toThrow();
  });

  it("allows eval only in next dev", () => {
    expect(contentSecurityPolicy({ nonce, frameAncestors: [], dev: true })).toContain("'unsafe-eval'");
  });

  it("never forbids embedding through X-Frame-Options; sets nosniff and a referrer policy", () => {
    expect(Object.keys(STATIC_SECURITY_HEADERS).map((k) => k.toLowerCase())).not.toContain("x-frame-options");
    expect(STATIC_SECURITY_HEADERS["X-Content-Type-Options"]).toBe("nosniff");
    expect(STATIC_SECURITY_HEADERS["Referrer-Policy"]).toBe("no-referrer");
  });
});
