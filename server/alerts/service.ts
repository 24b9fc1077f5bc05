import "server-only";
/**
 * GET /api/v1/alerts, computed in the poll worker after every poll and at each request (not pushed: a late poll is judged
 * at the request): the alerting rules judged on the
 * cluster's latest snapshot, through the same series /metrics exports, and the readiness flips of the churn history over
 * the flapping window. One tracker per worker keeps since when each instance holds (a restarted dashboard starts again).
 */
import type { ClusterConfig, Config } from "@/lib/config/schema";
import type { Snapshot } from "@/lib/snapshot";
import { configuredStrategies } from "@/lib/analysis/ring";
import { deriveSeries } from "@/lib/metrics/derived";
import { freshness } from "@/lib/views/summary";
import { rankFlapping } from "@/lib/analysis/readiness";
import { AlertTracker, toAlertsView, type Flipper } from "@/lib/alerts/evaluate";
import { DEFAULT_ALERT_PARAMS, DEFAULT_URLS, durationMs, type AlertParams } from "@/lib/alerts/rules";
import type { AlertsView } from "@/lib/api/schemas";
import { historyFor } from "@/server/history/registry";
import { FLAP_EVENTS_READ } from "@/server/history/churn-service";

const tracker = new AlertTracker();

export function alertParams(config: Pick<Config, "alerts">): AlertParams {
  const params: Partial<AlertParams> & { runbookBaseUrl?: string } = { ...config.alerts };
  delete params.runbookBaseUrl;
  return { ...DEFAULT_ALERT_PARAMS, ...params };
}

function flips(cluster: string, params: AlertParams, now: number): Flipper[] | null {
  const history = historyFor(cluster);
  if (!history) return null;
  try {
    const events = history.store.readiness(cluster, { from: now - durationMs(params.flappingWindow), to: now }, FLAP_EVENTS_READ);
    return rankFlapping(events, Number.MAX_SAFE_INTEGER);
  } catch {
    return null;
  }
}

export function alertsAnswer(s: Snapshot, cluster: ClusterConfig, config: Pick<Config, "alerts">, now = Date.now()): AlertsView {
  const params = alertParams(config);
  const series = deriveSeries(s, {}, configuredStrategies(cluster.targetAllocators));
  return toAlertsView(
    { cluster: s.cluster, series, flips: flips(s.cluster, params, now), now },
    params,
    { runbookBaseUrl: config.alerts?.runbookBaseUrl ?? DEFAULT_URLS.runbookBaseUrl },
    tracker,
    freshness(s),
  );
}
