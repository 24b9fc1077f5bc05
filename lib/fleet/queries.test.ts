import { describe, expect, it } from "vitest";
import { fleetQueries, trendGrid, FLEET_LOOKBACK_MS, FLEET_TREND_POINTS } from "@/lib/fleet/queries";

describe("fleet queries", () => {
  const q = fleetQueries([{ name: "job", op: "=", value: 'allocation-"lens"' }]);

  it("selects with the configured matchers, escaped, and never pins a cluster", () => {
    for (const text of Object.values(q)) {
      expect(text).toContain('job="allocation-\\"lens\\""');
      expect(text).not.toMatch(/cluster=/);
    }
  });

  it("takes current values, and last values only for clusters with no current sample", () => {
    expect(q.ghosts).toBe(
      'max by (cluster, role) (allocation_lens_targets{class="ghost",job="allocation-\\"lens\\""}) or (max by (cluster, role) (last_over_time(allocation_lens_targets{class="ghost",job="allocation-\\"lens\\""}[86400s])) unless on (cluster) group by (cluster) (allocation_lens_last_poll_timestamp_seconds{job="allocation-\\"lens\\""}))',
    );
    expect(q.sourceUp).toMatch(/^min by \(cluster, source\)/);
    expect(q.seen).toBe('max by (cluster) (timestamp(allocation_lens_last_poll_timestamp_seconds{job="allocation-\\"lens\\""}))');
    expect(q.trendLocality).toContain('role="per-node"');
    expect(q.trendGhosts).toMatch(/^sum by \(cluster\) \(max by \(cluster, role\) \(max_over_time\(.*\[900s\]\)\)\)$/);
  });

  it("lays the trend grid over the lookback, ending now", () => {
    const now = 1_800_000_000_000;
    const g = trendGrid(now);
    expect(g.end).toBe(now / 1000);
    expect(g.step).toBe(FLEET_LOOKBACK_MS / FLEET_TREND_POINTS / 1000);
    expect((g.end - g.start) / g.step + 1).toBe(FLEET_TREND_POINTS);
  });
});
