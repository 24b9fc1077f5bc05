/**
 * Prometheus answers (lib/prometheus/promql.ts queries) reshaped into the churn view's own shapes (lib/analysis/churn.ts):
 * the same bucket grid, the same field meanings, so the view does not care which source answered. Pure.
 *
 * The grid: bucket i covers [bucketStart(i), bucketStart(i+1)]; the range queries are evaluated at each bucket's END
 * (start = from + width, step = width), so the sample at t belongs to the bucket that ends at t.
 */
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { bucketStart, type Range, type SeriesPoint, type TimelineBucket } from "@/lib/analysis/churn-buckets";
import type { Flapper } from "@/lib/analysis/readiness";
import type { Matrix, Vector } from "@/lib/prometheus/schemas";

export interface RangeGrid {
  /** seconds since the epoch, as the Prometheus API takes them */
  start: number;
  end: number;
  step: number;
  /** the bucket width in milliseconds (the range selectors' window) */
  widthMs: number;
}

/** The query_range parameters of `buckets` buckets over `range`: one evaluation at the end of each bucket. */
export function rangeGrid(range: Range, buckets: number): RangeGrid {
  const widthMs = Math.max(1, Math.round((range.to - range.from) / buckets));
  return { start: (range.from + widthMs) / 1000, end: (range.from + widthMs * buckets) / 1000, step: widthMs / 1000, widthMs };
}

/** Index of the bucket that ends at `tSeconds` (an evaluation instant of rangeGrid), or -1 off the grid. */
export function bucketOf(tSeconds: number, range: Range, buckets: number, widthMs: number): number {
  const i = Math.round((tSeconds * 1000 - range.from) / widthMs) - 1;
  return i >= 0 && i < buckets ? i : -1;
}

const isRole = (v: string | undefined): v is Role => ROLES.includes(v as Role);

