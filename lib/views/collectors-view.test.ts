import { describe, expect, it } from "vitest";
import type { CollectorRow } from "@/lib/analysis/types";
import { chartSummary, collectorSources, shortIds, eligibilityOf, eligibleStats, extremes, filterCollectors, histogram, imbalanceVerdict, sortCollectors } from "./collectors-view";

const row = (id: string, targets: number, over: Partial<CollectorRow> = {}): CollectorRow => ({
  role: "per-node",
  id,
  node: `node-${id}`,
  zone: "us-east-1a",
  inKubernetes: true,
  inTa: true,
  eligible: true,
  reason: null,
  phase: "Running",
  ready: true,
  restarts: 0,
  targets,
  share: 0,
  ...over,
});

describe("eligibility", () => {
  it("classifies listed+eligible, listed+not eligible, not listed", () => {
    expect(eligibilityOf(row("a", 1))).toBe("eligible");
    expect(eligibilityOf(row("a", 1, { eligible: false }))).toBe("not_eligible");
    expect(eligibilityOf(row("a", 1, { inTa: false }))).toBe("not_in_ta");
  });
});

describe("histogram", () => {
  it("bins every collector once, with integer bounds and eligibility counts", () => {
    const rows = Array.from({ length: 5000 }, (_, i) => row(`c${i}`, i % 97, { eligible: i % 10 !== 0 }));
    const bins = histogram(rows, 24);
    expect(bins.length).toBeLessThanOrEqual(24);
    expect(bins.reduce((s, b) => s + b.total, 0)).toBe(5000);
    expect(bins[0].from).toBe(0);
    expect(bins.at(-1)!.to).toBeGreaterThanOrEqual(96);
    for (const b of bins) expect(b.eligible + b.not_eligible + b.not_in_ta).toBe(b.total);
  });
  it("uses single-value bins for a small range and handles no rows", () => {
    expect(histogram([row("a", 3), row("b", 3), row("c", 5)]).map((b) => [b.label, b.total])).toEqual([
      ["3", 2],
      ["4", 0],
      ["5", 1],
    ]);
    expect(histogram([])).toEqual([]);
  });
});

describe("extremes", () => {
  it("returns disjoint top and bottom lists", () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(`c${String(i).padStart(2, "0")}`, i));
    const { top, bottom } = extremes(rows, 20);
    expect(top[0].targets).toBe(29);
    expect(top).toHaveLength(20);
    expect(bottom.map((r) => r.targets)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(extremes([row("a", 1)], 20)).toEqual({ top: [row("a", 1)], bottom: [] });
  });
});

describe("imbalanceVerdict", () => {
  const stats = (mean: number) => ({ collectors: 4, mean, min: 0, max: 0 });
  it("calls per-node imbalance expected", () => {
    expect(imbalanceVerdict("per-node", { maxOverMean: 3, cv: 1 }, stats(40)).label).toBe("expected");
  });
  it("grades hashing strategies by max/mean", () => {
    expect(imbalanceVerdict("consistent-hashing", { maxOverMean: 1.1, cv: 0.05 }, stats(40)).tone).toBe("ok");
    expect(imbalanceVerdict("consistent-hashing", { maxOverMean: 1.5, cv: 0.3 }, stats(40)).tone).toBe("warn");
    expect(imbalanceVerdict("least-weighted", { maxOverMean: 2.5, cv: 0.9 }, stats(40)).tone).toBe("bad");
    expect(imbalanceVerdict("consistent-hashing", { maxOverMean: 3, cv: 1 }, stats(2)).label).toBe("too few targets");
    expect(imbalanceVerdict(null, { maxOverMean: null, cv: null }, { collectors: 0, mean: null, min: null, max: null }).label).toBe("n/a");
  });
});

describe("eligibleStats, filter, sort, summary", () => {
  const rows = [row("b", 10), row("a", 4, { eligible: false, reason: "not Ready" }), row("c", 0, { inTa: false, node: null, zone: null, phase: null })];
  it("computes stats over eligible collectors only", () => {
    expect(eligibleStats(rows)).toEqual({ collectors: 1, mean: 10, min: 10, max: 10 });
  });
  it("filters on id, node, zone, phase and eligibility text", () => {
    expect(filterCollectors(rows, "NODE-a").map((r) => r.id)).toEqual(["a"]);
    expect(filterCollectors(rows, "not").map((r) => r.id)).toEqual(["a", "c"]);
    expect(filterCollectors(rows, "ready")).toHaveLength(1);
    expect(filterCollectors(rows, "not_in_ta").map((r) => r.id)).toEqual(["c"]);
    expect(filterCollectors([...rows, row("gone", 3, { inKubernetes: false, eligible: false })], "ta_only").map((r) => r.id)).toEqual(["gone"]);
    expect(filterCollectors(rows, "")).toHaveLength(3);
  });
  it("sorts by number or text, nulls as empty, stable on id", () => {
    expect(sortCollectors(rows, "targets", "desc").map((r) => r.id)).toEqual(["b", "a", "c"]);
    expect(sortCollectors(rows, "node", "asc").map((r) => r.id)).toEqual(["c", "a", "b"]);
  });
  it("summarises the chart in one sentence", () => {
    expect(chartSummary(rows)).toBe("Targets per collector: 3 collectors, most targets: b with 10, fewest: c with 0, 1 eligible, 1 in the TA but not eligible, 1 not in the TA.");
    expect(chartSummary([])).toBe("No collectors.");
  });
});

describe("shortIds", () => {
  it("drops the shared prefix at a dash boundary", () => {
    expect([...shortIds(["cloudwatch-agent-z2dd6", "cloudwatch-agent-zq9"]).values()]).toEqual(["z2dd6", "zq9"]);
    expect([...shortIds(["agent-a1", "agent-b2", "other"]).values()]).toEqual(["agent-a1", "agent-b2", "other"]);
    expect([...shortIds(["only-one"]).values()]).toEqual(["only-one"]);
    expect([...shortIds(["ab-1", "ab-1"]).values()]).toEqual(["1"]);
  });
});

describe("collectorSources", () => {
  it("drops the monitor CRD sources", () => {
    const src = (source: string) => ({ source });
    expect(collectorSources([src("demo/ta/per-node"), src("demo/kube/podmonitors"), src("demo/kube/servicemonitors"), src("demo/kube/pods/per-node")]).map((x) => x.source)).toEqual([
      "demo/ta/per-node",
      "demo/kube/pods/per-node",
    ]);
  });
});
