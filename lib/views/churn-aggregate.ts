/**
 * What the local history store answers for one churn query: per-bucket counts, the flapping ranking, the latest events,
 * the reassignment hot spots and the series, already aggregated (the SQLite store computes them in SQL, so a request never
 * reads the range's rows into JavaScript). `aggregateChurn` computes the same from rows: the memory store answers with
 * it, and it is the meaning the SQL must keep. Pure.
 */
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { bucketIndex, bucketStart, series, type Range, type SeriesPoint, type TimelineBucket } from "@/lib/analysis/churn-buckets";
import { mergeReassignments, type ReassignmentRecord, type ReassignmentTotals } from "@/lib/analysis/reassignments";
import { rankFlapping, type Flapper, type ReadinessEvent } from "@/lib/analysis/readiness";
import { EVENTS_SHOWN, narrowChurnRows, type ChurnFilter, type ChurnRows } from "@/lib/views/churn-rows";

/**
 * Reassignment records read for a view narrowed to a node or a pod (those are narrowed record by record in JavaScript):
 * the newest ones, about a day of 15 s polls that all moved targets. Beyond, the oldest are left out and the view says so.
 */
export const REASSIGNMENTS_READ = 5_000;
/** Collectors in the flapping ranking. */
export const FLAPPING_SHOWN = 20;

export interface BucketCount {
  bucket: number;
  role: Role;
  count: number;
}

export interface ChurnAggregateQuery extends Range, ChurnFilter {
  buckets: number;
  /** false: leave the series out (a Prometheus backend answers them) */
  series?: boolean;
}

export interface ChurnAggregate {
  /** readiness events per bucket index and role */
  readinessByBucket: BucketCount[];
  /** reassigned targets per bucket index and role */
  reassignmentsByBucket: BucketCount[];
  flapping: Flapper[];
  /** the latest readiness events, newest first, at most EVENTS_SHOWN */
  events: ReadinessEvent[];
  /** every readiness event in the range (counted, not read) */
  eventsInRange: number;
  reassignments: ReassignmentTotals;
  /** one point per bucket; empty when `series: false` */
  series: SeriesPoint[];
  /** narrowed to a node or pod, more than REASSIGNMENTS_READ records were in range: the oldest are left out */
  reassignmentsTruncated: boolean;
}

export const isFiltered = (f: ChurnFilter) => f.node !== undefined || f.pod !== undefined;

/** Counts per bucket index and role. */
export function countByBucket(range: Range, buckets: number, items: Iterable<{ at: number; role: Role; count?: number }>): BucketCount[] {
  const m = new Map<string, BucketCount>();
  for (const x of items) {
    const bucket = bucketIndex(x.at, range, buckets);
    if (bucket < 0) continue;
    const key = `${bucket} ${x.role}`;
    const cur = m.get(key);
    if (cur) cur.count += x.count ?? 1;
    else m.set(key, { bucket, role: x.role, count: x.count ?? 1 });
  }
  return [...m.values()];
}

function* roleCounts(records: readonly ReassignmentRecord[]) {
  for (const r of records) for (const role of ROLES) if (r.byRole[role]) yield { at: r.at, role, count: r.byRole[role]! };
}

/**
 * The aggregate of rows (readiness newest first, reassignments and polls oldest first, all within the range): what the
 * memory store answers, and the reference for the SQLite store's SQL.
 */
export function aggregateChurn(rows: ChurnRows, q: ChurnAggregateQuery): ChurnAggregate {
  const range = { from: q.from, to: q.to };
  let reassignmentsTruncated = false;
  let records = rows.reassignments;
  if (isFiltered(q) && records.length > REASSIGNMENTS_READ) {
    records = records.slice(records.length - REASSIGNMENTS_READ);
    reassignmentsTruncated = true;
  }
  const narrowed = narrowChurnRows({ readiness: rows.readiness, reassignments: records, polls: [] }, q);
  return {
    readinessByBucket: countByBucket(range, q.buckets, narrowed.readiness),
    reassignmentsByBucket: countByBucket(range, q.buckets, roleCounts(narrowed.reassignments)),
    flapping: rankFlapping(narrowed.readiness, FLAPPING_SHOWN),
    events: narrowed.readiness.slice(0, EVENTS_SHOWN),
    eventsInRange: narrowed.readiness.length,
    reassignments: mergeReassignments(narrowed.reassignments),
    series: q.series === false ? [] : series(range, q.buckets, rows.polls),
    reassignmentsTruncated,
  };
}

/** The timeline of per-bucket counts. */
export function timelineFromCounts(range: Range, buckets: number, readiness: readonly BucketCount[], reassignments: readonly BucketCount[]): TimelineBucket[] {
  const out: TimelineBucket[] = Array.from({ length: buckets }, (_, i) => ({ t: bucketStart(i, range, buckets), readiness: 0, reassignments: 0, byRole: {} }));
  for (const [counts, key] of [
    [readiness, "readiness"],
    [reassignments, "reassignments"],
  ] as const) {
    for (const c of counts) {
      const b = out[c.bucket];
      if (!b || !c.count) continue;
      b[key] += c.count;
      (b.byRole[c.role] ??= { readiness: 0, reassignments: 0 })[key] += c.count;
    }
  }
  return out;
}
