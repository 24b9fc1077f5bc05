/**
 * The overview's view (GET /api/v1/summary), reshaped once on the server from a snapshot, and every view's freshness. The
 * shapes are declared by their schemas in lib/api/schemas.ts.
 */
import type { Role } from "@/lib/model";
import type { Analysis } from "@/lib/analysis/types";
import type { Freshness, NodeState, RoleDetails, SourceView, SummaryView } from "@/lib/api/schemas";
import { eligibleStats } from "@/lib/views/collectors-view";
import { targetsByZone } from "@/lib/views/node-flow";
import { nodesViewFor } from "@/lib/views/nodes";
import { roleOwnership } from "@/lib/views/ownership-view";

export type { Freshness, RoleDetails, SourceView, SummaryView } from "@/lib/api/schemas";

/** A snapshot without its analysis (what freshness reads). */
interface SnapshotHead {
  cluster: string;
  at: number;
  pollIntervalMs: number;
  sources: SourceView[];
}

interface SnapshotLike extends SnapshotHead {
  analysis: Analysis;
}

/** A source status reshaped to the view (a snapshot's statuses carry more fields, e.g. lastAttempt). */
const sourceView = ({ source, state, lastSuccess, latencyMs, error }: SourceView): SourceView => ({ source, state, lastSuccess, latencyMs, error });

export function freshness(s: SnapshotHead): Freshness {
  return { at: s.at, pollIntervalMs: s.pollIntervalMs, stale: s.sources.filter((x) => x.state === "stale" || x.state === "error").map(sourceView) };
}

/**
 * Each role's monitors by ownership state, targets per eligible collector and targets by zone: the same figures as the
 * Ownership view's role filter, the Collectors view's statistics and the Nodes view's zone flow (computed once per poll and
 * shared with that view).
 */
export function roleDetails(a: Analysis, fresh: Freshness): Partial<Record<Role, RoleDetails>> {
  const flows = nodesViewFor(a, fresh).zoneFlowsByRole;
  const out: Partial<Record<Role, RoleDetails>> = {};
  for (const role of Object.keys(a.roles) as Role[]) {
    const { collectors, min, max, mean } = eligibleStats(a.collectors.filter((c) => c.role === role));
    out[role] = {
      monitors: a.monitors ? roleOwnership(a.monitors, role) : null,
      perCollector: { collectors, min, max, mean },
      zones: targetsByZone(flows[role] ?? []),
    };
  }
  return out;
}

export function toSummaryView(s: SnapshotLike): SummaryView {
  const byState: Record<NodeState, number> = { healthy: 0, degraded: 0, no_collector: 0, ghosts: 0, idle: 0 };
  for (const n of s.analysis.nodes) byState[n.state]++;
  const fresh = freshness(s);
  return {
    ...fresh,
    cluster: s.cluster,
    roles: s.analysis.roles,
    roleDetails: roleDetails(s.analysis, fresh),
    monitors: s.analysis.monitorCounts,
    nodes: { total: s.analysis.nodes.length, byState, multiplePods: s.analysis.nodes.filter((n) => n.multiplePods).length },
    duplicates: s.analysis.duplicates.length,
    sources: s.sources.map(sourceView),
  };
}
