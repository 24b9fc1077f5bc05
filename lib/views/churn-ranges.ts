/**
 * The churn page's time range: the presets offered (the longer ones only with a Prometheus backend), the range a URL asks
 * for (preset or custom from/to), and the datetime-local input values. Pure.
 */
import { utcDate, utcTime } from "@/lib/format";

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
