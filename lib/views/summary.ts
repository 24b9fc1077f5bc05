/** The overview's view shape, reshaped once on the server from a snapshot. */
import type { Ownership, Role } from "@/lib/model";
import type { NodeState, RoleSummary } from "@/lib/analysis/types";
import type { SourceErrorInfo } from "@/lib/source-error";

export interface SourceView {
  source: string;
  state: "starting" | "ok" | "stale" | "error";
  lastSuccess: number | null;
  latencyMs: number | null;
  error: SourceErrorInfo | null;
}

export interface Freshness {
  /** when the data was computed (ms epoch) */
  at: number;
  pollIntervalMs: number;
  /** sources that failed at the last poll: their last good data is shown */
  stale: SourceView[];
}

export interface SummaryView extends Freshness {
  cluster: string;
  roles: Partial<Record<Role, RoleSummary>>;
  monitors: Record<Ownership, number> | null;
  nodes: { total: number; byState: Record<NodeState, number>; multiplePods: number };
  duplicates: number;
  sources: SourceView[];
}

interface SnapshotLike {
  cluster: string;
  at: number;
  pollIntervalMs: number;
  sources: SourceView[];
  analysis: {
    roles: Partial<Record<Role, RoleSummary>>;
    monitorCounts: Record<Ownership, number> | null;
    nodes: { state: NodeState; multiplePods: boolean }[];
    duplicates: unknown[];
  };
}

/** A source status reshaped to the view (a snapshot's statuses carry more fields, e.g. lastAttempt). */
const sourceView = ({ source, state, lastSuccess, latencyMs, error }: SourceView): SourceView => ({ source, state, lastSuccess, latencyMs, error });

export function freshness(s: SnapshotLike): Freshness {
  return { at: s.at, pollIntervalMs: s.pollIntervalMs, stale: s.sources.filter((x) => x.state === "stale" || x.state === "error").map(sourceView) };
}

export function toSummaryView(s: SnapshotLike): SummaryView {
  const byState: Record<NodeState, number> = { healthy: 0, degraded: 0, no_collector: 0, ghosts: 0, idle: 0 };
  for (const n of s.analysis.nodes) byState[n.state]++;
  return {
    ...freshness(s),
    cluster: s.cluster,
    roles: s.analysis.roles,
    monitors: s.analysis.monitorCounts,
    nodes: { total: s.analysis.nodes.length, byState, multiplePods: s.analysis.nodes.filter((n) => n.multiplePods).length },
    duplicates: s.analysis.duplicates.length,
    sources: s.sources.map(sourceView),
  };
}
