/**
 * The churn view (GET /api/v1/churn): query parameters (zod) and the answer (narrowing to a node or pod: lib/views/churn-rows.ts), reshaped once on
 * the server from the history store's aggregate. The answer's shape is declared by its schema in lib/api/schemas.ts.
 */
import { z } from "zod";
import { series, type Range } from "@/lib/analysis/churn-buckets";
import type { ChurnSource, ChurnView, Freshness } from "@/lib/api/schemas";
import { timelineFromCounts, type ChurnAggregate } from "@/lib/views/churn-aggregate";
import { EVENTS_SHOWN, type ChurnFilter } from "@/lib/views/churn-rows";
import { churnSourceSchema, type ChurnSourceParam } from "@/lib/views/churn-source";

export type { ChurnTruncated, ChurnView } from "@/lib/api/schemas";

export const DEFAULT_RANGE_MS = 3_600_000;
/** The longest relative window `last` accepts: a year (the range is then clamped to maxChurnRangeMs). */
export const MAX_LAST_MS = 366 * 86_400_000;
const DAY_MS = 86_400_000;
/** The earliest instant `from`/`to` accept: 2000-01-01T00:00:00Z (nothing older was ever recorded). */
export const EARLIEST_MS = Date.UTC(2000, 0, 1);
/** How far `to` may lie after the server's clock: an hour (clock skew between a browser and the server). */
export const MAX_FUTURE_MS = 3_600_000;
/** The longest range asked of a Prometheus-compatible backend (unless the local retention is longer). */
export const PROMETHEUS_MAX_RANGE_MS = 30 * DAY_MS;
/** Bounds of `buckets`. */
export const MAX_BUCKETS = 1000;

/**
 * The longest range one churn request covers: the local retention, or 30 days (at least) when a Prometheus backend holds
 * the history. A longer range is clamped (`from` moves forward) and the view says so (`truncated.range`).
 */
export function maxChurnRangeMs(history: { retentionDays: number; prometheus?: unknown }): number {
  const local = Math.ceil(history.retentionDays * DAY_MS);
  return history.prometheus ? Math.max(local, PROMETHEUS_MAX_RANGE_MS) : local;
}

const iso = (ms: number) => new Date(ms).toISOString();
const MAX_DATE_MS = 8.64e15;

/** Milliseconds since the epoch, or an ISO 8601 time, from 2000-01-01 on. */
const instant = z
  .string()
  .trim()
  .max(40, { message: "expected milliseconds since the epoch or an ISO 8601 time (at most 40 characters)" })
  .transform((v, ctx) => {
    const ms = /^\d{1,16}$/.test(v) ? Number(v) : /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : NaN;
    if (!Number.isFinite(ms) || Math.abs(ms) > MAX_DATE_MS) {
      ctx.addIssue({ code: "custom", message: `expected milliseconds since the epoch or an ISO 8601 time (got ${JSON.stringify(v)})` });
      return z.NEVER;
    }
    if (ms < EARLIEST_MS) {
      ctx.addIssue({ code: "custom", message: `expected a time from ${iso(EARLIEST_MS)} on (got ${iso(ms)})` });
      return z.NEVER;
    }
    return ms;
  });

const BUCKETS_MESSAGE = `expected a whole number from 1 to ${MAX_BUCKETS}`;

export const churnQuerySchema = z.object({
  cluster: z.string().min(1).optional(),
  from: instant.optional(),
  to: instant.optional(),
  buckets: z
    .string()
    .regex(/^\d{1,4}$/, { message: BUCKETS_MESSAGE })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: BUCKETS_MESSAGE }).max(MAX_BUCKETS, { message: BUCKETS_MESSAGE }))
    .optional(),
  /** a window ending at `to` (default: the latest poll), in milliseconds; used when `from` is absent (no client clock involved) */
  last: z
    .string()
    .regex(/^\d{1,11}$/, { message: `expected a whole number of milliseconds from 1 to ${MAX_LAST_MS}` })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: `expected a whole number of milliseconds from 1 to ${MAX_LAST_MS}` }).max(MAX_LAST_MS, { message: `expected a whole number of milliseconds from 1 to ${MAX_LAST_MS}` }))
    .optional(),
  /** only this node's collectors (readiness) and targets (reassignments) */
  node: z.string().min(1).max(253).optional(),
  /** only this collector pod */
  pod: z.string().min(1).max(253).optional(),
  /** who answers: `auto` (default: Prometheus when configured and the range starts before local history), `local` or `prometheus` */
  source: churnSourceSchema.optional(),
});

export interface ChurnQuery {
  cluster: string | undefined;
  from: number;
  to: number;
  buckets: number;
  node?: string;
  pod?: string;
  /** absent: auto */
  source?: ChurnSourceParam;
  /** true when the range was longer than the maximum: `from` was moved forward */
  clamped?: true;
}

