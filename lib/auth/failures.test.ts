import { describe, expect, it } from "vitest";
import { clientKey, FailureLimiter } from "./failures";

describe("clientKey", () => {
  it("counts IPv4 per address, IPv6 per /64, mapped IPv4 as IPv4, unknown peers together", () => {
    expect(clientKey("10.1.2.3")).toBe("10.1.2.3");
    expect(clientKey("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(clientKey("2001:db8:1:2:aaaa::1")).toBe(clientKey("2001:db8:1:2:bbbb::2"));
    expect(clientKey("2001:db8:1:2::1")).not.toBe(clientKey("2001:db8:1:3::1"));
    expect(clientKey(undefined)).toBe("unknown");
    expect(clientKey("not an ip")).toBe("unknown");
  });
});

describe("FailureLimiter", () => {
  it("refuses an address after maxFailures within the window, until the window ends; others are not affected", () => {
    const l = new FailureLimiter({ maxFailures: 3, windowMs: 60_000, maxEntries: 100 });
    for (let i = 0; i < 3; i++) {
      expect(l.retryAfterSeconds("a", 1000 + i)).toBe(0);
      l.fail("a", 1000 + i);
    }
    expect(l.retryAfterSeconds("a", 1003)).toBe(60);
    expect(l.retryAfterSeconds("a", 31_000)).toBe(30);
    expect(l.retryAfterSeconds("b", 31_000)).toBe(0);
    expect(l.retryAfterSeconds("a", 61_000)).toBe(0);
    l.fail("a", 61_000);
    expect(l.retryAfterSeconds("a", 61_001)).toBe(0);
  });

  it("a success forgets the address' failures", () => {
    const l = new FailureLimiter({ maxFailures: 2, windowMs: 1000, maxEntries: 10 });
    l.fail("a", 0);
    l.succeed("a");
    l.fail("a", 1);
    expect(l.retryAfterSeconds("a", 2)).toBe(0);
  });

  it("holds at most maxEntries addresses: expired ones go first, then the oldest", () => {
    const l = new FailureLimiter({ maxFailures: 1, windowMs: 1000, maxEntries: 3 });
    l.fail("old", 0);
    l.fail("b", 1500);
    l.fail("c", 1600);
    l.fail("d", 1700); // "old" has expired: it goes
    expect(l.size).toBe(3);
    expect(l.retryAfterSeconds("b", 1800)).toBe(1);
    l.fail("e", 1900); // none expired: the oldest ("b") goes
    expect(l.size).toBe(3);
    expect(l.retryAfterSeconds("b", 1900)).toBe(0);
    expect(l.retryAfterSeconds("e", 1900)).toBe(1);
    for (let i = 0; i < 10_000; i++) l.fail(`x${i}`, 2000);
    expect(l.size).toBe(3);
  });
});
