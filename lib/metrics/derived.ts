/**
 * The dashboard's own /metrics (docs/ARCHITECTURE.md, "Contracts"): the series derived from one cluster's snapshot, and a small
 * binding that writes them into prom-client metrics at scrape time. The names and labels below are a contract: they do not change.
 * Pure: no I/O; prom-client is used only as the data structure and text formatter.
 */
import { Counter, Gauge, type Registry } from "prom-client";
import type { Ownership, Role } from "@/lib/model";
import { TARGET_CLASSES } from "@/lib/model";
import type { CollectorRow, RoleSummary, TargetRow } from "@/lib/analysis/types";
import { taRings, type ConfiguredStrategy, type DiscoveredStrategy } from "@/lib/analysis/ring";

export type MetricType = "gauge" | "counter";

export interface MetricSpec {
  name: string;
  help: string;
  type: MetricType;
  labelNames: readonly string[];
}

const spec = (name: string, type: MetricType, labelNames: readonly string[], help: string): MetricSpec => ({ name, type, labelNames, help });

/** Set from each cluster's latest snapshot at scrape time. */
export const DERIVED_METRICS = {
  targets: spec("allocation_lens_targets", "gauge", ["cluster", "role", "class"], "Assigned targets by class (ghost, nodeless, local, cross_zone, cross_node), as of the last poll."),
  unassigned: spec("allocation_lens_unassigned_targets", "gauge", ["cluster", "role"], "Targets known to the TA with no collector (live count, computed per flavor from the TA's metrics)."),
  unassignedReported: spec(
    "allocation_lens_ta_unassigned_reported",
    "gauge",
    ["cluster", "role"],
    "The TA's own unassigned gauge as it read at the last poll (upstream's is sticky: never reset to 0); absent while the TA exposes none.",
  ),
  ghostTargets: spec(
    "allocation_lens_ghost_targets",
    "gauge",
    ["cluster", "role", "collector"],
    "Ghost targets by the collector they are assigned to (a pod that cannot scrape them); only collectors that hold ghosts.",
  ),
  locality: spec("allocation_lens_locality_ratio", "gauge", ["cluster", "role"], "local / (local + cross_node + cross_zone); absent when no target has a node."),
  collectors: spec("allocation_lens_collectors", "gauge", ["cluster", "role", "state"], "Agent pods known to Kubernetes by state (ready, not_ready, terminating, unscheduled)."),
  monitors: spec("allocation_lens_monitors", "gauge", ["cluster", "ownership"], "ServiceMonitors and PodMonitors by ownership (ok, double, orphaned, misrouted)."),
  nodesWithoutCollector: spec("allocation_lens_nodes_without_collector", "gauge", ["cluster"], "Nodes with targets but no per-node agent pod."),
  ringHeadroom: spec(
    "allocation_lens_ta_ring_headroom",
    "gauge",
    ["cluster", "role"],
    "1061 minus the collectors in the TA's consistent-hashing ring, which holds at most 1061: negative, the TA cannot build its ring and crashes at every start. Only for TAs whose strategy builds the ring or may (per-node with an unknown fallback, an unknown strategy).",
  ),
  sourceUp: spec("allocation_lens_source_up", "gauge", ["cluster", "source"], "1 when the source (a TA or a Kubernetes informer) succeeded at the last poll, 0 otherwise."),
  pollDuration: spec("allocation_lens_poll_duration_seconds", "gauge", ["cluster"], "Duration of the last poll of the cluster."),
  pollCpu: spec("allocation_lens_poll_cpu_seconds", "gauge", ["cluster"], "CPU time of the poll thread during the last poll (reading, validating and analysing)."),
  pollBytes: spec("allocation_lens_poll_bytes", "gauge", ["cluster"], "Bytes read from the TAs by the last poll."),
  pollAnswers: spec(
    "allocation_lens_poll_answers",
    "gauge",
    ["cluster", "path"],
    "Job answers the last poll read, by path: scan (the fast scanner of the TAs' compact JSON) or parse (JSON.parse, for any other shape).",
  ),
  analysisSlice: spec("allocation_lens_analysis_longest_slice_seconds", "gauge", ["cluster"], "Longest stretch the last poll's analysis held the event loop (the analysis runs in slices between API requests)."),
  pollInterval: spec("allocation_lens_poll_interval_seconds", "gauge", ["cluster"], "The configured interval between two polls of the cluster."),
  lastPoll: spec("allocation_lens_last_poll_timestamp_seconds", "gauge", ["cluster"], "When the last poll of the cluster finished (Unix time)."),
  taRequests: spec("allocation_lens_ta_requests_total", "counter", ["cluster", "role"], "HTTP requests sent to the TA since the dashboard started."),
  info: spec("allocation_lens_info", "gauge", ["version"], "Allocation Lens build information."),
} as const satisfies Record<string, MetricSpec>;