/** A sample value as a finite number, or null (NaN, ±Inf, garbage). */
function num(v: string): number | null {
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** A series' identity without its metric name (`A or B` mixes series with and without one). */
function replicaKey(metric: Record<string, string>): string {
  return JSON.stringify(Object.entries(metric).filter(([k]) => k !== "__name__").sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Per role, the count in each bucket from per-replica increments (one series per dashboard replica and role).
 * Replicas alive together see the same events, so their counts are not added: the running total is the max over replicas
 * of their cumulative counts, which, unlike a max per bucket, does not count twice a flip that two replicas scraped on
 * either side of a bucket edge. Replicas that follow each other (a dashboard pod replaced by a new one, a new `instance`)
 * must add up, so a series that first appears inside the range counts on top of the total reached before it appeared.
 * Increments are rounded (exact counter differences, but sample values are text).
 */
export function perRoleCounts(m: Matrix, range: Range, buckets: number): Map<Role, number[]> {
  const { widthMs } = rangeGrid(range, buckets);
  const replicas = new Map<string, { role: Role; steps: number[]; first: number }>();
  for (const s of m) {
    const role = s.metric.role;
    if (!isRole(role)) continue;
    const key = replicaKey(s.metric);
    let r = replicas.get(key);
    if (!r) replicas.set(key, (r = { role, steps: new Array<number>(buckets).fill(0), first: buckets }));
    for (const [t, v] of s.values) {
      const i = bucketOf(t, range, buckets, widthMs);
      const n = num(v);
      if (i < 0 || n === null) continue;
      r.steps[i] += Math.max(0, Math.round(n));
      r.first = Math.min(r.first, i);
    }
  }
  const byRole = new Map<Role, { steps: number[]; first: number }[]>();
  for (const r of replicas.values()) byRole.set(r.role, [...(byRole.get(r.role) ?? []), r]);
  const out = new Map<Role, number[]>();
  for (const [role, rs] of byRole) {
    const total = new Array<number>(buckets).fill(0);
    const offset = rs.map(() => 0);
    const cum = rs.map(() => 0);
    for (let i = 0; i < buckets; i++) {
      let t = i ? total[i - 1] : 0;
      rs.forEach((r, k) => {
        if (i < r.first) return;
        if (i === r.first) offset[k] = i ? total[i - 1] : 0;
        cum[k] += r.steps[i];
        t = Math.max(t, offset[k] + cum[k]);
      });
      total[i] = t;
    }
    out.set(role, total.map((x, i) => x - (i ? total[i - 1] : 0)));
  }
  return out;
}

/** Timeline buckets from the per-replica increments of the two churn counters (see perRoleCounts). */
export function timelineFromMatrices(range: Range, buckets: number, readiness: Matrix, reassignments: Matrix): TimelineBucket[] {
  const out: TimelineBucket[] = Array.from({ length: buckets }, (_, i) => ({ t: bucketStart(i, range, buckets), readiness: 0, reassignments: 0, byRole: {} }));
  const add = (m: Matrix, key: "readiness" | "reassignments") => {
    for (const [role, counts] of perRoleCounts(m, range, buckets)) {
      counts.forEach((count, i) => {
        if (count <= 0) return; // as the local timeline: a role's slot only where something happened
        const slot = (out[i].byRole[role] ??= { readiness: 0, reassignments: 0 });
        slot[key] += count;
        out[i][key] += count;
      });
    }
  };
  add(readiness, "readiness");
  add(reassignments, "reassignments");
  return out;
}

/** Per bucket and role, the value of a per-role matrix. */
function perBucket(m: Matrix, range: Range, buckets: number, widthMs: number): Map<Role, number>[] {
  const out = Array.from({ length: buckets }, () => new Map<Role, number>());
  for (const s of m) {
    const role = s.metric.role;
    if (!isRole(role)) continue;
    for (const [t, v] of s.values) {
      const i = bucketOf(t, range, buckets, widthMs);
      const n = num(v);
      if (i >= 0 && n !== null) out[i].set(role, n);
    }
  }
  return out;
}

/**
 * The locality / ghosts / unassigned series: locality is the mean per bucket per role; ghosts and unassigned are the worst
 * value per bucket of each role, summed over roles (the local store sums roles per poll, then takes the worst poll: with
 * two roles this can read higher when their worst moments differ). A bucket with no sample is null, as locally.
 */
export function seriesFromMatrices(range: Range, buckets: number, m: { locality: Matrix; ghosts: Matrix; unassigned: Matrix }): SeriesPoint[] {
  const { widthMs } = rangeGrid(range, buckets);
  const locality = perBucket(m.locality, range, buckets, widthMs);
  const ghosts = perBucket(m.ghosts, range, buckets, widthMs);
  const unassigned = perBucket(m.unassigned, range, buckets, widthMs);
  const sum = (x: Map<Role, number>) => (x.size ? [...x.values()].reduce((a, b) => a + b, 0) : null);
  return Array.from({ length: buckets }, (_, i) => {
    const localityRatio: Partial<Record<Role, number | null>> = {};
    for (const role of ROLES) {
      if (locality[i].has(role) || ghosts[i].has(role) || unassigned[i].has(role)) localityRatio[role] = locality[i].get(role) ?? null;
    }
    const g = sum(ghosts[i]);
    const u = sum(unassigned[i]);
    return { t: bucketStart(i, range, buckets), localityRatio, ghosts: g === null ? null : Math.round(g), unassigned: u === null ? null : Math.round(u) };
  });
}

/** The pods of the flapping query's answer, merged per pod (a pod seen unscheduled then on a node has two series). */
export function flappersFromVector(v: Vector): Omit<Flapper, "lastAt">[] {
  const by = new Map<string, Omit<Flapper, "lastAt">>();
  for (const s of v) {
    const role = s.metric.role;
    const pod = s.metric.pod;
    const n = num(s.value[1]);
    if (!isRole(role) || !pod || n === null) continue;
    const transitions = Math.round(n);
    if (transitions <= 0) continue;
    const key = `${role}\u0000${pod}`;
    const cur = by.get(key);
    const node = s.metric.node || null;
    if (cur) {
      cur.transitions += transitions;
      cur.node ??= node;
    } else by.set(key, { pod, role, node, transitions });
  }
  return [...by.values()];
}

/**
 * The flapping ranking: `lastAt` is the end of the last bucket in which the pod flipped (from the per-pod range query),
 * the range's end when that query saw nothing of it. Sorted as rankFlapping sorts.
 */
export function rankFlappers(pods: readonly Omit<Flapper, "lastAt">[], perBucket: Matrix, range: Range, limit = 20): Flapper[] {
  const last = new Map<string, number>();
  for (const s of perBucket) {
    const key = `${s.metric.role}\u0000${s.metric.pod}`;
    for (const [t, v] of s.values) {
      const n = num(v);
      if (n !== null && Math.round(n) > 0) last.set(key, Math.max(last.get(key) ?? 0, Math.round(t * 1000)));
    }
  }
  return pods
    .map((p) => ({ ...p, lastAt: Math.min(range.to, last.get(`${p.role}\u0000${p.pod}`) ?? range.to) }))
    .sort((a, b) => b.transitions - a.transitions || b.lastAt - a.lastAt || a.pod.localeCompare(b.pod))
    .slice(0, limit);
}
