import { describe, expect, it } from "vitest";
import { fleetHeadline, rowGhosts, rowUnassigned, trendLabel, trendSummary } from "@/lib/views/fleet-view";
import type { FleetRow } from "@/lib/api/schemas";

describe("fleet view reshaping", () => {
  const trend = { start: 1, stepMs: 1, ghosts: [0, 7, null, 2], localityRatio: [1, 0.8, null, 0.95] };

  it("summarises a trend, skipping missing points", () => {
    expect(trendSummary(trend)).toEqual({ points: 4, maxGhosts: 7, lastGhosts: 2, minLocality: 0.8, lastLocality: 0.95 });
    expect(trendLabel(trend)).toBe("24 h: ghosts at most 7 (now 2); per-node locality at least 80.0% (now 95.0%)");
    expect(trendLabel({ start: 1, stepMs: 1, ghosts: [], localityRatio: [] })).toBe("24 h: no data in the backend");
    expect(trendLabel({ start: 1, stepMs: 1, ghosts: [0], localityRatio: [null] })).toBe("24 h: ghosts at most 0 (now 0); per-node locality unknown");
  });

  it("counts the fleet's clusters by status", () => {
    const r = (status: FleetRow["status"]) => ({ status }) as FleetRow;
    expect(fleetHeadline({ clusters: [r("stopped"), r("bad"), r("ok")], truncated: 0 })).toBe("3 clusters: 1 stopped, 1 with problems");
    expect(fleetHeadline({ clusters: [r("ok")], truncated: 0 })).toBe("1 cluster, all ok");
    expect(fleetHeadline({ clusters: [r("warn")], truncated: 2 })).toBe("3 clusters: 1 with warnings");
  });

  it("adds ghosts and unassigned over the roles that say", () => {
    expect(rowGhosts({ roles: { "per-node": { ghosts: 3, unassigned: null, localityRatio: 1 }, "cluster-scraper": { ghosts: 1, unassigned: 2, localityRatio: null } } })).toBe(4);
    expect(rowUnassigned({ roles: { "per-node": { ghosts: 3, unassigned: null, localityRatio: 1 } } })).toBeNull();
    expect(rowGhosts({ roles: {} })).toBeNull();
  });
});
