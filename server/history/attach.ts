import "server-only";
/**
 * Connects one cluster's poller to the history store: pod events go through a ReadinessTracker, each snapshot is diffed
 * against the previous one and summarized, and all of it is written once per poll (one transaction). Keeps running totals
 * per role for the /metrics counters, and feeds prom-client counters when given.
 * Never throws into the poller: a failing store is logged and shown on the store's status.
 */
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { ReadinessTracker, type ReadinessEvent } from "@/lib/analysis/readiness";
import { capDiff, diffAssignments } from "@/lib/analysis/reassignments";
import { pollPoint } from "@/lib/analysis/poll-points";
import { podViewFromObject } from "@allocation-lens/allocation/eligibility";
import { POD_SERIES_TTL_MS, PodSeriesLifetimes, type PodSeriesLabels } from "@/lib/metrics/pod-series";
import type { ClusterPoller } from "@/server/poller";
import type { HistoryStore } from "@/server/history/types";
import type { Log } from "@/server/history/open";

/** What attachHistory needs of a ClusterPoller (a fake in tests). */
export type PollerLike = Pick<ClusterPoller, "onPodEvent" | "onSnapshot"> & { readonly config: { readonly name: string } };

/** Structurally a prom-client `Counter<"cluster" | "role">`. */
export interface CounterLike {
  inc(labels: { cluster: string; role: string }, value?: number): void;
}

/** Structurally a prom-client `Counter<"cluster" | "role" | "pod" | "node">`. */
export interface PodCounterLike {
  inc(labels: { cluster: string; role: string; pod: string; node: string }, value?: number): void;
  remove(labels: { cluster: string; role: string; pod: string; node: string }): void;
}

export interface ChurnCounters {
  readinessTransitions: CounterLike;
  targetReassignments: CounterLike;
  /** allocation_lens_collector_readiness_transitions_total: per pod, created at 0, removed after the pod is gone */
  collectorTransitions?: PodCounterLike;
}

export interface ChurnTotals {
  readinessTransitions: number;
  reassignments: number;
}

export interface Attachment {
  readonly cluster: string;
  /** since attach, per role: the values of the `_total` counters */
  totals(): Partial<Record<Role, ChurnTotals>>;
  /** the live per-pod series and their flip counts (to replay onto counters wired late) */
  podSeries(): { labels: PodSeriesLabels; count: number }[];
  /** writes pending readiness events now */
  flush(): void;
  /**
   * The cluster's poller stopped here as of `at` (its Lease went to another replica): its pods count as gone, so their
   * series go POD_SERIES_TTL_MS later (the new holder exports its own), and its readiness baseline starts again with the
   * next poll here (flips seen meanwhile were the other replica's to count).
   */
  release(at: number): void;
  detach(): void;
}

/** Per-node and per-pair lists kept per poll; the view shows the top 20 over its range. */
const STORED_TOP = 500;
/** Readiness events wait for the next poll's transaction, unless this many are pending (a mass rollout). */
const FLUSH_AT = 1000;

