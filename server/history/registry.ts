import "server-only";
/**
 * The process-wide churn history: one store (one SQLite file, rows keyed by cluster) and one attachment per cluster poller.
 * Kept on globalThis, as the runtime is, so that route bundles and instrumentation share it. `startHistory` is idempotent.
 */
import type { Config } from "@/lib/config/schema";
import type { Role } from "@/lib/model";
import { attachHistory, type Attachment, type ChurnCounters, type ChurnTotals, type PollerLike } from "@/server/history/attach";
import { openHistory, type Log } from "@/server/history/open";
import type { HistoryStatus, HistoryStore } from "@/server/history/types";

export interface HistoryRuntime {
  store: HistoryStore;
  attachments: Map<string, Attachment>;
  counters: ChurnCounters | undefined;
  stop(): void;
}

export interface ClusterHistory {
  store: HistoryStore;
  status: HistoryStatus;
  totals(): Partial<Record<Role, ChurnTotals>>;
}

const KEY = Symbol.for("allocation-lens.history");
type Holder = { [KEY]?: HistoryRuntime };

/**
 * Opens the store from `config.history` and attaches every poller. Call once, before `poller.start()` for an exact
 * readiness baseline (a later call seeds the baseline from the next snapshot). Later calls return the same instance; one
 * that brings counters when there were none wires them, adding what was counted so far.
 */
export function startHistory(
  runtime: { config: Pick<Config, "history">; pollers: ReadonlyMap<string, PollerLike> },
  options: { counters?: ChurnCounters; log?: Log; cwd?: string } = {},
): HistoryRuntime {
  const holder = globalThis as Holder;
  const existing = holder[KEY];
  if (existing) {
    if (options.counters && !existing.counters) wireCounters(existing, options.counters);
    return existing;
  }
  const store = openHistory(runtime.config.history, options.log, options.cwd);
  const attachments = new Map<string, Attachment>();
  const h: HistoryRuntime = {
    store,
    attachments,
    counters: options.counters,
    stop() {
      for (const a of attachments.values()) a.detach();
      store.close();
      if (holder[KEY] === h) delete holder[KEY];
    },
  };
  for (const [name, poller] of runtime.pollers) attachments.set(name, attachHistory(poller, store, { log: options.log, counters: () => h.counters }));
  holder[KEY] = h;
  return h;
}

function wireCounters(h: HistoryRuntime, counters: ChurnCounters): void {
  for (const [cluster, a] of h.attachments) {
    for (const [role, t] of Object.entries(a.totals())) {
      if (t.readinessTransitions) counters.readinessTransitions.inc({ cluster, role }, t.readinessTransitions);
      if (t.reassignments) counters.targetReassignments.inc({ cluster, role }, t.reassignments);
    }
    for (const { labels, count } of a.podSeries()) counters.collectorTransitions?.inc({ cluster, ...labels }, count);
  }
  h.counters = counters;
}

/** The history of one cluster, or undefined before startHistory or for a cluster it does not know. */
export function historyFor(cluster: string): ClusterHistory | undefined {
  const h = (globalThis as Holder)[KEY];
  const a = h?.attachments.get(cluster);
  if (!h || !a) return undefined;
  return { store: h.store, status: h.store.status, totals: () => a.totals() };
}

/** Values of `allocation_lens_readiness_transitions_total` and `allocation_lens_target_reassignments_total`, per role. */
export function churnTotals(cluster: string): Partial<Record<Role, ChurnTotals>> {
  return historyFor(cluster)?.totals() ?? {};
}

/** The cluster's poller was suspended here as of `at` (its Lease went to another replica): Attachment.release. */
export function releaseHistory(cluster: string, at: number): void {
  (globalThis as Holder)[KEY]?.attachments.get(cluster)?.release(at);
}

export function stopHistory(): void {
  (globalThis as Holder)[KEY]?.stop();
}
