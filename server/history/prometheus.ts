import "server-only";
/**
 * The churn view's timeline, series and flapping ranking read from a Prometheus-compatible backend (history.prometheus):
 * the queries of lib/prometheus/promql.ts, reshaped by lib/prometheus/reshape.ts into the local store's shapes.
 * One client per configuration, kept on globalThis as the runtime is.
 */
import type { HistoryPrometheusConfig } from "@/lib/config/schema";
import type { Flapper } from "@/lib/analysis/readiness";
import type { Range, SeriesPoint, TimelineBucket } from "@/lib/analysis/churn-buckets";
import { churnQueries, flappingBucketsQuery, parseMatcher, type Matcher } from "@/lib/prometheus/promql";
import { flappersFromVector, rangeGrid, rankFlappers, seriesFromMatrices, timelineFromMatrices } from "@/lib/prometheus/reshape";
import { PrometheusClient } from "@/server/history/prometheus-client";
import { SourceError } from "@/lib/source-error";
import { perConfig } from "@/server/per-config";

export interface PrometheusChurn {
  timeline: TimelineBucket[];
  series: SeriesPoint[];
  flapping: Flapper[];
}

export const FLAPPING_SHOWN = 20;

export function matchersOf(config: Pick<HistoryPrometheusConfig, "matchers">): Matcher[] {
  return config.matchers.map((m) => {
    const r = parseMatcher(m);
    if (!r.ok) throw new Error(`history.prometheus.matchers: ${r.message}`); // validated at start: not reached
    return r.matcher;
  });
}

export async function churnFromPrometheus(client: PrometheusClient, cluster: string, matchers: readonly Matcher[], query: Range & { buckets: number }): Promise<PrometheusChurn> {
  const range = { from: query.from, to: query.to };
  const grid = rangeGrid(range, query.buckets);
  const q = churnQueries(cluster, matchers, grid.widthMs, query.to - query.from, FLAPPING_SHOWN);
  const [readiness, reassignments, locality, ghosts, unassigned, flapping] = await Promise.all([
    client.queryRange(q.readiness, grid),
    client.queryRange(q.reassignments, grid),
    client.queryRange(q.locality, grid),
    client.queryRange(q.ghosts, grid),
    client.queryRange(q.unassigned, grid),
    client.query(q.flapping, query.to / 1000),
  ]);
  if (readiness.length === 0 && reassignments.length === 0 && locality.length === 0) {
    // nothing of this dashboard in the range: zeros would read as "no churn"; the local store answers instead
    throw new SourceError({
      source: `prometheus ${client.endpoint}`,
      kind: "not_found",
      message: `no allocation_lens_ series for cluster "${cluster}"${matchers.length ? ` matching ${matchers.map((m) => `${m.name}${m.op}"${m.value}"`).join(",")}` : ""} in this range`,
      hint: "is the backend scraping this dashboard's /metrics (ServiceMonitor), and do history.prometheus.matchers select it?",
    });
  }
  const pods = flappersFromVector(flapping);
  // lastAt: a second range query over just the ranked pods, on the same grid
  const perBucket = pods.length ? await client.queryRange(flappingBucketsQuery(cluster, matchers, [...new Set(pods.map((p) => p.pod))], grid.widthMs), grid) : [];
  return {
    timeline: timelineFromMatrices(range, query.buckets, readiness, reassignments),
    series: seriesFromMatrices(range, query.buckets, { locality, ghosts, unassigned }),
    flapping: rankFlappers(pods, perBucket, range, FLAPPING_SHOWN),
  };
}

const KEY = Symbol.for("allocation-lens.history-prometheus");

/** The client of the configured backend (one per configuration), or null when none is configured. */
export function prometheusClientFor(config: HistoryPrometheusConfig | undefined): PrometheusClient | null {
  return config ? perConfig(KEY, config, (c) => new PrometheusClient(c), (client) => client.close()) : null;
}
