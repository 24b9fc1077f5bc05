import { describe, expect, it } from "vitest";
import { decide, expiresAt, identityClash, microTime, nextReadIn, observe, release, renewDeadlineMs, stillHolding, type Candidate, type LeaseRecord } from "@/lib/lease/election";

const T0 = Date.UTC(2026, 11, 1, 13, 0, 0);
const me: Candidate = { identity: "lens-a", address: "10.0.0.1:3000", durationSeconds: 15 };
const other = (over: Partial<LeaseRecord> = {}): LeaseRecord => ({
  holderIdentity: "lens-b",
  address: "10.0.0.2:3000",
  acquireTime: microTime(T0 - 60_000),
  renewTime: microTime(T0),
  leaseDurationSeconds: 15,
  leaseTransitions: 3,
  resourceVersion: "41",
  ...over,
});

describe("microTime", () => {
  it("writes microseconds, as Kubernetes' MicroTime", () => {
    expect(microTime(Date.UTC(2026, 11, 1, 13, 5, 0, 123))).toBe("2026-12-01T13:05:00.123000Z");
  });
});

describe("decide", () => {
  it("creates the Lease when there is none, holding it", () => {
    const d = decide(undefined, T0, me);
    expect(d).toEqual({
      action: "create",
      record: { holderIdentity: "lens-a", address: "10.0.0.1:3000", acquireTime: microTime(T0), renewTime: microTime(T0), leaseDurationSeconds: 15, leaseTransitions: 0, resourceVersion: null },
    });
  });

  it("renews its own Lease: renewTime moves, acquireTime and transitions stay, the read resourceVersion is the precondition", () => {
    const mine = other({ holderIdentity: "lens-a", address: "10.0.0.1:3000" });
    const d = decide(observe(undefined, mine, T0), T0 + 5000, me);
    expect(d.action).toBe("renew");
    if (d.action !== "renew") return;
    expect(d.record).toEqual({ ...mine, renewTime: microTime(T0 + 5000) });
  });

  it("waits while another replica's Lease runs, counted from when it was first seen (not from its renewTime)", () => {
    // the holder's clock is an hour behind ours: its renewTime says nothing about when the Lease runs out here
    const skewed = other({ renewTime: microTime(T0 - 3_600_000) });
    const seen = observe(undefined, skewed, T0);
    expect(decide(seen, T0 + 14_999, me)).toEqual({ action: "wait", holder: "lens-b", address: "10.0.0.2:3000", expiresAt: T0 + 15_000 });
  });

  it("keeps the first observation while the Lease is unchanged, and starts again when the holder renews", () => {
    const first = observe(undefined, other(), T0);
    expect(observe(first, other(), T0 + 4000)).toBe(first);
    const renewed = observe(first, other({ resourceVersion: "42", renewTime: microTime(T0 + 5000) }), T0 + 6000);
    expect(renewed.observedAt).toBe(T0 + 6000);
    expect(expiresAt(renewed, 15)).toBe(T0 + 21_000);
  });

  it("takes the Lease over once it has run out: a new acquireTime, one more transition, the read resourceVersion", () => {
    const seen = observe(undefined, other(), T0);
    const d = decide(seen, T0 + 15_000, me);
    expect(d).toEqual({
      action: "take",
      previous: "lens-b",
      record: { holderIdentity: "lens-a", address: "10.0.0.1:3000", acquireTime: microTime(T0 + 15_000), renewTime: microTime(T0 + 15_000), leaseDurationSeconds: 15, leaseTransitions: 4, resourceVersion: "41" },
    });
  });

  it("uses the Lease's own duration, not ours, to judge another holder", () => {
    const seen = observe(undefined, other({ leaseDurationSeconds: 60 }), T0);
    expect(decide(seen, T0 + 30_000, me).action).toBe("wait");
    expect(decide(seen, T0 + 60_000, me).action).toBe("take");
  });

  it("takes a released Lease (no holder) at once", () => {
    const released = release(other({ holderIdentity: "lens-a", address: me.address }), me, T0)!;
    expect(released).toMatchObject({ holderIdentity: null, address: null, leaseDurationSeconds: 1, leaseTransitions: 3 });
    const d = decide(observe(undefined, released, T0), T0, { ...me, identity: "lens-b" });
    expect(d.action).toBe("take");
    if (d.action === "take") expect([d.previous, d.record.holderIdentity, d.record.leaseTransitions]).toEqual([null, "lens-b", 4]);
  });

  it("does not release another replica's Lease", () => {
    expect(release(other(), me, T0)).toBeNull();
    expect(release(other({ holderIdentity: "lens-a" }), me, T0)).toBeNull(); // lens-a at another address
  });

  it("waits for another process holding the Lease under the same identity at another address, then takes it over", () => {
    const twin = other({ holderIdentity: "lens-a", address: "127.0.0.1:3001" });
    expect(identityClash(twin, me)).toBe(true);
    const seen = observe(undefined, twin, T0);
    expect(decide(seen, T0 + 1000, me)).toMatchObject({ action: "wait", holder: "lens-a", address: "127.0.0.1:3001" });
    expect(decide(seen, T0 + 15_000, me)).toMatchObject({ action: "take", record: { holderIdentity: "lens-a", address: "10.0.0.1:3000", leaseTransitions: 4 } });
    // ours, written before the address annotation existed: renewed
    expect(decide(observe(undefined, other({ holderIdentity: "lens-a", address: null }), T0), T0, me).action).toBe("renew");
  });
});

describe("holding and timing", () => {
  it("a holder stops counting itself as one when it has not renewed within the renew deadline", () => {
    const deadline = renewDeadlineMs(15, 5);
    expect(deadline).toBe(10_000);
    expect(stillHolding(T0, T0 + 9_999, deadline)).toBe(true);
    expect(stillHolding(T0, T0 + 10_000, deadline)).toBe(false);
    expect(stillHolding(null, T0, deadline)).toBe(false);
  });

  it("a waiting replica reads again right after the Lease runs out, never later than one renewal period", () => {
    const seen = observe(undefined, other(), T0);
    expect(nextReadIn(decide(seen, T0 + 12_000, me), T0 + 12_000, 5)).toBe(3001);
    expect(nextReadIn(decide(seen, T0 + 1000, me), T0 + 1000, 5)).toBe(5000);
    expect(nextReadIn(undefined, T0, 5)).toBe(5000);
  });
});
