/**
 * Per-node rows for the node map: each node's agent pods, its targets by class (the per-node agent's when there is one), what crosses node boundaries, and a state:
 * ghosts (its targets sit on a collector that cannot scrape), no_collector (targets but no eligible per-node collector),
 * degraded (its collector is not eligible and its targets are served elsewhere), healthy, idle (nothing to scrape).
 */
import type { Role } from "@/lib/model";
import { runToEnd, STEP_ROWS, type Steps } from "@/lib/steps";
import { emptyClassCounts, type AnalysisInput, type CollectorRow, type NodeRow, type TargetRow } from "@/lib/analysis/types";

export function buildNodes(input: AnalysisInput, collectors: readonly CollectorRow[], targets: readonly TargetRow[]): NodeRow[] {
  return runToEnd(buildNodesSteps(input, collectors, targets));
}

/** buildNodes as steps: yields every STEP_ROWS targets (see lib/steps.ts). */
export function* buildNodesSteps(input: AnalysisInput, collectors: readonly CollectorRow[], targets: readonly TargetRow[]): Steps<NodeRow[]> {
  const rows = new Map<string, NodeRow>();
  for (const n of input.nodes) {
    rows.set(n.name, {
      name: n.name,
      zone: n.zone,
      instanceType: n.instanceType,
      ready: n.ready,
      state: "idle",
      collectors: [],
      targets: emptyClassCounts(),
      scrapedElsewhere: 0,
      scrapedHereForOthers: 0,
      multiplePods: false,
    });
  }
  const perRoleOnNode = new Map<string, number>();
  for (const c of collectors) {
    if (!c.node || !c.inKubernetes) continue;
    const row = rows.get(c.node);
    if (!row) continue;
    row.collectors.push({ role: c.role, id: c.id, eligible: c.eligible, reason: c.reason });
    // Two pods of the per-node DaemonSet on one node is a rollout surge; cluster-scraper replicas may share a node.
    if (c.role !== "per-node") continue;
    perRoleOnNode.set(c.node, (perRoleOnNode.get(c.node) ?? 0) + 1);
    if ((perRoleOnNode.get(c.node) ?? 0) > 1) row.multiplePods = true;
  }
  // Locality is the per-node agent's promise: the cluster-scraper scrapes across nodes by design.
  const hasPerNode = Boolean(input.roles["per-node" as Role]);
  const counts = (t: TargetRow) => !hasPerNode || t.role === "per-node";
  for (let i = 0; i < targets.length; i++) {
    if (i % STEP_ROWS === STEP_ROWS - 1) yield;
    const t = targets[i];
    if (!counts(t)) continue;
    if (t.node) {
      const row = rows.get(t.node);
      if (row) {
        row.targets[t.class]++;
        if (t.collectorNode && t.collectorNode !== t.node) row.scrapedElsewhere++;
      }
    }
    if (t.collectorNode && t.collectorNode !== t.node) {
      const here = rows.get(t.collectorNode);
      if (here) here.scrapedHereForOthers++;
    }
  }
  for (const row of rows.values()) {
    const total = Object.values(row.targets).reduce((s, v) => s + v, 0);
    const perNode = row.collectors.filter((c) => c.role === "per-node");
    const eligiblePerNode = perNode.some((c) => c.eligible);
    if (row.targets.ghost > 0) row.state = "ghosts";
    else if (total === 0) row.state = "idle";
    else if (hasPerNode && !eligiblePerNode) row.state = perNode.length ? "degraded" : "no_collector";
    else row.state = row.scrapedElsewhere > 0 && hasPerNode ? "degraded" : "healthy";
  }
  return [...rows.values()].sort((a, b) => (a.zone ?? "").localeCompare(b.zone ?? "") || a.name.localeCompare(b.name));
}
