/** The churn page's chart rows: timeline counts per role from the API's buckets, locality/ghost/unassigned series. Pure. */
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { percentValue } from "@/lib/format";
import { LOCALITY_EXPECTED, LOCALITY_NOT_EXPECTED_WHY } from "@/lib/views/role-card";
import type { SeriesPoint, TimelineBucket } from "@/lib/analysis/churn-buckets";

export interface TimelineRow {
  t: number;
  /** bucket end, for the tooltip */
  end: number;
  ready_pn: number;
  ready_cs: number;
  moves_pn: number;
  moves_cs: number;
}

/** One row per bucket, counts per role; with `role`, the other role's counts are zero. */
export function timelineRows(buckets: readonly TimelineBucket[], to: number, role: Role | null): TimelineRow[] {
  const keep = (r: Role) => role === null || role === r;
  return buckets.map((b, i) => ({
    t: b.t,
    end: i + 1 < buckets.length ? buckets[i + 1].t : to,
    ready_pn: keep("per-node") ? (b.byRole["per-node"]?.readiness ?? 0) : 0,
    ready_cs: keep("cluster-scraper") ? (b.byRole["cluster-scraper"]?.readiness ?? 0) : 0,
    moves_pn: keep("per-node") ? (b.byRole["per-node"]?.reassignments ?? 0) : 0,
    moves_cs: keep("cluster-scraper") ? (b.byRole["cluster-scraper"]?.reassignments ?? 0) : 0,
  }));
}

export interface TimelineTotals {
  readiness: number;
  reassignments: number;
}

export function timelineTotals(rows: readonly TimelineRow[]): TimelineTotals {
  let readiness = 0;
  let reassignments = 0;
  for (const r of rows) {
    readiness += r.ready_pn + r.ready_cs;
    reassignments += r.moves_pn + r.moves_cs;
  }
  return { readiness, reassignments };
}

export interface SeriesRow {
  t: number;
  /** percent, null without data */
  locality_pn: number | null;
  locality_cs: number | null;
  ghosts: number | null;
  unassigned: number | null;
}

export function seriesRows(points: readonly SeriesPoint[]): SeriesRow[] {
  return points.map((p) => ({
    t: p.t,
    locality_pn: percentValue(p.localityRatio["per-node"]),
    locality_cs: percentValue(p.localityRatio["cluster-scraper"]),
    ghosts: p.ghosts,
    unassigned: p.unassigned,
  }));
}

/** Indexes of points with no neighbour: a line draws nothing there, so the chart marks them with a dot. */
export function isolatedPoints(rows: readonly SeriesRow[], key: Exclude<keyof SeriesRow, "t">): Set<number> {
  const has = (i: number) => i >= 0 && i < rows.length && rows[i][key] !== null;
  const out = new Set<number>();
  rows.forEach((_, i) => {
    if (has(i) && !has(i - 1) && !has(i + 1)) out.add(i);
  });
  return out;
}

/** Roles that have at least one locality point (a cluster may run one TA). */
export function seriesRoles(points: readonly SeriesPoint[]): Role[] {
  return ROLES.filter((r) => points.some((p) => p.localityRatio[r] !== undefined));
}

export interface LocalityLines {
  /** roles drawn as a line: those whose locality is a goal (per-node) */
  charted: Role[];
  /** roles with a locality series that the chart leaves out (the cluster-scraper) */
  left: Role[];
  /** the legend's words for the roles left out; null when none is */
  legend: string | null;
  /** why they are left out, in a sentence; null when none is */
  why: string | null;
}

/**
 * The locality chart's lines. The cluster-scraper's targets are cluster-level endpoints, not on its own node, so its
 * locality is naturally near 0%: a line there would read as an alarm (and would pull the axis down to 0%, flattening the
 * per-node line). It is left out, and the legend says so and why.
 */
export function localityLines(roles: readonly Role[]): LocalityLines {
  const charted = roles.filter((r) => LOCALITY_EXPECTED[r]);
  const left = roles.filter((r) => !LOCALITY_EXPECTED[r]);
  if (!left.length) return { charted, left, legend: null, why: null };
  const names = left.join(" and ");
  return { charted, left, legend: `${names}: not charted`, why: `Locality is not expected for the ${names}: ${LOCALITY_NOT_EXPECTED_WHY}.` };
}
