/**
 * Pure reshaping for the churn page: time-range presets, fixed UTC time formats, chart rows from the churn API's buckets,
 * and the role filter with what it hides. Components only render what these return.
 */
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import type { CollectorMove, Flapper, ReadinessEvent, ReadinessKind, SeriesPoint, TimelineBucket } from "@/lib/analysis/churn";
import type { ChurnSource } from "@/lib/views/churn-source";
import { percentValue, spansDays, utcDate, utcMinute, utcTime } from "@/lib/format";

export const RANGE_KEYS = ["15m", "1h", "6h", "24h", "7d", "30d"] as const;
export type RangeKey = (typeof RANGE_KEYS)[number];

const MIN = 60_000;
const HOUR = 60 * MIN;

export const RANGES: Record<RangeKey, { ms: number; label: string; phrase: string; buckets: number }> = {
  "15m": { ms: 15 * MIN, label: "15 min", phrase: "the last 15 minutes", buckets: 60 },
  "1h": { ms: HOUR, label: "1 h", phrase: "the last hour", buckets: 60 },
  "6h": { ms: 6 * HOUR, label: "6 h", phrase: "the last 6 hours", buckets: 72 },
  "24h": { ms: 24 * HOUR, label: "24 h", phrase: "the last 24 hours", buckets: 96 },
  "7d": { ms: 7 * 24 * HOUR, label: "7 d", phrase: "the last 7 days", buckets: 84 },
  "30d": { ms: 30 * 24 * HOUR, label: "30 d", phrase: "the last 30 days", buckets: 90 },
};
/** 30 d only when a Prometheus-compatible backend holds the history (the local store keeps 7 days by default). */
export const PROMETHEUS_ONLY_RANGES: readonly RangeKey[] = ["30d"];

/** The presets offered: the longer ones only with a Prometheus backend configured. */
export function rangeKeys(prometheus: boolean): RangeKey[] {
  return RANGE_KEYS.filter((k) => prometheus || !PROMETHEUS_ONLY_RANGES.includes(k));
}
export const DEFAULT_RANGE: RangeKey = "1h";
export const CUSTOM_BUCKETS = 60;

/** The next larger preset offered (the empty state's action), or null from the largest. */
export function widerRange(key: RangeKey, prometheus = false): RangeKey | null {
  const keys = rangeKeys(prometheus);
  const i = keys.indexOf(key);
  return i >= 0 && i < keys.length - 1 ? keys[i + 1] : null;
}

export interface SourceLine {
  text: string;
  /** the full story, for a title */
  title: string;
  tone: "info" | "muted" | "warn";
}

/** `https://mimir.example.com/prometheus` -> `mimir.example.com`. */
const hostOf = (endpoint: string) => endpoint.replace(/^[a-z]+:\/\//i, "").split("/")[0];

/** The badge near the range picker: which source answered the timeline, series and flapping ranking. Null: nothing to say. */
export function sourceLine(s: ChurnSource | undefined): SourceLine | null {
  if (!s || !s.prometheus) return null;
  const { endpoint } = s.prometheus;
  if (s.answered === "prometheus") return { text: `from Prometheus at ${hostOf(endpoint)}`, title: `Timeline, series and flapping from ${endpoint}; events and hot spots from local history`, tone: "info" };
  if (s.fallback) return { text: "local history: Prometheus failed", title: s.error?.message ?? `${endpoint} failed`, tone: "warn" };
  return { text: "local history", title: `The range is within local history; older ranges are read from ${endpoint}`, tone: "muted" };
}

/**
 * What the panels that always read the local store (events, hot spots) cover, when Prometheus answered the rest: a short
 * text for the panel header and the full story for its title; null when local history covers the whole range.
 */
export function localOnlyNote(s: ChurnSource | undefined, from: number, to: number): { text: string; title: string } | null {
  if (!s || s.answered !== "prometheus") return null;
  if (s.localFrom === null) return { text: "no local history", title: "Events and reassignment details come from local history, which holds none of this range" };
  if (s.localFrom <= from) return null;
  return {
    text: `local since ${spansDays(s.localFrom, to) ? utcDate(s.localFrom).slice(5) + " " : ""}${utcTime(s.localFrom).slice(0, 5)}`,
    title: `Events and reassignment details come from local history, which starts at ${utcMinute(s.localFrom)} UTC (Prometheus holds no such series)`,
  };
}

/** Milliseconds since the epoch or an ISO 8601 time (as the API accepts), else null. */
export function parseInstant(v: string | null | undefined): number | null {
  if (!v) return null;
  const t = v.trim();
  const ms = /^\d+$/.test(t) ? Number(t) : /^\d{4}-\d{2}-\d{2}/.test(t) ? Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(t) ? t : `${t}Z`) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

/** `to: null`: up to the server's now. */
export type ChurnRangeRequest = { kind: "preset"; key: RangeKey; last: number; buckets: number } | { kind: "custom"; from: number; to: number | null; buckets: number };

/**
 * What to ask the API for: a valid custom from/to wins over the preset (`from` alone: up to now; `to` alone: the preset's
 * span up to it). Deterministic, so it can be a query key.
 */
export function rangeRequest(key: RangeKey, from: string | null, to: string | null): ChurnRangeRequest {
  const f = parseInstant(from);
  const t = parseInstant(to);
  if (f !== null && (t === null || f < t)) return { kind: "custom", from: f, to: t, buckets: CUSTOM_BUCKETS };
  if (f === null && t !== null) return { kind: "custom", from: t - RANGES[key].ms, to: t, buckets: CUSTOM_BUCKETS };
  return { kind: "preset", key, last: RANGES[key].ms, buckets: RANGES[key].buckets };
}

/** "2026-03-01T12:03" (UTC) for a datetime-local input, and back. */
export const toInputValue = (ms: number) => `${utcDate(ms)}T${utcTime(ms).slice(0, 5)}`;
export const fromInputValue = (v: string) => parseInstant(v);

/**
 * Shortens a name in the middle, keeping more of the end: pod names differ in their suffix
 * ("cloudwatch-agent-cluster-scraper-gxb48m75vq-qscv5", 26 -> "cloudwatch-ag…8m75vq-qscv5"). The full name goes in a title.
 */
export function middleEllipsis(s: string, max: number): string {
  if (s.length <= max || max < 5) return s;
  const tail = Math.ceil((max - 1) * 0.45);
  return `${s.slice(0, max - 1 - tail)}…${s.slice(s.length - tail)}`;
}

export const KIND_LABEL: Record<ReadinessKind, string> = {
  became_ready: "became ready",
  became_not_ready: "became not ready",
  added: "added",
  deleted: "deleted",
};
export const KIND_TONE: Record<ReadinessKind, "ok" | "bad" | "info" | "muted"> = {
  became_ready: "ok",
  became_not_ready: "bad",
  added: "info",
  deleted: "muted",
};

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

export interface RoleFiltered<T> {
  shown: T[];
  hidden: number;
}

export function byRole<T extends { role: Role }>(items: readonly T[], role: Role | null): RoleFiltered<T> {
  if (role === null) return { shown: [...items], hidden: 0 };
  const shown = items.filter((x) => x.role === role);
  return { shown, hidden: items.length - shown.length };
}

export type { CollectorMove, Flapper, ReadinessEvent };