/** Incremented by the churn module as events happen (see server/metrics.ts, churnCounters()). */
export const CHURN_METRICS = {
  readinessTransitions: spec("allocation_lens_readiness_transitions_total", "counter", ["cluster", "role"], "Collector readiness transitions seen in pod watch events."),
  targetReassignments: spec("allocation_lens_target_reassignments_total", "counter", ["cluster", "role"], "Targets whose collector changed between two consecutive snapshots."),
  collectorTransitions: spec(
    "allocation_lens_collector_readiness_transitions_total",
    "counter",
    ["cluster", "role", "pod", "node"],
    "Readiness flips (became ready, became not ready) of one collector pod; 0 from when the pod is first seen, removed some minutes after it is gone.",
  ),
} as const satisfies Record<string, MetricSpec>;

export interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export type CollectorState = "ready" | "not_ready" | "terminating" | "unscheduled";
export const COLLECTOR_STATES: readonly CollectorState[] = ["ready", "not_ready", "terminating", "unscheduled"];
const OWNERSHIPS: readonly Ownership[] = ["ok", "double", "orphaned", "misrouted"];

export interface MetricsSnapshotLike {
  cluster: string;
  at: number;
  pollMs: number;
  pollIntervalMs?: number;
  pollCpuMs?: number;
  bytesLastPoll?: number;
  answersLastPoll?: { scan: number; parse: number };
  analysisLongestSliceMs?: number;
  sources: readonly { source: string; state: string }[];
  analysis: {
    roles: Partial<Record<Role, Pick<RoleSummary, "classes" | "unassigned" | "localityRatio" | "strategy" | "collectorsEligible"> & Partial<Pick<RoleSummary, "unassignedReported">>>>;
    collectors: readonly Pick<CollectorRow, "role" | "node" | "inKubernetes" | "eligible" | "reason" | "inTa">[];
    /** the ghost targets' collectors are counted from these */
    targets?: readonly Pick<TargetRow, "role" | "class" | "collector">[];
    monitorCounts: Record<Ownership, number> | null;
    nodesWithoutCollector: readonly string[];
  };
  /** with discovered TAs: the strategy and fallback read from each TA's ConfigMap */
  discovery?: { found: readonly DiscoveredStrategy[] } | null;
}

/** ready = eligible; terminating; unscheduled = no node; not_ready = the rest. */
export function collectorState(c: Pick<CollectorRow, "node" | "eligible" | "reason">): CollectorState {
  if (c.eligible) return "ready";
  if (c.reason === "terminating") return "terminating";
  if (!c.node) return "unscheduled";
  return "not_ready";
}

/** `<cluster>/ta/per-node` -> `ta/per-node`: the cluster is its own label. */
export function sourceLabel(source: string, cluster: string): string {
  return source.startsWith(`${cluster}/`) ? source.slice(cluster.length + 1) : source;
}

/**
 * Every series of one cluster's snapshot; `taRequests` is the poller's per-role request count since start, `strategies`
 * what the cluster's TA entries state of their strategies (configuredStrategies()).
 */
