import "server-only";
/**
 * The churn API's server side: parse the query, find the cluster's snapshot and history, reshape into the churn view
 * (narrowed to `node` and/or `pod` when asked: the node detail's readiness history).
 */
import { freshness } from "@/lib/views/summary";
import { EVENTS_READ, parseChurnQuery, toChurnView, type ChurnView } from "@/lib/views/churn";
import { ApiError, snapshotFor } from "@/server/api";
import { getRuntime } from "@/server/runtime";
import { historyFor, startHistory } from "@/server/history/registry";

export async function churnFor(url: string, now = Date.now()): Promise<ChurnView> {
  const parsed = parseChurnQuery(new URL(url).searchParams, now);
  if (!parsed.ok) throw new ApiError(400, "bad_query", parsed.message);
  const { query } = parsed;
  const snapshot = await snapshotFor(url);
  // A no-op once the runtime has started the history; before that, this starts it (seeded from the next snapshot).
  const history = historyFor(snapshot.cluster) ?? (startHistory(await getRuntime()), historyFor(snapshot.cluster));
  if (!history) throw new ApiError(503, "history_unavailable", `no churn history for cluster "${snapshot.cluster}"`);
  const { store, status } = history;
  const range = { from: query.from, to: query.to };
  let rows;
  try {
    rows = { readiness: store.readiness(snapshot.cluster, range, EVENTS_READ), reassignments: store.reassignments(snapshot.cluster, range), polls: store.polls(snapshot.cluster, range) };
  } catch (e) {
    throw new ApiError(503, "history_unavailable", `cannot read churn history from ${status.path ?? status.backend}: ${(e as Error).message}`);
  }
  return toChurnView(freshness(snapshot), snapshot.cluster, query, { backend: status.backend, error: status.error, path: status.path }, rows);
}
