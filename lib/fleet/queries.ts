/**
 * PromQL of the fleet view: every cluster's latest figures from the `allocation_lens_*` series its dashboard exports, as a
 * Prometheus-compatible backend (Prometheus, Thanos Query, Mimir) scraped them from many dashboards. Pure.
 *
 * - Several replicas of one dashboard export the same gauges: every figure takes the max over them per cluster (and
 *   role...), source health the min (a source is up when every replica read it).
 * - A cluster whose series stopped (its dashboard is gone, or no longer scraped) has no current sample. Its figures are
 *   then its last values within the lookback (`last_over_time`), only for clusters with no current sample, so that a
 *   series that vanished from a live dashboard (a TA that has not answered: no unassigned count) is not shown from the
 *   past. `seen` says when each cluster's last current sample was taken (the timestamp of the sample, not its value).
 */
import { DERIVED_METRICS } from "@/lib/metrics/derived";
import { duration, matcherSelector, type Matcher } from "@/lib/prometheus/promql";

import { FLEET_LOOKBACK_MS, FLEET_TREND_POINTS } from "@/lib/fleet/window";

export { FLEET_LOOKBACK_MS, FLEET_TREND_POINTS };

export interface FleetQueries {
  /** instant queries: one sample per cluster (and role, ownership, source) */
  locality: string;
  ghosts: string;
  unassigned: string;
  monitors: string;
  nodesWithoutCollector: string;
  sourceUp: string;
  lastPoll: string;
  seen: string;
  /** range queries over the lookback: one series per cluster */
  trendGhosts: string;
  trendLocality: string;
}

export function fleetQueries(matchers: readonly Matcher[], lookbackMs = FLEET_LOOKBACK_MS, points = FLEET_TREND_POINTS): FleetQueries {
  const sel = (metric: string, extra: Matcher[] = []) => matcherSelector(metric, [...extra, ...matchers]);
  const lb = duration(lookbackMs);
  const step = duration(lookbackMs / points);
  const lastPoll = sel(DERIVED_METRICS.lastPoll.name);
  const current = `group by (cluster) (${lastPoll})`;
  const figure = (s: string, by: string, agg: "max" | "min" = "max") => `${agg} by (${by}) (${s}) or (${agg} by (${by}) (last_over_time(${s}[${lb}])) unless on (cluster) ${current})`;
  const ghost = sel(DERIVED_METRICS.targets.name, [{ name: "class", op: "=", value: "ghost" }]);
  return {
    locality: figure(sel(DERIVED_METRICS.locality.name), "cluster, role"),
    ghosts: figure(ghost, "cluster, role"),
    unassigned: figure(sel(DERIVED_METRICS.unassigned.name), "cluster, role"),
    monitors: figure(sel(DERIVED_METRICS.monitors.name), "cluster, ownership"),
    nodesWithoutCollector: figure(sel(DERIVED_METRICS.nodesWithoutCollector.name), "cluster"),
    sourceUp: figure(sel(DERIVED_METRICS.sourceUp.name), "cluster, source", "min"),
    lastPoll: figure(lastPoll, "cluster"),
    seen: `max by (cluster) (timestamp(${lastPoll}))`,
    trendGhosts: `sum by (cluster) (max by (cluster, role) (max_over_time(${ghost}[${step}])))`,
    trendLocality: `max by (cluster) (avg_over_time(${sel(DERIVED_METRICS.locality.name, [{ name: "role", op: "=", value: "per-node" }])}[${step}]))`,
  };
}

/** The range query grid of the trends: `points` evaluations, the last one at `nowMs` (seconds, as the API takes them). */
export function trendGrid(nowMs: number, lookbackMs = FLEET_LOOKBACK_MS, points = FLEET_TREND_POINTS): { start: number; end: number; step: number } {
  const stepMs = lookbackMs / points;
  return { start: (nowMs - stepMs * (points - 1)) / 1000, end: nowMs / 1000, step: stepMs / 1000 };
}
