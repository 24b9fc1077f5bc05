import { describe, expect, it } from "vitest";
import { ev } from "@/test/fixtures/events";
import { bucketIndex, series, timeline } from "@/lib/analysis/churn-buckets";


describe("churn buckets", () => {
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