export interface ChurnParseOptions {
  /**
   * Where a range without `to` ends: the latest poll's time, so that every request of one poll normalises to the same
   * range (and shares one cached answer). Default `now`.
   */
  anchor?: number;
  /** the longest range (maxChurnRangeMs); longer ones are clamped. Default MAX_LAST_MS */
  maxRangeMs?: number;
}

/**
 * Parses `?cluster=&from=&to=&buckets=&last=&node=&pod=&source=`; the error names the parameter. Defaults: the last hour (or `last`
 * milliseconds) up to the anchor (the latest poll, else `now`), 60 buckets, every node and pod. `to` may not lie more
 * than MAX_FUTURE_MS after `now`; a range longer than `maxRangeMs` is clamped to its last `maxRangeMs`.
 */
export function parseChurnQuery(
  params: URLSearchParams,
  now: number,
  options: ChurnParseOptions = {},
): { ok: true; query: ChurnQuery } | { ok: false; param: string; message: string } {
  const input: Record<string, string> = {};
  for (const key of ["cluster", "from", "to", "buckets", "last", "node", "pod", "source"]) {
    const v = params.get(key);
    if (v !== null && v !== "") input[key] = v;
  }
  const r = churnQuerySchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    const param = String(issue.path[0] ?? "query");
    return { ok: false, param, message: `${param}: ${issue.message}` };
  }
  const anchor = Math.min(options.anchor ?? now, now);
  const maxRangeMs = options.maxRangeMs ?? MAX_LAST_MS;
  const latest = now + MAX_FUTURE_MS;
  for (const key of ["from", "to"] as const) {
    const v = r.data[key];
    if (v !== undefined && v > latest) return { ok: false, param: key, message: `${key}: at most ${MAX_FUTURE_MS / 60_000} minutes after the server's time (${iso(now)}), got ${iso(v)}` };
  }
  // an open range (`from` only) that starts after the latest poll ends now rather than at the poll
  const to = r.data.to ?? (r.data.from !== undefined && r.data.from >= anchor ? now : anchor);
  let from = r.data.from ?? to - (r.data.last ?? DEFAULT_RANGE_MS);
  if (from >= to) return { ok: false, param: "from", message: `from: must be before to (${iso(from)} is not before ${iso(to)})` };
  const query: ChurnQuery = { cluster: r.data.cluster, from, to, buckets: r.data.buckets ?? 60 };
  if (to - from > maxRangeMs) {
    from = to - maxRangeMs;
    query.from = from;
    query.clamped = true;
  }
  if (r.data.node !== undefined) query.node = r.data.node;
  if (r.data.pod !== undefined) query.pod = r.data.pod;
  if (r.data.source !== undefined) query.source = r.data.source;
  return { ok: true, query };
}

/** The cache key of a parsed query: equal for every request that gets the same answer at one poll. */
export function churnQueryKey(q: ChurnQuery): string {
  return JSON.stringify([q.from, q.to, q.buckets, q.node ?? null, q.pod ?? null, q.source ?? "auto", q.clamped === true]);
}

/** The source of a view answered by the local store alone (no backend configured, or none asked for). */
export const LOCAL_SOURCE: ChurnSource = { requested: "auto", answered: "local", prometheus: null, fallback: false, error: null, localFrom: null };

/**
 * The view, from the store's aggregate (lib/views/churn-aggregate.ts). With `fromPrometheus`, its timeline, series and
 * flapping ranking replace the local ones (the backend holds those series); the events list and the reassignment details
 * always come from the local store, which covers the part of the range it holds (`source.localFrom`).
 */
export function toChurnView(
  freshness: Freshness,
  cluster: string,
  query: Range & { buckets: number; clamped?: boolean } & ChurnFilter,
  backend: ChurnView["backend"],
  local: ChurnAggregate,
  source: ChurnSource = LOCAL_SOURCE,
  fromPrometheus?: Pick<ChurnView, "timeline" | "series" | "flapping">,
): ChurnView {
  const range = { from: query.from, to: query.to };
  return {
    ...freshness,
    cluster,
    from: range.from,
    to: range.to,
    source,
    backend,
    timeline: fromPrometheus?.timeline ?? timelineFromCounts(range, query.buckets, local.readinessByBucket, local.reassignmentsByBucket),
    flapping: fromPrometheus?.flapping ?? local.flapping,
    events: local.events.slice(0, EVENTS_SHOWN),
    eventsInRange: local.eventsInRange,
    reassignments: local.reassignments,
    series: fromPrometheus?.series ?? (local.series.length === query.buckets ? local.series : series(range, query.buckets, [])),
    filter: { node: query.node ?? null, pod: query.pod ?? null },
    truncated: { range: query.clamped === true, reassignments: local.reassignmentsTruncated },
  };
}
