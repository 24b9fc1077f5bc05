import { describe, expect, it } from "vitest";
import { compilePolicy } from "@/lib/auth/decide";
import { clientOf, InFlight, RateLimiter } from "./clients";

const proxy = compilePolicy({ mode: "proxy", trustedProxies: ["127.0.0.1/32"], exemptPaths: [], userHeaders: ["X-Forwarded-User", "X-Forwarded-Email"] } as never);
const headers = (h: Record<string, string>) => (name: string) => h[name];

describe("clientOf", () => {
  it("is the user the trusted proxy names, the first configured header that is set", () => {
    expect(clientOf("127.0.0.1", headers({ "x-forwarded-user": "alice" }), proxy)).toBe("user:alice");
    expect(clientOf("127.0.0.1", headers({ "x-forwarded-email": "bob@example.com" }), proxy)).toBe("user:bob@example.com");
  });

  it("ignores user headers from anyone but a trusted proxy, and outside proxy mode", () => {
    expect(clientOf("10.0.0.9", headers({ "x-forwarded-user": "alice" }), proxy)).toBe("10.0.0.9");
    const token = compilePolicy({ mode: "token", trustedProxies: [], exemptPaths: [] } as never);
    expect(clientOf("127.0.0.1", headers({ "x-forwarded-user": "alice" }), token)).toBe("127.0.0.1");
    expect(clientOf("127.0.0.1", headers({}), proxy)).toBe("127.0.0.1");
  });

  it("counts IPv6 clients per /64 and IPv4-mapped addresses as IPv4", () => {
    expect(clientOf("2001:db8:1:2::5", headers({}), null)).toBe(clientOf("2001:db8:1:2:ffff::9", headers({}), null));
    expect(clientOf("::ffff:192.0.2.7", headers({}), null)).toBe("192.0.2.7");
  });
});

describe("InFlight", () => {
  it("admits up to the limit per client and forgets a client whose requests are all answered", () => {
    const f = new InFlight(2);
    expect([f.enter("a"), f.enter("a"), f.enter("a"), f.enter("b")]).toEqual([true, true, false, true]);
    f.leave("a");
    expect(f.enter("a")).toBe(true);
    f.leave("a");
    f.leave("a");
    f.leave("b");
    expect(f.clients).toBe(0);
  });
});

describe("RateLimiter", () => {
  it("lets a burst through, then holds the client to its rate, each client on its own", () => {
    const r = new RateLimiter(10, 3);
    expect([0, 0, 0].map(() => r.take("a", 0))).toEqual([0, 0, 0]);
    expect(r.take("a", 0)).toBe(1);
    expect(r.take("b", 0)).toBe(0);
    expect(r.take("a", 100)).toBe(0); // 100 ms at 10/s: one token back
    expect(r.take("a", 100)).toBeGreaterThan(0);
    expect(r.take("a", 10_000)).toBe(0); // refilled, never above the burst
    expect([r.take("a", 10_000), r.take("a", 10_000), r.take("a", 10_000)]).toEqual([0, 0, 1]);
  });

  it("keeps at most maxClients buckets, dropping idle ones first", () => {
    const r = new RateLimiter(10, 2, 3);
    r.take("idle", 0);
    r.take("b", 9_000);
    r.take("c", 9_000);
    r.take("d", 9_000); // full: "idle" has refilled since 0 and goes
    expect(r.clients).toBe(3);
    for (let i = 0; i < 100; i++) r.take(`x${i}`, 9_000);
    expect(r.clients).toBe(3);
  });
});
