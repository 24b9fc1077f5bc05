/** The churn view: query parameters (zod) and the view shape, reshaped once on the server from the history store's rows. */
import { z } from "zod";
import {
  mergeReassignments,
  rankFlapping,
  series,
  timeline,
  type Flapper,
  type PollPoint,
  type Range,
  type ReadinessEvent,
  type ReassignmentRecord,
  type ReassignmentTotals,
  type SeriesPoint,
  type TimelineBucket,
} from "@/lib/analysis/churn";
import type { Freshness } from "@/lib/views/summary";

export const DEFAULT_RANGE_MS = 3_600_000;
export const EVENTS_SHOWN = 200;
/** Readiness events read for one view: enough for days of a crashlooping fleet; beyond, the oldest are left out. */
export const EVENTS_READ = 100_000;

/** Milliseconds since the epoch, or an ISO 8601 time. */
const instant = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const ms = /^\d+$/.test(v) ? Number(v) : /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : NaN;
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: "custom", message: `expected milliseconds since the epoch or an ISO 8601 time (got ${JSON.stringify(v.slice(0, 40))})` });
      return z.NEVER;
    }
    return ms;
  });

export const churnQuerySchema = z.object({
  cluster: z.string().min(1).optional(),
  from: instant.optional(),
  to: instant.optional(),
  buckets: z
    .string()
    .regex(/^\d+$/, { message: "expected a whole number from 1 to 1000" })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: "expected a whole number from 1 to 1000" }).max(1000, { message: "expected a whole number from 1 to 1000" }))
    .optional(),
});

export interface ChurnQuery {
  cluster: string | undefined;
  from: number;
  to: number;
  buckets: number;
}

/** Parses `?cluster=&from=&to=&buckets=`; the error names the parameter. Defaults: the last hour up to `now`, 60 buckets. */
export function parseChurnQuery(params: URLSearchParams, now: number): { ok: true; query: ChurnQuery } | { ok: false; param: string; message: string } {
  const input: Record<string, string> = {};
  for (const key of ["cluster", "from", "to", "buckets"]) {
    const v = params.get(key);
    if (v !== null && v !== "") input[key] = v;
  }
  const r = churnQuerySchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    const param = String(issue.path[0] ?? "query");
    return { ok: false, param, message: `${param}: ${issue.message}` };
  }
  const to = r.data.to ?? now;
  const from = r.data.from ?? to - DEFAULT_RANGE_MS;
  if (from >= to) return { ok: false, param: "from", message: `from: must be before to (${new Date(from).toISOString()} is not before ${new Date(to).toISOString()})` };
  return { ok: true, query: { cluster: r.data.cluster, from, to, buckets: r.data.buckets ?? 60 } };
}

export interface ChurnView extends Freshness {
  cluster: string;
  from: number;
  to: number;
  backend: { backend: "sqlite" | "memory"; error: string | null };
  timeline: TimelineBucket[];
  flapping: Flapper[];
  /** the latest readiness events of the range, newest first */
  events: ReadinessEvent[];
  /** readiness events read (capped at EVENTS_READ) */
  eventsInRange: number;
  reassignments: ReassignmentTotals;
  series: SeriesPoint[];
}

export interface ChurnRows {
  /** newest first */
  readiness: readonly ReadinessEvent[];
  reassignments: readonly ReassignmentRecord[];
  polls: readonly PollPoint[];
}

export function toChurnView(freshness: Freshness, cluster: string, query: Range & { buckets: number }, backend: ChurnView["backend"], rows: ChurnRows): ChurnView {
  const range = { from: query.from, to: query.to };
  return {
    ...freshness,
    cluster,
    from: range.from,
    to: range.to,
    backend,
    timeline: timeline(range, query.buckets, rows.readiness, rows.reassignments),
    flapping: rankFlapping(rows.readiness),
    events: rows.readiness.slice(0, EVENTS_SHOWN),
    eventsInRange: rows.readiness.length,
    reassignments: mergeReassignments(rows.reassignments),
    series: series(range, query.buckets, rows.polls),
  };
}