/** `counters` may be a getter, read at each increment (counters wired after attach). */
export function attachHistory(
  poller: PollerLike,
  history: HistoryStore,
  options: { counters?: ChurnCounters | (() => ChurnCounters | undefined); log?: Log } = {},
): Attachment {
  const cluster = poller.config.name;
  const log = options.log ?? ((m: string) => console.warn(m));
  let tracker = new ReadinessTracker();
  const totals: Partial<Record<Role, ChurnTotals>> = {};
  let pending: ReadinessEvent[] = [];
  let lastError: string | null = null;

  const podSeries = new PodSeriesLifetimes(POD_SERIES_TTL_MS);
  /** expires the series of a released cluster: no snapshot comes to do it */
  let releaseTimer: ReturnType<typeof setTimeout> | undefined;
  const countersNow = () => (typeof options.counters === "function" ? options.counters() : options.counters);
  const perPod = (labels: PodSeriesLabels) => ({ cluster, ...labels });
  /** the pod's series exists from when it is first seen, at 0: Prometheus' increase() then sees its first flip */
  const ensurePod = (role: Role, pod: string, node: string | null) => {
    if (podSeries.ensure(role, pod, node)) countersNow()?.collectorTransitions?.inc(perPod({ role, pod, node: node ?? "" }), 0);
  };
  const count = (role: Role, key: keyof ChurnTotals, n: number) => {
    const t = (totals[role] ??= { readinessTransitions: 0, reassignments: 0 });
    t[key] += n;
    const counters = countersNow();
    const counter = key === "readinessTransitions" ? counters?.readinessTransitions : counters?.targetReassignments;
    counter?.inc({ cluster, role }, n);
  };

  const write = (batch: Parameters<HistoryStore["write"]>[1]) => {
    try {
      history.write(cluster, batch);
      lastError = null;
    } catch (e) {
      const message = (e as Error)?.message ?? String(e);
      if (message !== lastError) log(`allocation-lens: history: ${cluster}: cannot record churn: ${message}`);
      lastError = message;
    }
  };

  const expire = (now: number) => {
    for (const labels of podSeries.expire(now)) countersNow()?.collectorTransitions?.remove(perPod(labels));
  };

  const flush = () => {
    if (!pending.length) return;
    const readiness = pending;
    pending = [];
    write({ readiness });
  };

  const offPod = poller.onPodEvent((e) => {
    try {
      const view = podViewFromObject(e.pod);
      if (e.type === "delete") podSeries.gone(e.role, view.name, e.at);
      else if (view.name) ensurePod(e.role, view.name, view.nodeName || null);
      const event = tracker.observe(e);
      if (!event) return;
      pending.push(event);
      count(event.role, "readinessTransitions", 1);
      if (event.kind === "became_ready" || event.kind === "became_not_ready") {
        ensurePod(event.role, event.pod, event.node);
        countersNow()?.collectorTransitions?.inc(perPod(podSeries.flip(event.role, event.pod, event.node)), 1);
      }
      if (pending.length >= FLUSH_AT) flush();
    } catch (err) {
      log(`allocation-lens: history: ${cluster}: pod event not tracked: ${(err as Error)?.message}`);
    }
  });

  const offSnapshot = poller.onSnapshot((s, previous) => {
    try {
      for (const role of ROLES) {
        if (!s.analysis.roles[role] || tracker.isBaselined(role)) continue;
        // Attached after the informers started: what the snapshot knows is the baseline too.
        tracker.seed(
          role,
          s.analysis.collectors.filter((c) => c.role === role && c.inKubernetes).map((c) => ({ name: c.id, ready: c.eligible, node: c.node })),
        );
        // The initial list is over once the pod informer has succeeded (its add events came before this poll read it).
        const source = s.sources.find((x) => x.source.endsWith(`/kube/pods/${role}`));
        if (!source || source.lastSuccess !== null) tracker.baselineDone(role);
      }
      // per-pod series: present pods exist (at 0 when new), absent ones go some minutes later
      for (const role of ROLES) {
        if (!s.analysis.roles[role]) continue;
        const present = new Set<string>();
        for (const c of s.analysis.collectors) {
          if (c.role !== role || !c.inKubernetes) continue;
          present.add(c.id);
          ensurePod(role, c.id, c.node);
        }
        podSeries.retain(role, present, s.at);
      }
      expire(s.at);
      const diff = diffAssignments(previous?.analysis.targets, s.analysis.targets);
      for (const role of ROLES) if (diff.byRole[role]) count(role, "reassignments", diff.byRole[role]!);
      const readiness = pending;
      pending = [];
      write({
        readiness,
        poll: pollPoint(s.analysis, s.at, s.pollMs),
        reassignments: diff.total > 0 ? { at: s.at, ...capDiff(diff, STORED_TOP) } : null,
      });
    } catch (err) {
      log(`allocation-lens: history: ${cluster}: snapshot not recorded: ${(err as Error)?.message}`);
    }
  });

  return {
    cluster,
    totals: () => structuredClone(totals),
    podSeries: () => podSeries.entries(),
    flush,
    release(at) {
      flush();
      tracker = new ReadinessTracker();
      for (const role of ROLES) podSeries.retain(role, new Set(), at);
      clearTimeout(releaseTimer);
      // pods seen again meanwhile (the Lease came back) are present again and stay
      releaseTimer = setTimeout(() => expire(at + POD_SERIES_TTL_MS), Math.max(0, at + POD_SERIES_TTL_MS - Date.now()));
      releaseTimer.unref?.();
    },
    detach() {
      clearTimeout(releaseTimer);
      offPod();
      offSnapshot();
      flush();
    },
  };
}
