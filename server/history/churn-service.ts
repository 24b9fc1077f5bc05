import "server-only";
/**
 * The churn service: everything the dashboard answers from the churn history.
 *
 * The churn API (GET /api/v1/churn, answered in the poll worker): parse the query, take the cluster's snapshot and history, choose the source (the local
 * store, or the Prometheus-compatible backend of history.prometheus for ranges older than local history), reshape into
 * the churn view (narrowed to `node` and/or `pod` when asked: the node detail's readiness history).
 * A failing backend never empties the view: the local store answers, and the view says so with the backend's error.
 *
 * Bounds: the range is validated and clamped (lib/views/churn.ts), the store aggregates in SQL and returns bounded rows,
 * and each answer is cached per cluster, poll and normalised query (a range without `to` ends at the poll's time), so N
 * browsers polling the same view cost one computation per poll.
 *
 * The flapping collectors the diagnostics judge (`flappingFor`): the readiness events of the last FLAP_WINDOW_MS, ranked,
 * read once per cluster and poll however many browsers poll the diagnostics.
 */
import type { Config, HistoryPrometheusConfig } from "@/lib/config/schema";
import { freshness } from "@/lib/views/summary";
import { churnQueryKey, maxChurnRangeMs, parseChurnQuery, toChurnView, type ChurnQuery, type ChurnView } from "@/lib/views/churn";
import { chooseSource, redactEndpoint, type ChurnSource } from "@/lib/views/churn-source";
import { AnswerCache } from "@/lib/answer-cache";
import { SourceError } from "@/lib/source-error";
import { rankFlapping } from "@/lib/analysis/readiness";
import type { ChurnLike } from "@/lib/analysis/diagnostics";
import type { Snapshot } from "@/lib/snapshot";
import { ApiError } from "@/server/api-error";
import { historyFor, type ClusterHistory } from "@/server/history/registry";
import { churnFromPrometheus, matchersOf, prometheusClientFor, type PrometheusChurn } from "@/server/history/prometheus";

type Log = (message: string) => void;
/** freshness() reads only these fields of a snapshot. */
const freshnessOf = (s: ChurnContext["snapshot"]) => freshness(s as Parameters<typeof freshness>[0]);
let lastLogged: string | null = null;

/** Cached churn answers, all clusters together: a few views (page ranges, node details) per poll. */
export const CHURN_CACHE_SIZE = 64;
const MIN_TTL_MS = 1000;
const cache = new AnswerCache<ChurnView>(CHURN_CACHE_SIZE, 15_000);

/** What one churn answer needs besides the request: the cluster's latest snapshot and history, the configuration. */
export interface ChurnContext {
  snapshot: Pick<Parameters<typeof freshness>[0], "cluster" | "at" | "pollIntervalMs" | "sources">;
  history: ClusterHistory;
  config: Pick<Config, "history">;
}

/**
 * The answer for the parameters, from the cache when this poll already computed it. The poll's time is in the key, so a
 * new poll asks anew; an entry lives a poll interval at most (a poll that takes longer still sees events recorded
 * meanwhile), and CHURN_CACHE_SIZE of them at most.
 */
export function churnAnswer(params: URLSearchParams, now: number, ctx: ChurnContext, log: Log = (m) => console.warn(m), answers: AnswerCache<ChurnView> = cache): Promise<ChurnView> {
  const { snapshot } = ctx;
  const parsed = parseChurnQuery(params, now, { anchor: snapshot.at, maxRangeMs: maxChurnRangeMs(ctx.config.history) });
  if (!parsed.ok) return Promise.reject(new ApiError(400, "bad_query", parsed.message));
  const { query } = parsed;
  const key = JSON.stringify([snapshot.cluster, snapshot.at, churnQueryKey(query)]);
  return answers.get(key, now, () => computeChurn(query, ctx, log), Math.max(MIN_TTL_MS, snapshot.pollIntervalMs));
}

