/**
 * The churn history's stored rows (readiness events, reassignment records, poll points) and their narrowing to one node
 * and/or collector pod. Pure; shared by the view (lib/views/churn.ts), the aggregate (lib/views/churn-aggregate.ts) and the
 * history stores.
 */
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import type { ReadinessEvent } from "@/lib/analysis/readiness";
import type { PollPoint } from "@/lib/analysis/poll-points";
import type { ReassignmentRecord, CollectorMove, TargetMove } from "@/lib/analysis/reassignments";

/** the latest readiness events a churn answer lists, newest first */
export const EVENTS_SHOWN = 200;

export interface ChurnFilter {
  node?: string;
  pod?: string;
}

/** Splits `n` like `weights` (largest remainder), so estimated parts still add up to `n`. */
function splitLike(n: number, weights: Partial<Record<Role, number>>): Partial<Record<Role, number>> {
  const total = ROLES.reduce((s, r) => s + (weights[r] ?? 0), 0);
  const out: Partial<Record<Role, number>> = {};
  if (n <= 0 || total <= 0) return out;
  const parts = ROLES.filter((r) => weights[r]).map((r) => ({ r, exact: (n * weights[r]!) / total }));
  let left = n;
  for (const p of parts) {
    out[p.r] = Math.floor(p.exact);
    left -= out[p.r]!;
  }
  for (const p of [...parts].sort((a, b) => (b.exact % 1) - (a.exact % 1)).slice(0, left)) out[p.r]! += 1;
  return out;
}

/**
 * One poll's reassignments narrowed to a node and/or a collector pod, or null when none is left. A record keeps exact
 * counts per node and per collector pair but a sample of the moves (SAMPLE_CAP), so: with `node` the total and by-node
 * counts are exact, pairs come from the sampled moves and the role split of moves the sample missed follows the whole
 * poll's; with `pod` the total, pairs and role split are exact and by-node counts come from the sampled moves.
 */
export function narrowReassignment(r: ReassignmentRecord, f: ChurnFilter): ReassignmentRecord | null {
  if (f.node === undefined && f.pod === undefined) return r;
  const sample = r.sample.filter((m) => (f.node === undefined || m.node === f.node) && (f.pod === undefined || m.from === f.pod || m.to === f.pod));
  let byNode = nodesOf(sample);
  let byCollector = pairsOf(sample);
  let byRole = rolesOf(byCollector);
  let total = sample.length;
  if (f.pod === undefined) {
    // node only: exact per-node count; moves the sample missed are split over roles like the whole poll's
    // (a node beyond the stored top list keeps what the sample saw of it)
    const stored = r.byNode.filter((n) => n.node === f.node);
    if (stored.length) byNode = stored;
    total = Math.max(sample.length, stored.reduce((s, n) => s + n.count, 0));
    const rest = splitLike(total - sample.length, r.byRole);
    for (const role of ROLES) if (rest[role]) byRole[role] = (byRole[role] ?? 0) + rest[role]!;
  } else if (f.node === undefined) {
    // pod only: exact pairs involving the pod, hence exact total and roles
    byCollector = r.byCollector.filter((m) => m.from === f.pod || m.to === f.pod);
    byRole = rolesOf(byCollector);
    total = byCollector.reduce((s, m) => s + m.count, 0);
  }
  if (total === 0) return null;
  return { at: r.at, total, byRole, byNode, byCollector, sample };
}

const byCount = <T extends { count: number }>(xs: T[]) => xs.sort((a, b) => b.count - a.count);

function nodesOf(moves: readonly TargetMove[]): { node: string | null; count: number }[] {
  const m = new Map<string | null, number>();
  for (const x of moves) m.set(x.node, (m.get(x.node) ?? 0) + 1);
  return byCount([...m].map(([node, count]) => ({ node, count })));
}

function pairsOf(moves: readonly TargetMove[]): CollectorMove[] {
  const m = new Map<string, CollectorMove>();
  for (const x of moves) {
    const key = `${x.role}\u0000${x.from}\u0000${x.to}`;
    const cur = m.get(key);
    if (cur) cur.count++;
    else m.set(key, { role: x.role, from: x.from, to: x.to, count: 1 });
  }
  return byCount([...m.values()]);
}

function rolesOf(pairs: readonly CollectorMove[]): Partial<Record<Role, number>> {
  const out: Partial<Record<Role, number>> = {};
  for (const p of pairs) out[p.role] = (out[p.role] ?? 0) + p.count;
  return out;
}

/** The rows of one node and/or collector pod: readiness events exactly, reassignments as narrowReassignment says. */
export function narrowChurnRows(rows: ChurnRows, f: ChurnFilter): ChurnRows {
  if (f.node === undefined && f.pod === undefined) return rows;
  return {
    readiness: rows.readiness.filter((e) => (f.node === undefined || e.node === f.node) && (f.pod === undefined || e.pod === f.pod)),
    reassignments: rows.reassignments.map((r) => narrowReassignment(r, f)).filter((r): r is ReassignmentRecord => r !== null),
    polls: rows.polls,
  };
}

export interface ChurnRows {
  /** newest first */
  readiness: readonly ReadinessEvent[];
  reassignments: readonly ReassignmentRecord[];
  polls: readonly PollPoint[];
}
