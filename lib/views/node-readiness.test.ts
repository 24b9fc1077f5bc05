import { describe, expect, it } from "vitest";
import type { ReadinessEvent } from "@/lib/analysis/readiness";
import { readinessStrips } from "./node-readiness";

const ev = (at: number, pod: string, ready: boolean): ReadinessEvent => ({
  at, pod, ready, role: "per-node", node: "n1", kind: ready ? "became_ready" : "became_not_ready", reason: ready ? null : "not Ready",
});

describe("readinessStrips", () => {
  it("is empty without events", () => {
    expect(readinessStrips([], 0, 100)).toEqual([]);
  });

  it("turns transitions into segments of the window, one strip per pod", () => {
    const s = readinessStrips([ev(50, "a", true), ev(20, "a", false), ev(-10, "b", true)], 0, 100);
    expect(s.map((x) => x.pod)).toEqual(["a", "b"]);
    expect(s[0].segments).toEqual([
      { x0: 0.2, x1: 0.5, ready: false, at: 20, reason: "not Ready" },
      { x0: 0.5, x1: 1, ready: true, at: 50, reason: null },
    ]);
    expect(s[0].transitions).toBe(2);
    // a state reached before the window covers it from its start
    expect(s[1].segments).toEqual([{ x0: 0, x1: 1, ready: true, at: -10, reason: null }]);
    expect(s[1].transitions).toBe(0);
  });
});
