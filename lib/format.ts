/**
 * Every number, percentage, byte size, duration, time and role title the UI shows, formatted in one place (pure, no I/O,
 * the same output in the browser and on the server whatever their locale or timezone). Times are UTC and say so.
 */
import type { Role } from "@/lib/model";

// ---------------------------------------------------------------------------------------------------------------- numbers

/** One formatter for thousands of labels: toLocaleString builds a new one on every call, which shows at 5,000 nodes. */
const COUNT = new Intl.NumberFormat("en-US");

/** "12,345"; `missing` (default "n/a") for null or undefined. */
export function formatCount(v: number | null | undefined, missing = "n/a"): string {
  return v === null || v === undefined || Number.isNaN(v) ? missing : COUNT.format(v);
}

/** "1.25" with exactly `digits` decimals; `missing` (default "n/a") for null or undefined. */
export function formatDecimal(v: number | null | undefined, digits: number, missing = "n/a"): string {
  return v === null || v === undefined || Number.isNaN(v) ? missing : v.toFixed(digits);
}

/** "12 targets", "1 target": the count and the noun in the number it needs. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** Axis numbers that fit 40 px: 950, 9.5k, 160k, 1.2M. */
export function compactNumber(n: number): string {
  const a = Math.abs(n);
  const fmt = (v: number, unit: string) => `${Number.isInteger(v) || v >= 10 ? Math.round(v) : v.toFixed(1).replace(/\.0$/, "")}${unit}`;
  if (a >= 1e6) return fmt(n / 1e6, "M");
  if (a >= 1e3) return fmt(n / 1e3, "k");
  return String(n);
}

// ------------------------------------------------------------------------------------------------------------ percentages

/**
 * A ratio in [0, 1] as a percentage: "25.0%" (one decimal, or `digits`), exactly "0%" and "100%" at the ends, and never
 * "0%" or "100%" for a value that is neither ("<0.1%", ">99.9%"; "<1%", ">99%" with no decimal). Null is "n/a".
 */
export function formatPercent(ratio: number | null | undefined, digits = 1): string {
  if (ratio === null || ratio === undefined || Number.isNaN(ratio)) return "n/a";
  if (ratio <= 0) return "0%";
  if (ratio >= 1) return "100%";
  const step = 10 ** -digits;
  const text = (ratio * 100).toFixed(digits);
  if (Number(text) <= 0) return `<${step.toFixed(digits)}%`;
  if (Number(text) >= 100) return `>${(100 - step).toFixed(digits)}%`;
  return `${text}%`;
}

/** `part / whole` as a percentage (see formatPercent); "n/a" when the whole is 0. */
export const formatShare = (part: number, whole: number, digits = 1): string => (whole ? formatPercent(part / whole, digits) : "n/a");

/** A ratio as a number of percent with one decimal, for charts (0.9876 -> 98.8); null stays null. */
export const percentValue = (ratio: number | null | undefined): number | null => (ratio === null || ratio === undefined ? null : Math.round(ratio * 1000) / 10);

/** A CSS length for a part of a bar: "37.5%". */
export const cssPercent = (part: number, whole = 1): string => `${whole ? (part / whole) * 100 : 0}%`;

// ------------------------------------------------------------------------------------------------------------------ bytes

const BYTE_UNITS = ["KiB", "MiB", "GiB", "TiB"] as const;

/** "512 B", "1.5 KiB", "1.8 MiB", "12 GiB" (binary units, one decimal under 10). */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return "n/a";
  if (Math.abs(n) < 1024) return `${Math.round(n)} B`;
  let v = n / 1024;
  let unit = 0;
  while (Math.abs(v) >= 1024 && unit < BYTE_UNITS.length - 1) {
    v /= 1024;
    unit++;
  }
  return `${Math.abs(v) < 10 ? v.toFixed(1).replace(/\.0$/, "") : Math.round(v)} ${BYTE_UNITS[unit]}`;
}

// -------------------------------------------------------------------------------------------------------------- durations

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A precise duration: "850 ms", "1.5 s", "12 s", "4 min 10 s", "2 h 5 min", "3 d 4 h". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  const a = Math.max(0, ms);
  if (a < SECOND) return `${Math.round(a)} ms`;
  if (a < 10 * SECOND) return `${(a / SECOND).toFixed(1).replace(/\.0$/, "")} s`;
  if (a < MINUTE) return `${Math.round(a / SECOND)} s`;
  const two = (big: number, bigUnit: string, small: number, smallUnit: string) => {
    const hi = Math.floor(a / big);
    const lo = Math.floor((a - hi * big) / small);
    return lo ? `${hi} ${bigUnit} ${lo} ${smallUnit}` : `${hi} ${bigUnit}`;
  };
  if (a < HOUR) return two(MINUTE, "min", SECOND, "s");
  if (a < DAY) return two(HOUR, "h", MINUTE, "min");
  return two(DAY, "d", HOUR, "h");
}

/** An elapsed time in whole units, as an age reads: "4 s", "12 min", "3 h", "2 d" (rounded down past a minute). */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.round(ms / SECOND));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

/** A relative time: "12 s ago", "3 min ago". */
export const formatAgo = (at: number, now: number): string => `${formatElapsed(now - at)} ago`;

// ------------------------------------------------------------------------------------------------------------------ times

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
export const utcMinute = (ms: number): string => `${utcDate(ms)} ${utcTime(ms).slice(0, 5)}`;

/** True when [from, to] crosses a UTC midnight: times then carry their date. */
export const spansDays = (from: number, to: number): boolean => utcDate(from) !== utcDate(to);

/** Axis ticks: "12:03" within a day, "03-01 12:00" across days. */
export function axisTick(ms: number, multiDay: boolean): string {
  const hm = utcTime(ms).slice(0, 5);
  return multiDay ? `${utcDate(ms).slice(5)} ${hm}` : hm;
}

/** "12:03:07", or "03-01 12:03:07" when the range spans days (event times, tooltips). */
export const utcStamp = (ms: number, multiDay: boolean): string => (multiDay ? `${utcDate(ms).slice(5)} ${utcTime(ms)}` : utcTime(ms));

/** A time of day that names its zone, for sentences: "12:03:07 UTC". */
export const clockTime = (ms: number): string => `${utcTime(ms)} UTC`;

/** The full instant, for tooltips: "2026-03-01T12:03:07.000Z". */
export const isoTime = (ms: number): string => new Date(ms).toISOString();

// ------------------------------------------------------------------------------------------------------------ role titles

/** What the UI calls each agent role, as a title ("Per-node agent") and as a short label ("Per-node"). */
export const ROLE_TITLE: Record<Role, string> = { "per-node": "Per-node agent", "cluster-scraper": "Cluster-scraper agent" };
export const ROLE_SHORT: Record<Role, string> = { "per-node": "Per-node", "cluster-scraper": "Cluster-scraper" };

/** The roles in a sentence: "per-node and cluster-scraper agents", "per-node agent". */
export function rolesPhrase(roles: readonly Role[]): string {
  if (roles.length === 0) return "no agent";
  if (roles.length === 1) return ROLE_TITLE[roles[0]].toLowerCase();
  return `${roles.join(" and ")} agents`;
}
