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
 * - Two rounds: the current figures, and `stopped` (the clusters with a last poll in the lookback but none now, found
 *   from that one series); then, only when there are stopped clusters, their figures from `last_over_time` of their own
 *   series (stoppedFigureQueries, the clusters named in a regular expression). A single round (`current or
 *   last_over_time(...) unless current`) made the backend read the whole lookback of every series of every cluster for
 *   every answer: at 100 clusters and 24 hours, most of an answer's time.
 */
import { DERIVED_METRICS } from "@/lib/metrics/derived";
import { duration, escapeRegex, matcherSelector, type Matcher } from "@/lib/prometheus/promql";
import type { Vector } from "@/lib/prometheus/schemas";

import { FLEET_LOOKBACK_MS, FLEET_TREND_POINTS } from "@/lib/fleet/window";

export { FLEET_LOOKBACK_MS, FLEET_TREND_POINTS };

/** The figures of a row: current values, and a stopped cluster's last ones (stoppedFigureQueries). */
export const FIGURE_KEYS = ["locality", "ghosts", "unassigned", "monitors", "nodesWithoutCollector", "sourceUp", "lastPoll"] as const;
export type FigureKey = (typeof FIGURE_KEYS)[number];

export interface FleetQueries extends Record<FigureKey, string> {
  /** when each cluster's last current sample was taken */
  seen: string;
  /** the clusters with a last poll within the lookback but none now */
  stopped: string;
  /** range queries over the lookback: one series per cluster */
  trendGhosts: string;
  trendLocality: string;
}

interface Figure {
  metric: string;
  extra: Matcher[];
  by: string;
  agg: "max" | "min";
}

const FIGURES: Record<FigureKey, Figure> = {
  locality: { metric: DERIVED_METRICS.locality.name, extra: [], by: "cluster, role", agg: "max" },
  ghosts: { metric: DERIVED_METRICS.targets.name, extra: [{ name: "class", op: "=", value: "ghost" }], by: "cluster, role", agg: "max" },
  unassigned: { metric: DERIVED_METRICS.unassigned.name, extra: [], by: "cluster, role", agg: "max" },
  monitors: { metric: DERIVED_METRICS.monitors.name, extra: [], by: "cluster, ownership", agg: "max" },
  nodesWithoutCollector: { metric: DERIVED_METRICS.nodesWithoutCollector.name, extra: [], by: "cluster", agg: "max" },
  sourceUp: { metric: DERIVED_METRICS.sourceUp.name, extra: [], by: "cluster, source", agg: "min" },
  lastPoll: { metric: DERIVED_METRICS.lastPoll.name, extra: [], by: "cluster", agg: "max" },
};

export function fleetQueries(matchers: readonly Matcher[], lookbackMs = FLEET_LOOKBACK_MS, points = FLEET_TREND_POINTS): FleetQueries {
  const sel = (metric: string, extra: Matcher[] = []) => matcherSelector(metric, [...extra, ...matchers]);
  const lb = duration(lookbackMs);
  const step = duration(lookbackMs / points);
  const lastPoll = sel(DERIVED_METRICS.lastPoll.name);
  const figures = Object.fromEntries(FIGURE_KEYS.map((k) => [k, `${FIGURES[k].agg} by (${FIGURES[k].by}) (${sel(FIGURES[k].metric, FIGURES[k].extra)})`])) as Record<FigureKey, string>;
  const ghost = sel(DERIVED_METRICS.targets.name, [{ name: "class", op: "=", value: "ghost" }]);
  return {
    ...figures,
    seen: `max by (cluster) (timestamp(${lastPoll}))`,
    stopped: `group by (cluster) (last_over_time(${lastPoll}[${lb}])) unless on (cluster) group by (cluster) (${lastPoll})`,
    trendGhosts: `sum by (cluster) (max by (cluster, role) (max_over_time(${ghost}[${step}])))`,
    trendLocality: `max by (cluster) (avg_over_time(${sel(DERIVED_METRICS.locality.name, [{ name: "role", op: "=", value: "per-node" }])}[${step}]))`,
  };
}

/** The figures of the stopped `clusters` (at least one): the last value of each of their series within the lookback. */
export function stoppedFigureQueries(matchers: readonly Matcher[], clusters: readonly string[], lookbackMs = FLEET_LOOKBACK_MS): Record<FigureKey, string> {
  const pin: Matcher = { name: "cluster", op: "=~", value: [...new Set(clusters)].sort().map(escapeRegex).join("|") };
  const lb = duration(lookbackMs);
  return Object.fromEntries(
    FIGURE_KEYS.map((k) => {
      const f = FIGURES[k];
      return [k, `${f.agg} by (${f.by}) (last_over_time(${matcherSelector(f.metric, [...f.extra, pin, ...matchers])}[${lb}]))`];
    }),
  ) as Record<FigureKey, string>;
}

/**
 * A figure's current samples with the stopped clusters' last ones (of the clusters in `stopped` only, and only label sets
 * the current answer lacks: what `current or last unless on (cluster) current` gave in one query).
 */
export function withStopped(current: Vector, last: Vector, stopped: ReadonlySet<string>): Vector {
  const key = (m: Record<string, string>) => JSON.stringify(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const have = new Set(current.map((s) => key(s.metric)));
  return [...current, ...last.filter((s) => stopped.has(s.metric.cluster ?? "") && !have.has(key(s.metric)))];
}

/** The range query grid of the trends: `points` evaluations, the last one at `nowMs` (seconds, as the API takes them). */
export function trendGrid(nowMs: number, lookbackMs = FLEET_LOOKBACK_MS, points = FLEET_TREND_POINTS): { start: number; end: number; step: number } {
  const stepMs = lookbackMs / points;
  return { start: (nowMs - stepMs * (points - 1)) / 1000, end: nowMs / 1000, step: stepMs / 1000 };
}

/**
 * How long the trends' answer is kept: the 24-hour trends move by a point every 15 minutes, and their range queries are
 * the most expensive of an answer, so a refresh asks them at most once a minute (the trend's last point is then up to a
 * minute older than the answer).
 */
export const FLEET_TREND_REFRESH_MS = 60_000;