async function computeChurn(query: ChurnQuery, ctx: ChurnContext, log: Log): Promise<ChurnView> {
  const { snapshot, history } = ctx;
  const { store, status } = history;
  const range = { from: query.from, to: query.to };

  const promConfig: HistoryPrometheusConfig | undefined = ctx.config.history.prometheus;
  const requested = query.source ?? "auto";
  let localOldest: number | null;
  try {
    localOldest = store.oldest(snapshot.cluster);
  } catch {
    localOldest = null;
  }
  const choice = chooseSource(requested, { configured: Boolean(promConfig), from: query.from, localOldest, filtered: query.node !== undefined || query.pod !== undefined });
  if (!choice.ok) throw new ApiError(400, "bad_query", choice.message);

  const source: ChurnSource = {
    requested,
    answered: "local",
    prometheus: promConfig ? { endpoint: redactEndpoint(promConfig.url) } : null,
    fallback: false,
    error: null,
    localFrom: localOldest,
  };
  let fromPrometheus: PrometheusChurn | undefined;
  if (choice.source === "prometheus" && promConfig) {
    try {
      const client = prometheusClientFor(promConfig)!;
      fromPrometheus = await churnFromPrometheus(client, snapshot.cluster, matchersOf(promConfig), { ...range, buckets: query.buckets });
      source.answered = "prometheus";
      lastLogged = null;
    } catch (e) {
      const err =
        e instanceof SourceError
          ? e
          : new SourceError({ source: `prometheus ${source.prometheus!.endpoint}`, kind: "parse", message: (e as Error)?.message ?? String(e) });
      source.fallback = true;
      source.error = { kind: err.kind, message: `${err.source}: ${err.message}`, hint: err.hint ?? null };
      // once per kind of failure, not once per request (every browser polls the view)
      const key = `${snapshot.cluster} ${err.kind} ${err.status ?? ""}`;
      if (key !== lastLogged) log(`allocation-lens: churn: ${snapshot.cluster}: ${source.error.message}${err.detail ? ` (${err.detail})` : ""}; showing local history`);
      lastLogged = key;
    }
  }

  let local;
  try {
    local = store.churn(snapshot.cluster, { ...range, buckets: query.buckets, node: query.node, pod: query.pod, series: !fromPrometheus });
  } catch (e) {
    throw new ApiError(503, "history_unavailable", `cannot read churn history from ${status.path ?? status.backend}: ${(e as Error).message}`);
  }
  return toChurnView(freshnessOf(snapshot), snapshot.cluster, query, { backend: status.backend, error: status.error, path: status.path }, local, source, fromPrometheus);
}

/** Readiness flapping (the collector-flapping diagnostic) is judged over this window, up to the time of the read. */
export const FLAP_WINDOW_MS = 15 * 60_000;
/** Readiness events read for it at most. */
export const FLAP_EVENTS_READ = 10_000;
/** One entry per cluster and poll. */
const flapping = new AnswerCache<ChurnLike | null>(16, 15_000);

/**
 * The flapping collectors of the last FLAP_WINDOW_MS from the cluster's churn history, read once per poll (the poll's time
 * is in the key; an entry lives a poll interval at most). Null (the check reads "unknown") when there is no history or it
 * cannot be read; a failed read is not kept.
 */
export function flappingFor(
  snapshot: Pick<Snapshot, "cluster" | "at" | "pollIntervalMs">,
  now = Date.now(),
  history: ClusterHistory | undefined = historyFor(snapshot.cluster),
  answers: AnswerCache<ChurnLike | null> = flapping,
): Promise<ChurnLike | null> {
  if (!history) return Promise.resolve(null);
  const key = JSON.stringify([snapshot.cluster, snapshot.at]);
  return answers
    .get(
      key,
      now,
      async () => ({ flapping: rankFlapping(history.store.readiness(snapshot.cluster, { from: now - FLAP_WINDOW_MS, to: now }, FLAP_EVENTS_READ)) }),
      Math.max(MIN_TTL_MS, snapshot.pollIntervalMs),
    )
    .catch(() => null);
}
