/**
 * Pure reshaping for the churn page's panels: the source badge and the local-only note, event labels, fixed UTC time and
 * number formats, and the role filter with what it hides. Range presets are in churn-ranges.ts, chart rows in
 * churn-charts.ts. Components only render what these return.
 */
import type { Role } from "@/lib/model";
import type { Flapper, ReadinessEvent, ReadinessKind } from "@/lib/analysis/readiness";
import type { ChurnSource } from "@/lib/views/churn-source";

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

const pad = (n: number) => String(n).padStart(2, "0");

/** "12:03:07" in UTC, whatever the browser's timezone. */
export function utcTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** "2026-03-01" in UTC. */
export function utcDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** "2026-03-01 12:03" in UTC (minutes), for range bounds. */
export const utcMinute = (ms: number) => `${utcDate(ms)} ${utcTime(ms).slice(0, 5)}`;

/** True when [from, to] crosses a UTC midnight: times then carry their date. */
export const spansDays = (from: number, to: number) => utcDate(from) !== utcDate(to);

/** Axis ticks: "12:03" within a day, "03-01 12:00" across days. */
export function axisTick(ms: number, multiDay: boolean): string {
  const hm = utcTime(ms).slice(0, 5);
  return multiDay ? `${utcDate(ms).slice(5)} ${hm}` : hm;
}

/** "12:03:07", or "03-01 12:03:07" when the range spans days (event times, tooltips). */
export const utcStamp = (ms: number, multiDay: boolean) => (multiDay ? `${utcDate(ms).slice(5)} ${utcTime(ms)}` : utcTime(ms));

/**
 * Shortens a name in the middle, keeping more of the end: pod names differ in their suffix
 * ("cloudwatch-agent-cluster-scraper-gxb48m75vq-qscv5", 26 -> "cloudwatch-ag…8m75vq-qscv5"). The full name goes in a title.
 */
export function middleEllipsis(s: string, max: number): string {
  if (s.length <= max || max < 5) return s;
  const tail = Math.ceil((max - 1) * 0.45);
  return `${s.slice(0, max - 1 - tail)}…${s.slice(s.length - tail)}`;
}

/** Axis numbers that fit 40 px: 950, 9.5k, 160k, 1.2M. */
export function compactNumber(n: number): string {
  const a = Math.abs(n);
  const fmt = (v: number, unit: string) => `${Number.isInteger(v) || v >= 10 ? Math.round(v) : v.toFixed(1).replace(/\.0$/, "")}${unit}`;
  if (a >= 1e6) return fmt(n / 1e6, "M");
  if (a >= 1e3) return fmt(n / 1e3, "k");
  return String(n);
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

export interface RoleFiltered<T> {
  shown: T[];
  hidden: number;
}

export function byRole<T extends { role: Role }>(items: readonly T[], role: Role | null): RoleFiltered<T> {
  if (role === null) return { shown: [...items], hidden: 0 };
  const shown = items.filter((x) => x.role === role);
  return { shown, hidden: items.length - shown.length };
}

export type { Flapper, ReadinessEvent };
