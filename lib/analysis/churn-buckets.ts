/**
 * Time buckets over a range for the churn view: which bucket an instant falls into, the timeline of readiness events and
 * reassignments per bucket and role, and the series of poll summaries per bucket. Pure.
 */
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import type { SeriesPoint, TimelineBucket } from "@/lib/api/schemas";
import type { PollPoint } from "@/lib/analysis/poll-points";

/** The API's shapes (lib/api/schemas.ts). */
export type { SeriesPoint, TimelineBucket } from "@/lib/api/schemas";

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
