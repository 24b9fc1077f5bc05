import { describe, expect, it } from "vitest";
import type { RoleSummary, TargetRow, Analysis } from "@/lib/analysis/types";
import { emptyClassCounts } from "@/lib/analysis/types";
import { nodesViewFor, toNodesView, type ZoneFlow } from "@/lib/views/nodes";
import { flowHeadline, layoutZoneFlows, targetsByZone } from "./node-flow";

const flow = (from: string, to: string, classes: Partial<ZoneFlow["classes"]>): ZoneFlow => {
  const c = { ...emptyClassCounts(), ...classes };
  return { from, to, classes: c, count: Object.values(c).reduce((s, v) => s + v, 0) };
};

const flows = [
  flow("a", "a", { local: 90, cross_node: 10 }),
  flow("b", "b", { local: 80 }),
  flow("a", "b", { cross_zone: 20 }),
  flow("a", "(ghost)", { ghost: 5 }),
  flow("(no node)", "b", { nodeless: 1 }),
];

describe("layoutZoneFlows", () => {
  const g = { height: 200, x0: 100, x1: 300, gap: 10, minBand: 2 };
  const l = layoutZoneFlows(flows, g);

  it("orders zones first, then the special columns", () => {
    expect(l.left.map((n) => n.id)).toEqual(["a", "b", "(no node)"]);
    expect(l.right.map((n) => n.id)).toEqual(["a", "b", "(ghost)"]);
  });

  it("gives one band per class of a flow, thickness by count, never below minBand", () => {
    expect(l.bands).toHaveLength(6);
    expect(l.total).toBe(206);
    const nodeless = l.bands.find((b) => b.cls === "nodeless")!;
    expect(nodeless.h).toBeGreaterThanOrEqual(2);
    const local = l.bands.find((b) => b.cls === "local" && b.from === "a")!;
    const crossNode = l.bands.find((b) => b.cls === "cross_node")!;
    expect(local.h / crossNode.h).toBeCloseTo(9, 5);
  });

  it("puts a zone at the same height on both sides, so its local band is level", () => {
    const la = l.left.find((x) => x.id === "a")!;
    const ra = l.right.find((x) => x.id === "a")!;
    expect(la.y).toBe(ra.y);
    const local = l.bands.find((b) => b.from === "a" && b.to === "a" && b.cls === "local")!;
    expect(local.sy).toBe(local.ty);
    const lb = l.bands.find((b) => b.from === "b" && b.to === "b")!;
    expect(lb.sy).toBe(lb.ty);
  });

  it("fits in the height, stacks bands inside their nodes without overlap", () => {
    for (const col of [l.left, l.right]) {
      const last = col[col.length - 1];
      expect(last.y + last.h).toBeLessThanOrEqual(g.height + 0.05);
      for (let i = 1; i < col.length; i++) expect(col[i].y).toBeGreaterThanOrEqual(col[i - 1].y + col[i - 1].h + 9.999);
    }
    const fromA = l.bands.filter((b) => b.from === "a").sort((x, y) => x.sy - y.sy);
    const a = l.left[0];
    expect(fromA[0].sy).toBeCloseTo(a.y);
    expect(fromA[fromA.length - 1].sy + fromA[fromA.length - 1].h).toBeCloseTo(a.y + a.h);
    // bands to the top-most target come first: a->a before a->b before a->(ghost)
    expect(fromA.map((b) => b.to)).toEqual(["a", "a", "b", "(ghost)"]);
  });

  it("draws closed band paths and handles no flows", () => {
    expect(l.bands[0].path).toMatch(/^M100,[\d.]+C.*Z$/);
    expect(layoutZoneFlows([], g)).toEqual({ left: [], right: [], bands: [], total: 0 });
  });
});

describe("flowHeadline", () => {
  it("counts same-zone (local and same-zone cross-node), cross-zone, ghosts and nodeless", () => {
    expect(flowHeadline(flows)).toEqual({ local: 170, sameZone: 180, crossZone: 20, ghost: 5, nodeless: 1, total: 206 });
  });
});

describe("targetsByZone", () => {
  it("sums the targets of each target zone over the collector zones, zones first, then no zone and no node", () => {
    const withNoZone = [flow("(no zone)", "a", { cross_node: 3 }), ...flows, flow("c", "a", { cross_zone: 2 })];
    expect(targetsByZone(withNoZone)).toEqual([
      { zone: "a", count: 125 },
      { zone: "b", count: 80 },
      { zone: "c", count: 2 },
      { zone: "(no zone)", count: 3 },
      { zone: "(no node)", count: 1 },
    ]);
    expect(targetsByZone([])).toEqual([]);
  });
});

describe("toNodesView zone flows", () => {
  const t = (over: Partial<TargetRow>): TargetRow => ({
    role: "per-node", job: "j", address: "x", node: "n1", zone: "a", collector: "c1", collectorNode: "n1", collectorZone: "a", class: "local", reason: null, expected: null, ...over,
  });
  const analysis = {
    cluster: "c",
    at: 0,
    roles: { "per-node": {} as RoleSummary, "cluster-scraper": {} as RoleSummary },
    collectors: [],
    nodes: [],
    monitors: null,
    monitorCounts: null,
    duplicates: [],
    nodesWithoutCollector: [],
    targets: [
      t({}),
      t({ address: "y", collectorNode: "n2", class: "cross_node" }),
      t({ address: "z", collector: "c9", class: "ghost" }),
      t({ role: "cluster-scraper", collectorNode: "n5", collectorZone: "b", class: "cross_zone" }),
    ],
  } as unknown as Analysis;
  const v = toNodesView(analysis, { at: 0, pollIntervalMs: 1000, stale: [] });

  it("splits the focus role's zone flows by class and keeps every role's flows apart", () => {
    expect(v.flowRole).toBe("per-node");
    expect(v.zoneFlows).toEqual([
      { from: "a", to: "a", count: 2, classes: { ...emptyClassCounts(), local: 1, cross_node: 1 } },
      { from: "a", to: "(ghost)", count: 1, classes: { ...emptyClassCounts(), ghost: 1 } },
    ]);
    expect(v.zoneFlowsByRole["cluster-scraper"]).toEqual([{ from: "a", to: "b", count: 1, classes: { ...emptyClassCounts(), cross_zone: 1 } }]);
    expect(v.crossNodeFlows).toEqual([{ from: "n1", to: "n2", count: 1 }]);
  });

  it("is computed once per analysis and fresh state, and again when either changes", () => {
    const fresh = { at: 0, pollIntervalMs: 1000, stale: [] };
    const first = nodesViewFor(analysis, fresh);
    expect(nodesViewFor(analysis, { ...fresh, stale: [] })).toBe(first);
    expect(first).toEqual(v);
    const stale = [{ source: "c/ta/per-node", state: "stale", lastSuccess: 0, error: null }] as unknown as typeof v.stale;
    const later = nodesViewFor(analysis, { ...fresh, stale });
    expect(later).not.toBe(first);
    expect(later.stale).toEqual(stale);
    expect(nodesViewFor({ ...analysis }, fresh)).not.toBe(later);
  });
});
