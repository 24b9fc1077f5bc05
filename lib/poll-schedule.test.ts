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
    // phase 3,000: a poll due at 1,000,003,000 (on its phase), ended 800 ms later
    expect(nextPollDelayMs({ dueAt: 1_000_003_000, now: 1_000_003_800, intervalMs: I, phaseMs: 3000 })).toBe(I - 800);
  });

  it("a timer that fired late skips no instant of the phase", () => {
    // due at 1,000,003,000, its timer fired 400 ms late, the poll took 900 ms: the next is still due at 1,000,013,000
    const now = 1_000_003_000 + 400 + 900;
    expect(now + nextPollDelayMs({ dueAt: 1_000_003_000, now, intervalMs: I, phaseMs: 3000 })).toBe(1_000_013_000);
  });

  it("the first poll, off its phase, is followed by one on the phase within one to two intervals", () => {
    const phaseMs = 3000;
    for (const dueAt of [1_000_000_000, 1_000_002_000, 1_000_002_999, 1_000_003_001, 1_000_007_999, 1_000_009_999]) {
      const delay = nextPollDelayMs({ dueAt, now: dueAt + 100, intervalMs: I, phaseMs });
      const next = dueAt + 100 + delay;
      expect((next - phaseMs) % I, `next poll on the phase after a start at ${dueAt}`).toBe(0);
      expect(next - dueAt).toBeGreaterThanOrEqual(I);
      expect(next - dueAt).toBeLessThan(2 * I);
    }
  });

  it("a poll that runs past its next instant is followed at once", () => {
    expect(nextPollDelayMs({ dueAt: 1_000_003_000, now: 1_000_014_500, intervalMs: I, phaseMs: 3000 })).toBe(0);
  });

  it("back on its phase after an overrun, never sooner than an interval after the last start", () => {
    // the poll started late (at once after an overrun, at 14,500) and took 2 s: the next is on the phase at 33,000
    const d = nextPollDelayMs({ dueAt: 1_000_014_500, now: 1_000_016_500, intervalMs: I, phaseMs: 3000 });
    expect(1_000_016_500 + d).toBe(1_000_033_000);
  });

  it("as the poller runs it, with late timers and polls of varying length: one poll per interval, each on the phase", () => {
    // the poller's loop: a poll due at dueAt starts when its timer fires (late by up to 400 ms) and takes 100 to 900 ms;
    // the next is due at now + delay (pseudo-random but fixed figures: the test is the same at every run)
    const phaseMs = pollPhaseMs("c07", I);
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let now = 1_000_000_123;
    let dueAt = now; // the first poll: at once
    const starts: number[] = [];
    for (let i = 0; i < 100; i++) {
      const started = Math.max(now, dueAt) + Math.round(rand() * 400);
      starts.push(started);
      now = started + 100 + Math.round(rand() * 800);
      const delay = nextPollDelayMs({ now, dueAt, intervalMs: I, phaseMs });
      dueAt = now + delay;
    }
    const gaps = starts.slice(2).map((s, i) => s - starts[i + 1]);
    // from the second poll on, each due on the phase: started within the timer's lateness after an instant of it
    for (const s of starts.slice(1)) expect((((s - phaseMs) % I) + I) % I).toBeLessThanOrEqual(400);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(I - 400);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(I + 400);
  });
});