export function deriveSeries(s: MetricsSnapshotLike, taRequests: Partial<Record<Role, number>> = {}, strategies: Partial<Record<Role, ConfiguredStrategy>> = {}): Series[] {
  const cluster = s.cluster;
  const out: Series[] = [];
  const push = (m: MetricSpec, labels: Record<string, string>, value: number) => out.push({ name: m.name, labels, value });
  for (const [role, r] of Object.entries(s.analysis.roles) as [Role, NonNullable<MetricsSnapshotLike["analysis"]["roles"][Role]>][]) {
    for (const cls of TARGET_CLASSES) push(DERIVED_METRICS.targets, { cluster, role, class: cls }, r.classes[cls]);
    if (r.unassigned !== null) push(DERIVED_METRICS.unassigned, { cluster, role }, r.unassigned);
    if (r.unassignedReported !== null && r.unassignedReported !== undefined) push(DERIVED_METRICS.unassignedReported, { cluster, role }, r.unassignedReported);
    if (r.localityRatio !== null) push(DERIVED_METRICS.locality, { cluster, role }, r.localityRatio);
    const states: Record<CollectorState, number> = { ready: 0, not_ready: 0, terminating: 0, unscheduled: 0 };
    for (const c of s.analysis.collectors) if (c.role === role && c.inKubernetes) states[collectorState(c)]++;
    for (const state of COLLECTOR_STATES) push(DERIVED_METRICS.collectors, { cluster, role, state }, states[state]);
  }
  for (const [key, n] of ghostsByCollector(s.analysis.targets ?? [])) {
    const [role, collector] = key.split("\u0000");
    push(DERIVED_METRICS.ghostTargets, { cluster, role, collector }, n);
  }
  if (s.analysis.monitorCounts) {
    for (const ownership of OWNERSHIPS) push(DERIVED_METRICS.monitors, { cluster, ownership }, s.analysis.monitorCounts[ownership]);
  }
  push(DERIVED_METRICS.nodesWithoutCollector, { cluster }, s.analysis.nodesWithoutCollector.length);
  for (const ring of taRings({ analysis: s.analysis, configured: strategies, discovered: s.discovery?.found })) {
    if (ring.uses !== "no") push(DERIVED_METRICS.ringHeadroom, { cluster, role: ring.role }, ring.headroom);
  }
  for (const src of s.sources) push(DERIVED_METRICS.sourceUp, { cluster, source: sourceLabel(src.source, cluster) }, src.state === "ok" ? 1 : 0);
  push(DERIVED_METRICS.pollDuration, { cluster }, s.pollMs / 1000);
  if (s.pollCpuMs !== undefined) push(DERIVED_METRICS.pollCpu, { cluster }, s.pollCpuMs / 1000);
  if (s.bytesLastPoll !== undefined) push(DERIVED_METRICS.pollBytes, { cluster }, s.bytesLastPoll);
  if (s.answersLastPoll) for (const path of ["scan", "parse"] as const) push(DERIVED_METRICS.pollAnswers, { cluster, path }, s.answersLastPoll[path]);
  if (s.analysisLongestSliceMs !== undefined) push(DERIVED_METRICS.analysisSlice, { cluster }, s.analysisLongestSliceMs / 1000);
  if (s.pollIntervalMs !== undefined) push(DERIVED_METRICS.pollInterval, { cluster }, s.pollIntervalMs / 1000);
  push(DERIVED_METRICS.lastPoll, { cluster }, s.at / 1000);
  for (const [role, n] of Object.entries(taRequests)) if (typeof n === "number") push(DERIVED_METRICS.taRequests, { cluster, role }, n);
  return out;
}

/** Ghost targets per `role \u0000 collector`, in the order first met. */
export function ghostsByCollector(targets: readonly Pick<TargetRow, "role" | "class" | "collector">[]): Map<string, number> {
  const by = new Map<string, number>();
  for (const t of targets) {
    if (t.class !== "ghost" || !t.collector) continue;
    const key = `${t.role}\u0000${t.collector}`;
    by.set(key, (by.get(key) ?? 0) + 1);
  }
  return by;
}

export function infoSeries(version: string): Series {
  return { name: DERIVED_METRICS.info.name, labels: { version }, value: 1 };
}

/**
 * The derived metrics registered on a registry. set() replaces every value at once (series of pods or sources that are gone
 * disappear); counters are written as their absolute value, which only the poller's own counts grow.
 * Metrics owned by others on the same registry (the churn counters) are left alone.
 */
export class DerivedMetrics {
  private readonly metrics = new Map<string, Gauge<string> | Counter<string>>();

  constructor(registry: Registry) {
    for (const m of Object.values(DERIVED_METRICS)) {
      const config = { name: m.name, help: m.help, labelNames: [...m.labelNames], registers: [registry] };
      this.metrics.set(m.name, m.type === "gauge" ? new Gauge(config) : new Counter(config));
    }
  }

  set(series: readonly Series[]): void {
    for (const m of this.metrics.values()) m.reset();
    for (const s of series) {
      const m = this.metrics.get(s.name);
      if (!m) throw new Error(`allocation-lens: ${s.name} is not a derived metric`);
      if (!Number.isFinite(s.value)) continue;
      if (m instanceof Gauge) m.set(s.labels, s.value);
      else m.inc(s.labels, Math.max(0, s.value));
    }
  }
}
