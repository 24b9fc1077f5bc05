/**
 * Churn (docs/ARCHITECTURE.md): collector readiness transitions, from pod watch events, and target reassignments, targets
 * whose collector changed between two consecutive snapshots. Pure: the history store (server/history) records what these
 * compute and the churn view (lib/views/churn.ts) aggregates it with the helpers at the end of this file.
 */
import type { PodView, Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { ineligibleReason, podViewFromObject } from "@allocation-lens/allocation/eligibility";
import type { Analysis, ClassCounts, TargetRow } from "@/lib/analysis/types";

/** Readiness is judged strictly (Running, Ready, not terminating, scheduled), as ghosts are: no grace period. */
const STRICT = "cloudwatch" as const;

export type ReadinessKind = "became_ready" | "became_not_ready" | "added" | "deleted";
export type PodEventType = "add" | "update" | "delete";

export interface ReadinessEvent {
  at: number;
  role: Role;
  pod: string;
  node: string | null;
  /** eligible after the event (false for a deleted pod) */
  ready: boolean;
  kind: ReadinessKind;
  /** why the pod is not eligible after the event, null when it is */
  reason: string | null;
}

function transitionOf(previous: { ready: boolean } | undefined, view: PodView, role: Role, at: number, type: PodEventType): ReadinessEvent | null {
  const node = view.nodeName || null;
  const why = ineligibleReason(view, STRICT, at);
  if (type === "delete") return { at, role, pod: view.name, node, ready: false, kind: "deleted", reason: why ?? "deleted" };
  const ready = why === null;
  if (previous === undefined) return { at, role, pod: view.name, node, ready, kind: "added", reason: why };
  if (previous.ready === ready) return null;
  return { at, role, pod: view.name, node, ready, kind: ready ? "became_ready" : "became_not_ready", reason: why };
}

/**
 * The transition one pod event makes, or null. `previous` is what was known of the pod before (undefined: never seen, so an
 * add or update is an appearance). A delete is always a transition.
 */
export function readinessTransition(
  previous: { ready: boolean } | undefined,
  podObj: unknown,
  role: Role,
  at: number,
  type: PodEventType = previous === undefined ? "add" : "update",
): ReadinessEvent | null {
  return transitionOf(previous, podViewFromObject(podObj), role, at, type);
}

/**
 * Follows agent pods through informer events and says which events are readiness transitions. Until `baselineDone(role)`,
 * events only record state: the informer's initial list is not churn. After it, an `update` of a pod never seen is recorded
 * silently too (its `add` happened before we listened); a real newcomer always arrives as an `add`.
 */
export class ReadinessTracker {
  private readonly pods = new Map<string, { ready: boolean; node: string | null }>();
  private readonly baselined = new Set<Role>();

  observe(e: { at: number; role: Role; type: PodEventType; pod: unknown }): ReadinessEvent | null {
    const view = podViewFromObject(e.pod);
    const key = `${e.role}\u0000${view.name}`;
    const previous = this.pods.get(key);
    if (e.type === "delete") {
      this.pods.delete(key);
      return this.baselined.has(e.role) ? transitionOf(previous, view, e.role, e.at, "delete") : null;
    }
    const event = transitionOf(previous, view, e.role, e.at, e.type);
    this.pods.set(key, { ready: event ? event.ready : previous!.ready, node: view.nodeName || null });
    if (!this.baselined.has(e.role) || (previous === undefined && e.type === "update")) return null;
    return event;
  }

  /** Records pods known from elsewhere (a snapshot) without events; pods already followed keep their state. */
  seed(role: Role, pods: readonly { name: string; ready: boolean; node: string | null }[]): void {
    for (const p of pods) {
      const key = `${role}\u0000${p.name}`;
      if (!this.pods.has(key)) this.pods.set(key, { ready: p.ready, node: p.node });
    }
  }

  baselineDone(role?: Role): void {
    for (const r of role ? [role] : ROLES) this.baselined.add(r);
  }

  isBaselined(role: Role): boolean {
    return this.baselined.has(role);
  }

  get size(): number {
    return this.pods.size;
  }
}

export interface CollectorMove {
  role: Role;
  from: string;
  to: string;
  count: number;
}

export interface TargetMove {
  role: Role;
  job: string;
  address: string;
  node: string | null;
  from: string;
  to: string;
}

export interface AssignmentDiff {
  total: number;
  byRole: Partial<Record<Role, number>>;
  /** by the target's node (null: nodeless), most moves first */
  byNode: { node: string | null; count: number }[];
  /** from -> to collector pairs, most moves first */
  byCollector: CollectorMove[];
  /** the first `sampleCap` moves, in snapshot order */
  sample: TargetMove[];
}

export const SAMPLE_CAP = 100;

/**
 * Targets (keyed by role, job and address) whose collector changed from `prev` to `next`. Targets that appear or disappear
 * are not reassignments; no previous snapshot means no reassignments. One Map over `prev`, one pass over `next`.
 */
export function diffAssignments(prev: readonly TargetRow[] | undefined, next: readonly TargetRow[], sampleCap = SAMPLE_CAP): AssignmentDiff {
  const diff: AssignmentDiff = { total: 0, byRole: {}, byNode: [], byCollector: [], sample: [] };
  if (!prev || prev.length === 0) return diff;
  // Nested maps rather than one map of concatenated keys: job and address strings are shared by the rows and keep their
  // hash, so no key string is built (about 5x faster at 150,000 targets).
  const before = new Map<Role, Map<string, Map<string, string>>>();
  for (const t of prev) {
    let jobs = before.get(t.role);
    if (!jobs) before.set(t.role, (jobs = new Map()));
    let addresses = jobs.get(t.job);
    if (!addresses) jobs.set(t.job, (addresses = new Map()));
    addresses.set(t.address, t.collector);
  }
  const byNode = new Map<string | null, number>();
  const byPair = new Map<string, CollectorMove>();
  for (const t of next) {
    const from = before.get(t.role)?.get(t.job)?.get(t.address);
    if (from === undefined || from === t.collector) continue;
    diff.total++;
    diff.byRole[t.role] = (diff.byRole[t.role] ?? 0) + 1;
    byNode.set(t.node, (byNode.get(t.node) ?? 0) + 1);
    const pair = `${t.role}\u0000${from}\u0000${t.collector}`;
    const move = byPair.get(pair);
    if (move) move.count++;
    else byPair.set(pair, { role: t.role, from, to: t.collector, count: 1 });
    if (diff.sample.length < sampleCap) diff.sample.push({ role: t.role, job: t.job, address: t.address, node: t.node, from, to: t.collector });
  }
  diff.byNode = [...byNode].map(([node, count]) => ({ node, count })).sort((a, b) => b.count - a.count || cmp(a.node, b.node));
  diff.byCollector = [...byPair.values()].sort((a, b) => b.count - a.count || cmp(a.from, b.from) || cmp(a.to, b.to));
  return diff;
}

const cmp = (a: string | null, b: string | null) => (a ?? "").localeCompare(b ?? "");

/** Keeps the `top` largest entries of the per-node and per-pair lists (what is stored per poll). */
export function capDiff(d: AssignmentDiff, top: number): AssignmentDiff {
  return { ...d, byNode: d.byNode.slice(0, top), byCollector: d.byCollector.slice(0, top) };
}

/** One poll's summary, per role: what the churn view's series show. */
export interface RolePoint {
  targets: ClassCounts;
  unassigned: number | null;
  ghosts: number;
  localityRatio: number | null;
  collectorsReady: number;
  collectorsTotal: number;
}

export interface PollPoint {
  at: number;
  pollMs: number;
  roles: Partial<Record<Role, RolePoint>>;
}

export function pollPoint(analysis: Pick<Analysis, "roles">, at: number, pollMs: number): PollPoint {
  const roles: Partial<Record<Role, RolePoint>> = {};
  for (const role of ROLES) {
    const r = analysis.roles[role];
    if (!r) continue;
    roles[role] = {
      targets: { ...r.classes },
      unassigned: r.unassigned,
      ghosts: r.classes.ghost,
      localityRatio: r.localityRatio,
      collectorsReady: r.collectorsEligible,
      collectorsTotal: r.collectorsTotal,
    };
  }
  return { at, pollMs, roles };
}

/** A poll's reassignments as stored. */
export interface ReassignmentRecord extends AssignmentDiff {
  at: number;
}

// ---- aggregation for the churn view ----

export interface Range {
  from: number;
  to: number;
}

/** Index of the bucket `at` falls into, or -1 outside [from, to]. */
export function bucketIndex(at: number, range: Range, buckets: number): number {
  if (at < range.from || at > range.to) return -1;
  const span = range.to - range.from;
  if (span <= 0) return 0;
  return Math.min(buckets - 1, Math.floor(((at - range.from) * buckets) / span));
}

export const bucketStart = (i: number, range: Range, buckets: number) => range.from + Math.round(((range.to - range.from) * i) / buckets);

export interface TimelineBucket {
  t: number;
  readiness: number;
  reassignments: number;
  byRole: Partial<Record<Role, { readiness: number; reassignments: number }>>;
}

export function timeline(
  range: Range,
  buckets: number,
  readiness: readonly { at: number; role: Role }[],
  reassignments: readonly { at: number; byRole: Partial<Record<Role, number>> }[],
): TimelineBucket[] {
  const out: TimelineBucket[] = Array.from({ length: buckets }, (_, i) => ({ t: bucketStart(i, range, buckets), readiness: 0, reassignments: 0, byRole: {} }));
  const slot = (b: TimelineBucket, role: Role) => (b.byRole[role] ??= { readiness: 0, reassignments: 0 });
  for (const e of readiness) {
    const i = bucketIndex(e.at, range, buckets);
    if (i < 0) continue;
    out[i].readiness++;
    slot(out[i], e.role).readiness++;
  }
  for (const r of reassignments) {
    const i = bucketIndex(r.at, range, buckets);
    if (i < 0) continue;
    for (const role of ROLES) {
      const n = r.byRole[role] ?? 0;
      if (!n) continue;
      out[i].reassignments += n;
      slot(out[i], role).reassignments += n;
    }
  }
  return out;
}

export interface Flapper {
  pod: string;
  role: Role;
  node: string | null;
  /** readiness flips (became_ready + became_not_ready) in the range */
  transitions: number;
  lastAt: number;
}

/** Collectors with the most readiness flips, most first (ties: latest first). Appearances and deletions are not flapping. */
export function rankFlapping(events: readonly ReadinessEvent[], limit = 20): Flapper[] {
  const by = new Map<string, Flapper>();
  for (const e of events) {
    if (e.kind !== "became_ready" && e.kind !== "became_not_ready") continue;
    const key = `${e.role}\u0000${e.pod}`;
    const f = by.get(key);
    if (!f) by.set(key, { pod: e.pod, role: e.role, node: e.node, transitions: 1, lastAt: e.at });
    else {
      f.transitions++;
      if (e.at >= f.lastAt) Object.assign(f, { lastAt: e.at, node: e.node ?? f.node });
    }
  }
  return [...by.values()].sort((a, b) => b.transitions - a.transitions || b.lastAt - a.lastAt || a.pod.localeCompare(b.pod)).slice(0, limit);
}

export interface ReassignmentTotals {
  total: number;
  byNode: { node: string | null; count: number }[];
  byCollector: CollectorMove[];
  sample: (TargetMove & { at: number })[];
}

/** Sums stored per-poll reassignments: top `top` nodes and collector pairs, the newest `sampleCap` moves first. */
export function mergeReassignments(records: readonly ReassignmentRecord[], top = 20, sampleCap = SAMPLE_CAP): ReassignmentTotals {
  let total = 0;
  const byNode = new Map<string | null, number>();
  const byPair = new Map<string, CollectorMove>();
  for (const r of records) {
    total += r.total;
    for (const n of r.byNode) byNode.set(n.node, (byNode.get(n.node) ?? 0) + n.count);
    for (const m of r.byCollector) {
      const key = `${m.role}\u0000${m.from}\u0000${m.to}`;
      const cur = byPair.get(key);
      if (cur) cur.count += m.count;
      else byPair.set(key, { ...m });
    }
  }
  const sample: ReassignmentTotals["sample"] = [];
  for (const r of [...records].sort((a, b) => b.at - a.at)) {
    for (const m of r.sample) {
      if (sample.length >= sampleCap) break;
      sample.push({ ...m, at: r.at });
    }
    if (sample.length >= sampleCap) break;
  }
  return {
    total,
    byNode: [...byNode].map(([node, count]) => ({ node, count })).sort((a, b) => b.count - a.count || cmp(a.node, b.node)).slice(0, top),
    byCollector: [...byPair.values()].sort((a, b) => b.count - a.count || cmp(a.from, b.from) || cmp(a.to, b.to)).slice(0, top),
    sample,
  };
}

export interface SeriesPoint {
  t: number;
  /** mean over the bucket's polls, per role; null without data */
  localityRatio: Partial<Record<Role, number | null>>;
  /** worst (max) over the bucket's polls, summed over roles; null without data */
  ghosts: number | null;
  unassigned: number | null;
}

export function series(range: Range, buckets: number, points: readonly PollPoint[]): SeriesPoint[] {
  const acc = Array.from({ length: buckets }, () => ({ ratio: new Map<Role, { sum: number; n: number }>(), ghosts: null as number | null, unassigned: null as number | null, roles: new Set<Role>() }));
  for (const p of points) {
    const i = bucketIndex(p.at, range, buckets);
    if (i < 0) continue;
    const a = acc[i];
    let ghosts = 0;
    let unassigned: number | null = null;
    for (const role of ROLES) {
      const r = p.roles[role];
      if (!r) continue;
      a.roles.add(role);
      ghosts += r.ghosts;
      if (r.unassigned !== null) unassigned = (unassigned ?? 0) + r.unassigned;
      if (r.localityRatio !== null) {
        const s = a.ratio.get(role) ?? { sum: 0, n: 0 };
        s.sum += r.localityRatio;
        s.n++;
        a.ratio.set(role, s);
      }
    }
    a.ghosts = Math.max(a.ghosts ?? 0, ghosts);
    if (unassigned !== null) a.unassigned = Math.max(a.unassigned ?? 0, unassigned);
  }
  return acc.map((a, i) => {
    const localityRatio: Partial<Record<Role, number | null>> = {};
    for (const role of a.roles) {
      const s = a.ratio.get(role);
      localityRatio[role] = s ? s.sum / s.n : null;
    }
    return { t: bucketStart(i, range, buckets), localityRatio, ghosts: a.ghosts, unassigned: a.unassigned };
  });
}
