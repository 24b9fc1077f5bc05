import "server-only";
/**
 * The churn API's server side: parse the query, find the cluster's snapshot and history, choose the source (the local
 * store, or the Prometheus-compatible backend of history.prometheus for ranges older than local history), reshape into
 * the churn view (narrowed to `node` and/or `pod` when asked: the node detail's readiness history).
 * A failing backend never empties the view: the local store answers, and the view says so with the backend's error.
 */
import { freshness } from "@/lib/views/summary";
import { EVENTS_READ, parseChurnQuery, toChurnView, type ChurnView } from "@/lib/views/churn";
import { chooseSource, redactEndpoint, type ChurnSource } from "@/lib/views/churn-source";
import { SourceError } from "@/lib/source-error";
import { ApiError, snapshotFor } from "@/server/api";
import { getRuntime } from "@/server/runtime";
import { historyFor, startHistory } from "@/server/history/registry";
import { churnFromPrometheus, matchersOf, prometheusClientFor, type PrometheusChurn } from "@/server/history/prometheus";

type Log = (message: string) => void;
let lastLogged: string | null = null;

export async function churnFor(url: string, now = Date.now(), log: Log = (m) => console.warn(m)): Promise<ChurnView> {
  const parsed = parseChurnQuery(new URL(url).searchParams, now);
  if (!parsed.ok) throw new ApiError(400, "bad_query", parsed.message);
  const { query } = parsed;
  const snapshot = await snapshotFor(url);
  const runtime = await getRuntime();
  // A no-op once the runtime has started the history; before that, this starts it (seeded from the next snapshot).
  const history = historyFor(snapshot.cluster) ?? (startHistory(runtime), historyFor(snapshot.cluster));
  if (!history) throw new ApiError(503, "history_unavailable", `no churn history for cluster "${snapshot.cluster}"`);
  const { store, status } = history;
  const range = { from: query.from, to: query.to };

  const promConfig = runtime.config.history.prometheus;
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

  let rows;
  try {
    rows = { readiness: store.readiness(snapshot.cluster, range, EVENTS_READ), reassignments: store.reassignments(snapshot.cluster, range), polls: fromPrometheus ? [] : store.polls(snapshot.cluster, range) };
  } catch (e) {
    throw new ApiError(503, "history_unavailable", `cannot read churn history from ${status.path ?? status.backend}: ${(e as Error).message}`);
  }
  return toChurnView(freshness(snapshot), snapshot.cluster, query, { backend: status.backend, error: status.error, path: status.path }, rows, source, fromPrometheus);
}
