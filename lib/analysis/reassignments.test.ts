import { describe, expect, it } from "vitest";
import type { Role } from "@/lib/model";
import type { TargetRow } from "@/lib/analysis/types";
import { diffAssignments, mergeReassignments } from "@/lib/analysis/reassignments";

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

describe("mergeReassignments", () => {
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
});
