import { describe, expect, it } from "vitest";
import { nextPollDelayMs, pollPhaseMs } from "@/lib/poll-schedule";

describe("pollPhaseMs", () => {
  it("is the same for a cluster whatever the replica, within the interval", () => {
    expect(pollPhaseMs("prod-eu-1", 10_000)).toBe(pollPhaseMs("prod-eu-1", 10_000));
    for (const c of ["a", "b", "prod-eu-1", "c19"]) {
      const p = pollPhaseMs(c, 10_000);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(10_000);
    }
  });

  it("spreads 20 clusters over the interval: no tenth of it holds more than a fifth of them", () => {
    const names = Array.from({ length: 20 }, (_, i) => `c${String(i).padStart(2, "0")}`);
    const buckets = new Array(10).fill(0);
    for (const n of names) buckets[Math.floor(pollPhaseMs(n, 10_000) / 1000)]++;
    expect(Math.max(...buckets)).toBeLessThanOrEqual(4);
    expect(buckets.filter((b) => b > 0).length).toBeGreaterThanOrEqual(7);
  });
});

describe("nextPollDelayMs", () => {
  const I = 10_000;

  it("in step: a poll on its phase is followed one interval later", () => {
    // phase 3,000: a poll started at 1,000,003,000 (on its phase), ended 800 ms later
    expect(nextPollDelayMs({ startedAt: 1_000_003_000, now: 1_000_003_800, intervalMs: I, phaseMs: 3000 })).toBe(I - 800);
  });

  it("the first poll, off its phase, is followed by one on the phase within one to two intervals", () => {
    const phaseMs = 3000;
    for (const startedAt of [1_000_000_000, 1_000_002_000, 1_000_002_999, 1_000_003_001, 1_000_007_999, 1_000_009_999]) {
      const delay = nextPollDelayMs({ startedAt, now: startedAt + 100, intervalMs: I, phaseMs });
      const next = startedAt + 100 + delay;
      expect((next - phaseMs) % I, `next poll on the phase after a start at ${startedAt}`).toBe(0);
      expect(next - startedAt).toBeGreaterThanOrEqual(I);
      expect(next - startedAt).toBeLessThan(2 * I);
    }
  });

  it("a poll that runs past its next instant is followed at once", () => {
    expect(nextPollDelayMs({ startedAt: 1_000_003_000, now: 1_000_014_500, intervalMs: I, phaseMs: 3000 })).toBe(0);
  });

  it("back on its phase after an overrun, never sooner than an interval after the last start", () => {
    // the poll started late (at once after an overrun, at 14,500) and took 2 s: the next is on the phase at 33,000
    const d = nextPollDelayMs({ startedAt: 1_000_014_500, now: 1_000_016_500, intervalMs: I, phaseMs: 3000 });
    expect(1_000_016_500 + d).toBe(1_000_033_000);
  });
});
