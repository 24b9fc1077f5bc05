import { describe, expect, it } from "vitest";
import { FIGURE_KEYS, fleetQueries, stoppedFigureQueries, trendGrid, withStopped, FLEET_LOOKBACK_MS, FLEET_TREND_POINTS } from "@/lib/fleet/queries";

describe("fleet queries", () => {
  const q = fleetQueries([{ name: "job", op: "=", value: 'allocation-"lens"' }]);

  it("selects with the configured matchers, escaped, and never pins a cluster", () => {
    for (const text of Object.values(q)) {
      expect(text).toContain('job="allocation-\\"lens\\""');
      expect(text).not.toMatch(/cluster=/);
    }
  });

  it("takes current values; finds the clusters with a last poll in the lookback but none now", () => {
    expect(q.ghosts).toBe('max by (cluster, role) (allocation_lens_targets{class="ghost",job="allocation-\\"lens\\""})');
    expect(q.sourceUp).toMatch(/^min by \(cluster, source\)/);
    expect(q.seen).toBe('max by (cluster) (timestamp(allocation_lens_last_poll_timestamp_seconds{job="allocation-\\"lens\\""}))');
    expect(q.stopped).toBe(
      'group by (cluster) (last_over_time(allocation_lens_last_poll_timestamp_seconds{job="allocation-\\"lens\\""}[86400s])) unless on (cluster) group by (cluster) (allocation_lens_last_poll_timestamp_seconds{job="allocation-\\"lens\\""})',
    );
    expect(q.trendLocality).toContain('role="per-node"');
    expect(q.trendGhosts).toMatch(/^sum by \(cluster\) \(max by \(cluster, role\) \(max_over_time\(.*\[900s\]\)\)\)$/);
    // no current figure reads the lookback: only `stopped` (one series per cluster) and the trends do
    for (const k of FIGURE_KEYS) expect(q[k]).not.toMatch(/\[\d+s\]/);
  });

  it("reads a stopped cluster's last figures from its own series, its name escaped in a regular expression", () => {
    const sq = stoppedFigureQueries([{ name: "job", op: "=", value: "lens" }], ["b.1", "a|x", "b.1"]);
    expect(Object.keys(sq).sort()).toEqual([...FIGURE_KEYS].sort());
    expect(sq.ghosts).toBe('max by (cluster, role) (last_over_time(allocation_lens_targets{class="ghost",cluster=~"a\\\\|x|b\\\\.1",job="lens"}[86400s]))');
    expect(sq.sourceUp).toMatch(/^min by \(cluster, source\) \(last_over_time\(/);
  });

  it("adds a stopped cluster's last samples to the current ones: only its own, only label sets not current", () => {
    const s = (cluster: string, role: string, v: string) => ({ metric: { cluster, role }, value: [1, v] as [number, string] });
    const merged = withStopped([s("a", "per-node", "1")], [s("b", "per-node", "2"), s("a", "cluster-scraper", "3"), s("b", "per-node", "4")], new Set(["b"]));
    expect(merged).toEqual([s("a", "per-node", "1"), s("b", "per-node", "2"), s("b", "per-node", "4")]);
  });

  it("lays the trend grid over the lookback, ending now", () => {
    const now = 1_800_000_000_000;
    const g = trendGrid(now);
    expect(g.end).toBe(now / 1000);
    expect(g.step).toBe(FLEET_LOOKBACK_MS / FLEET_TREND_POINTS / 1000);
    expect((g.end - g.start) / g.step + 1).toBe(FLEET_TREND_POINTS);
  });
});
