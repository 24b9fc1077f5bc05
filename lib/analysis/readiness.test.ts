import { describe, expect, it } from "vitest";
import { ev } from "@/test/fixtures/events";
import { rankFlapping, readinessTransition, ReadinessTracker } from "@/lib/analysis/readiness";

function pod(name: string, o: { phase?: string; ready?: boolean; node?: string; deleting?: boolean } = {}) {
  return {
    metadata: { name, namespace: "agents", ...(o.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
    spec: { nodeName: o.node ?? "node-1" },
    status: { phase: o.phase ?? "Running", conditions: [{ type: "Ready", status: (o.ready ?? true) ? "True" : "False" }] },
  };
}


describe("readinessTransition", () => {
  it("reports a first sighting as added, with its readiness", () => {
    expect(readinessTransition(undefined, pod("a"), "per-node", 5)).toEqual({ at: 5, role: "per-node", pod: "a", node: "node-1", ready: true, kind: "added", reason: null });
    expect(readinessTransition(undefined, pod("a", { ready: false }), "per-node", 5)).toMatchObject({ kind: "added", ready: false, reason: "not Ready" });
  });

  it("reports eligibility flips only", () => {
    expect(readinessTransition({ ready: true }, pod("a"), "per-node", 1)).toBeNull();
    expect(readinessTransition({ ready: true }, pod("a", { ready: false }), "per-node", 1)).toMatchObject({ kind: "became_not_ready", ready: false, reason: "not Ready" });
    expect(readinessTransition({ ready: false }, pod("a"), "per-node", 1)).toMatchObject({ kind: "became_ready", ready: true, reason: null });
  });

  it("is strict: terminating, not Running or unscheduled is not ready", () => {
    expect(readinessTransition({ ready: true }, pod("a", { deleting: true }), "per-node", 1)).toMatchObject({ kind: "became_not_ready", reason: "terminating" });
    expect(readinessTransition({ ready: true }, pod("a", { phase: "Pending" }), "per-node", 1)).toMatchObject({ reason: "phase Pending" });
    expect(readinessTransition({ ready: true }, pod("a", { node: "" }), "per-node", 1)).toMatchObject({ reason: "not scheduled", node: null });
  });

  it("always reports a delete", () => {
    expect(readinessTransition({ ready: false }, pod("a", { deleting: true }), "cluster-scraper", 9, "delete")).toMatchObject({ kind: "deleted", ready: false, reason: "terminating" });
    expect(readinessTransition({ ready: true }, pod("a"), "per-node", 9, "delete")).toMatchObject({ kind: "deleted", reason: "deleted" });
  });
});

describe("ReadinessTracker", () => {
  it("treats events before baselineDone as the baseline", () => {
    const t = new ReadinessTracker();
    expect(t.observe({ at: 1, role: "per-node", type: "add", pod: pod("a") })).toBeNull();
    expect(t.observe({ at: 1, role: "per-node", type: "add", pod: pod("b", { ready: false }) })).toBeNull();
    t.baselineDone("per-node");
    expect(t.observe({ at: 2, role: "per-node", type: "update", pod: pod("a") })).toBeNull();
    expect(t.observe({ at: 3, role: "per-node", type: "update", pod: pod("b") })).toMatchObject({ kind: "became_ready", pod: "b" });
    expect(t.observe({ at: 4, role: "per-node", type: "add", pod: pod("c", { ready: false }) })).toMatchObject({ kind: "added", ready: false });
    expect(t.observe({ at: 5, role: "per-node", type: "delete", pod: pod("a") })).toMatchObject({ kind: "deleted", pod: "a" });
    expect(t.size).toBe(2);
  });

  it("keeps roles apart: one role's baseline does not end another's", () => {
    const t = new ReadinessTracker();
    t.baselineDone("per-node");
    expect(t.observe({ at: 1, role: "cluster-scraper", type: "add", pod: pod("a") })).toBeNull();
    expect(t.observe({ at: 1, role: "per-node", type: "add", pod: pod("a") })).toMatchObject({ kind: "added", role: "per-node" });
    expect(t.isBaselined("cluster-scraper")).toBe(false);
  });

  it("records an update of a never-seen pod silently, and seeds without events", () => {
    const t = new ReadinessTracker();
    t.baselineDone();
    expect(t.observe({ at: 1, role: "per-node", type: "update", pod: pod("late") })).toBeNull();
    expect(t.observe({ at: 2, role: "per-node", type: "update", pod: pod("late", { ready: false }) })).toMatchObject({ kind: "became_not_ready" });
    t.seed("per-node", [{ name: "s", ready: false, node: "n" }, { name: "late", ready: true, node: "n" }]);
    expect(t.observe({ at: 3, role: "per-node", type: "update", pod: pod("s", { ready: false }) })).toBeNull();
    expect(t.observe({ at: 3, role: "per-node", type: "update", pod: pod("late", { ready: false }) })).toBeNull(); // seed kept known state
  });
});

describe("rankFlapping", () => {
  it("ranks flapping collectors by readiness flips, with their latest node", () => {
    const f = rankFlapping([
      ev(1, "a", "became_not_ready"),
      ev(2, "a", "became_ready", "per-node", "n2"),
      ev(3, "b", "became_not_ready"),
      ev(4, "c", "added"),
      ev(5, "c", "deleted"),
    ]);
    expect(f).toEqual([
      { pod: "a", role: "per-node", node: "n2", transitions: 2, lastAt: 2 },
      { pod: "b", role: "per-node", node: "n1", transitions: 1, lastAt: 3 },
    ]);
  });
});
