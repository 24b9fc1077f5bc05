/**
 * "Unassigned and lost": per role, the live unassigned count next to the TA's own gauge, and the ghost targets (assigned
 * to a collector that is not eligible) grouped by that collector. Reshaped once on the server; pure.
 */
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import type { CollectorRow, RoleSummary, TargetRow } from "@/lib/analysis/types";
import type { Freshness, GhostGroup, LostRole, LostView } from "@/lib/api/schemas";

export type { GhostGroup, LostRole, LostView } from "@/lib/api/schemas";

interface AnalysisLike {
  cluster: string;
  roles: Partial<Record<Role, RoleSummary>>;
  collectors: readonly CollectorRow[];
  targets: readonly TargetRow[];
}

const NOT_A_POD = "not a pod in Kubernetes";

/** Ghost targets grouped by (role, collector), most targets first. */
export function groupGhosts(targets: readonly TargetRow[], collectors: readonly CollectorRow[]): GhostGroup[] {
  const facts = new Map(collectors.map((c) => [`${c.role}\u0000${c.id}`, c]));
  const groups = new Map<string, GhostGroup & { jobSet: Set<string>; nodeSet: Set<string> }>();
  for (const t of targets) {
    if (t.class !== "ghost") continue;
    const key = `${t.role}\u0000${t.collector}`;
    let g = groups.get(key);
    if (!g) {
      const c = facts.get(key);
      g = {
        role: t.role,
        collector: t.collector,
        node: c?.node ?? t.collectorNode,
        zone: c?.zone ?? t.collectorZone,
        reason: c?.reason ?? t.reason ?? NOT_A_POD,
        inKubernetes: c?.inKubernetes ?? false,
        phase: c?.phase ?? null,
        restarts: c?.restarts ?? 0,
        targets: 0,
        jobs: 0,
        targetNodes: 0,
        jobSet: new Set(),
        nodeSet: new Set(),
      };
      groups.set(key, g);
    }
    g.targets++;
    g.jobSet.add(t.job);
    if (t.node) g.nodeSet.add(t.node);
  }
  return [...groups.values()]
    .map(({ jobSet, nodeSet, ...g }) => ({ ...g, jobs: jobSet.size, targetNodes: nodeSet.size }))
    .sort((a, b) => b.targets - a.targets || a.role.localeCompare(b.role) || a.collector.localeCompare(b.collector));
}

export function toLostView(a: AnalysisLike, fresh: Freshness): LostView {
  const groups = groupGhosts(a.targets, a.collectors);
  const roles: LostRole[] = [];
  for (const role of ROLES) {
    const s = a.roles[role];
    if (!s) continue;
    const mine = groups.filter((g) => g.role === role);
    roles.push({
      role,
      flavor: s.flavor,
      taReady: s.taReady,
      unassigned: s.unassigned,
      unassignedReported: s.unassignedReported,
      reportedDiffers: s.unassigned !== null && s.unassignedReported !== null && s.unassigned !== s.unassignedReported,
      assigned: s.targets,
      ghosts: mine.reduce((n, g) => n + g.targets, 0),
      groups: mine,
    });
  }
  return { ...fresh, cluster: a.cluster, roles };
}

/** What the grouped list shows, given the role filter: the four panel states, decided here rather than in JSX. */
export type LostListState =
  | { kind: "groups"; groups: GhostGroup[]; targets: number }
  /** no ghost anywhere, and every TA answered */
  | { kind: "none" }
  /** the role filter hides every ghost */
  | { kind: "filtered"; hiddenTargets: number }
  /** no ghost among the TAs that answered, but some never did: their ghosts are unknown, not absent */
  | { kind: "unknown"; roles: Role[] };

export function lostListState(view: Pick<LostView, "roles">, role: Role | null): LostListState {
  const all = view.roles.flatMap((r) => r.groups);
  const shown = role ? all.filter((g) => g.role === role) : all;
  if (shown.length) return { kind: "groups", groups: shown, targets: shown.reduce((s, g) => s + g.targets, 0) };
  const unknown = view.roles.filter((r) => r.taReady === null && (!role || r.role === role)).map((r) => r.role);
  if (unknown.length) return { kind: "unknown", roles: unknown };
  if (all.length) return { kind: "filtered", hiddenTargets: all.reduce((s, g) => s + g.targets, 0) };
  return { kind: "none" };
}
