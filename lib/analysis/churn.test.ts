import { describe, expect, it } from "vitest";
import type { Role } from "@/lib/model";
import type { TargetRow } from "@/lib/analysis/types";
import {
  bucketIndex,
  diffAssignments,
  mergeReassignments,
  rankFlapping,
  readinessTransition,
  ReadinessTracker,
  series,
  timeline,
  type ReadinessEvent,
} from "@/lib/analysis/churn";

function pod(name: string, o: { phase?: string; ready?: boolean; node?: string; deleting?: boolean } = {}) {
  return {
    metadata: { name, namespace: "agents", ...(o.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
    spec: { nodeName: o.node ?? "node-1" },
    status: { phase: o.phase ?? "Running", conditions: [{ type: "Ready", status: (o.ready ?? true) ? "True" : "False" }] },
  };
}

const row = (job: string, address: string, collector: string, o: Partial<TargetRow> = {}): TargetRow => ({
  role: "per-node",
  job,
  address,
  node: "node-1",
  zone: null,
  collector,
  collectorNode: null,
  collectorZone: null,
  class: "local",
  reason: null,
  expected: null,
  ...o,
});

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

describe("diffAssignments", () => {
  it("finds targets whose collector changed, by role, node and collector pair", () => {
    const prev = [row("j", "a:1", "c1"), row("j", "b:1", "c1", { node: "node-2" }), row("j", "c:1", "c2"), row("k", "a:1", "c1", { role: "cluster-scraper" })];
    const next = [
      row("j", "a:1", "c2"),
      row("j", "b:1", "c2", { node: "node-2" }),
      row("j", "c:1", "c2"),
      row("k", "a:1", "c3", { role: "cluster-scraper" }),
      row("j", "new:1", "c9"),
    ];
    const d = diffAssignments(prev, next);
    expect(d.total).toBe(3);
    expect(d.byRole).toEqual({ "per-node": 2, "cluster-scraper": 1 });
    expect(d.byNode).toEqual([{ node: "node-1", count: 2 }, { node: "node-2", count: 1 }]);
    expect(d.byCollector[0]).toEqual({ role: "per-node", from: "c1", to: "c2", count: 2 });
    expect(d.sample).toHaveLength(3);
    expect(d.sample[0]).toEqual({ role: "per-node", job: "j", address: "a:1", node: "node-1", from: "c1", to: "c2" });
  });

  it("counts nothing without a previous snapshot, and caps the sample", () => {
    expect(diffAssignments(undefined, [row("j", "a", "c")]).total).toBe(0);
    const prev = Array.from({ length: 300 }, (_, i) => row("j", `t${i}`, "c1"));
    const d = diffAssignments(prev, prev.map((r) => ({ ...r, collector: "c2" })));
    expect(d.total).toBe(300);
    expect(d.sample).toHaveLength(100);
  });

  it("diffs 150,000 targets quickly", () => {
    const n = 150_000;
    const prev = Array.from({ length: n }, (_, i) => row(`serviceMonitor/ns/m${i % 500}/0`, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:9100`, `agent-${i % 5000}`, { node: `node-${i % 5000}` }));
    const next = prev.map((r, i) => (i % 10 === 0 ? { ...r, collector: `agent-${(i + 1) % 5000}` } : r));
    let ms = Infinity;
    let d = diffAssignments(prev, next); // warm-up
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      d = diffAssignments(prev, next);
      ms = Math.min(ms, performance.now() - started);
    }
    console.log(`diffAssignments: ${n} targets, ${d.total} moved, best of 3: ${ms.toFixed(1)} ms`);
    expect(d.total).toBe(n / 10);
  });
});

const ev = (at: number, pod: string, kind: ReadinessEvent["kind"], role: Role = "per-node", node: string | null = "n1"): ReadinessEvent => ({
  at,
  role,
  pod,
  node,
  ready: kind === "became_ready" || kind === "added",
  kind,
  reason: null,
});

describe("aggregation", () => {
  const range = { from: 0, to: 1000 };

  it("buckets events and reassignments over the range, both ends included", () => {
    expect(bucketIndex(0, range, 10)).toBe(0);
    expect(bucketIndex(999, range, 10)).toBe(9);
    expect(bucketIndex(1000, range, 10)).toBe(9);
    expect(bucketIndex(1001, range, 10)).toBe(-1);
    const tl = timeline(range, 10, [ev(5, "a", "added"), ev(150, "a", "became_not_ready", "cluster-scraper"), ev(2000, "a", "deleted")], [{ at: 155, byRole: { "per-node": 7 } }]);
    expect(tl).toHaveLength(10);
    expect(tl[0]).toEqual({ t: 0, readiness: 1, reassignments: 0, byRole: { "per-node": { readiness: 1, reassignments: 0 } } });
    expect(tl[1]).toEqual({ t: 100, readiness: 1, reassignments: 7, byRole: { "cluster-scraper": { readiness: 1, reassignments: 0 }, "per-node": { readiness: 0, reassignments: 7 } } });
  });

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

  it("merges stored reassignments: totals, top lists and the newest moves first", () => {
    const move = (from: string, to: string) => ({ role: "per-node" as Role, job: "j", address: `${from}-${to}`, node: "n1", from, to });
    const m = mergeReassignments(
      [
        { at: 1, total: 2, byRole: { "per-node": 2 }, byNode: [{ node: "n1", count: 2 }], byCollector: [{ role: "per-node", from: "a", to: "b", count: 2 }], sample: [move("a", "b")] },
        { at: 2, total: 3, byRole: { "per-node": 3 }, byNode: [{ node: "n1", count: 1 }, { node: null, count: 2 }], byCollector: [{ role: "per-node", from: "a", to: "b", count: 3 }], sample: [move("b", "a")] },
      ],
      1,
    );
    expect(m.total).toBe(5);
    expect(m.byNode).toEqual([{ node: "n1", count: 3 }]);
    expect(m.byCollector).toEqual([{ role: "per-node", from: "a", to: "b", count: 5 }]);
    expect(m.sample.map((s) => s.at)).toEqual([2, 1]);
  });

  it("summarizes polls per bucket: mean locality, worst ghosts and unassigned, nulls without data", () => {
    const point = (at: number, ratio: number | null, ghosts: number, unassigned: number | null) => ({
      at,
      pollMs: 1,
      roles: { "per-node": { targets: { ghost: ghosts, nodeless: 0, local: 0, cross_zone: 0, cross_node: 0 }, unassigned, ghosts, localityRatio: ratio, collectorsReady: 1, collectorsTotal: 1 } },
    });
    const s = series(range, 2, [point(10, 1, 0, null), point(20, 0.5, 4, 2), point(30, null, 1, 1)]);
    expect(s[0]).toEqual({ t: 0, localityRatio: { "per-node": 0.75 }, ghosts: 4, unassigned: 2 });
    expect(s[1]).toEqual({ t: 500, localityRatio: {}, ghosts: null, unassigned: null });
  });
});
