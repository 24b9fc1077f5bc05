/**
 * The overview's view (GET /api/v1/summary), reshaped once on the server from a snapshot, and every view's freshness. The
 * shapes are declared by their schemas in lib/api/schemas.ts.
 */
import type { Ownership, Role } from "@/lib/model";
import type { Freshness, NodeState, RoleSummary, SourceView, SummaryView } from "@/lib/api/schemas";

export type { Freshness, SourceView, SummaryView } from "@/lib/api/schemas";

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
