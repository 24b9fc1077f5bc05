import { describe, expect, it } from "vitest";
import type { SeriesPoint, TimelineBucket } from "@/lib/analysis/churn-buckets";
import { isolatedPoints, localityLines, seriesRoles, seriesRows, timelineRows, timelineTotals } from "@/lib/views/churn-charts";

const bucket = (t: number, pn: [number, number], cs?: [number, number]): TimelineBucket => ({
  t,
  readiness: pn[0] + (cs?.[0] ?? 0),
  reassignments: pn[1] + (cs?.[1] ?? 0),
  byRole: { "per-node": { readiness: pn[0], reassignments: pn[1] }, ...(cs ? { "cluster-scraper": { readiness: cs[0], reassignments: cs[1] } } : {}) },
});

describe("timelineRows", () => {
  const buckets = [bucket(0, [1, 10], [2, 0]), bucket(60, [0, 0])];

  it("flattens per role with the bucket's end", () => {
    const rows = timelineRows(buckets, 120, null);
    expect(rows[0]).toEqual({ t: 0, end: 60, ready_pn: 1, ready_cs: 2, moves_pn: 10, moves_cs: 0 });
    expect(rows[1].end).toBe(120);
    expect(timelineTotals(rows)).toEqual({ readiness: 3, reassignments: 10 });
  });

  it("zeroes the other role when filtered", () => {
    expect(timelineTotals(timelineRows(buckets, 120, "cluster-scraper"))).toEqual({ readiness: 2, reassignments: 0 });
  });
});

describe("series", () => {
  const points: SeriesPoint[] = [
    { t: 0, localityRatio: { "per-node": 0.98765 }, ghosts: 3, unassigned: 0 },
    { t: 60, localityRatio: {}, ghosts: null, unassigned: null },
  ];

  it("turns ratios into percents and keeps gaps as null", () => {
    expect(seriesRows(points)).toEqual([
      { t: 0, locality_pn: 98.8, locality_cs: null, ghosts: 3, unassigned: 0 },
      { t: 60, locality_pn: null, locality_cs: null, ghosts: null, unassigned: null },
    ]);
    expect(seriesRoles(points)).toEqual(["per-node"]);
    expect([...isolatedPoints(seriesRows(points), "ghosts")]).toEqual([0]);
    expect([...isolatedPoints(seriesRows([...points, points[0], points[0]]), "ghosts")]).toEqual([0]);
  });
});

describe("localityLines", () => {
  it("charts the per-node line and leaves the cluster-scraper out, saying so and why", () => {
    const l = localityLines(["per-node", "cluster-scraper"]);
    expect(l.charted).toEqual(["per-node"]);
    expect(l.left).toEqual(["cluster-scraper"]);
    expect(l.legend).toBe("cluster-scraper: not charted");
    expect(l.why).toBe("Locality is not expected for the cluster-scraper: its targets are cluster-level endpoints, not on its own node.");
  });
  it("says nothing when only the per-node agent has a series, and charts nothing for the cluster-scraper alone", () => {
    expect(localityLines(["per-node"])).toEqual({ charted: ["per-node"], left: [], legend: null, why: null });
    expect(localityLines(["cluster-scraper"])).toMatchObject({ charted: [], left: ["cluster-scraper"] });
    expect(localityLines([])).toEqual({ charted: [], left: [], legend: null, why: null });
  });
});
