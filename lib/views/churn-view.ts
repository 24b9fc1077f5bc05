/**
 * Pure reshaping for the churn page's panels: the source badge and the local-only note, event labels, fixed UTC time and
 * number formats, and the role filter with what it hides. Range presets are in churn-ranges.ts, chart rows in
 * churn-charts.ts. Components only render what these return.
 */
import type { Role } from "@/lib/model";
import type { Flapper, ReadinessEvent, ReadinessKind } from "@/lib/analysis/readiness";
import type { ChurnSource } from "@/lib/views/churn-source";
import { spansDays, utcDate, utcMinute, utcTime } from "@/lib/format";

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
