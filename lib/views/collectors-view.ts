/**
 * Pure reshaping for the Collectors view (components/collectors): eligibility of each collector as the chart colours it,
 * the targets-per-collector histogram used above MANY_COLLECTORS, the imbalance verdict per strategy, and the table's
 * text filter and sort.
 */
import type { CollectorRow } from "@/lib/analysis/types";

/** The failing sources this view depends on: TAs, agent pods and nodes (not the monitor CRDs). */
export function collectorSources<T extends { source: string }>(stale: readonly T[]): T[] {
  return stale.filter((x) => !/\/kube\/(service|pod)monitors$/.test(x.source));
}

/** Above this many collectors a role shows a histogram and its top/bottom EXTREMES instead of one bar per collector. */
export const MANY_COLLECTORS = 60;
export const EXTREMES = 20;

/** How a collector is coloured: listed by the TA and eligible; listed but not eligible (its targets are ghosts); not listed. */
export type Eligibility = "eligible" | "not_eligible" | "not_in_ta";
export const ELIGIBILITIES: readonly Eligibility[] = ["eligible", "not_eligible", "not_in_ta"] as const;
export const ELIGIBILITY_LABEL: Record<Eligibility, string> = {
  eligible: "eligible",
  not_eligible: "in TA, not eligible",
  not_in_ta: "not in TA",
};

export function eligibilityOf(c: Pick<CollectorRow, "inTa" | "eligible">): Eligibility {
  if (!c.inTa) return "not_in_ta";
  return c.eligible ? "eligible" : "not_eligible";
}

export function countByEligibility(rows: readonly CollectorRow[]): Record<Eligibility, number> {
  const out: Record<Eligibility, number> = { eligible: 0, not_eligible: 0, not_in_ta: 0 };
  for (const r of rows) out[eligibilityOf(r)]++;
  return out;
}

export interface HistogramBin extends Record<Eligibility, number> {
  /** inclusive bounds of targets per collector */
  from: number;
  to: number;
  label: string;
  total: number;
}

/** Bins of targets per collector (integer bounds, at most `maxBins`), each counting collectors by eligibility. */
export function histogram(rows: readonly CollectorRow[], maxBins = 24): HistogramBin[] {
  if (!rows.length) return [];
  let min = Infinity;
  let max = -Infinity;
  for (const r of rows) {
    min = Math.min(min, r.targets);
    max = Math.max(max, r.targets);
  }
  const width = Math.max(1, Math.ceil((max - min + 1) / maxBins));
  const bins: HistogramBin[] = [];
  for (let from = min; from <= max; from += width) {
    const to = from + width - 1;
    bins.push({ from, to, label: width === 1 ? String(from) : `${from}–${to}`, total: 0, eligible: 0, not_eligible: 0, not_in_ta: 0 });
  }
  for (const r of rows) {
    const b = bins[Math.floor((r.targets - min) / width)];
    b[eligibilityOf(r)]++;
    b.total++;
  }
  return bins;
}

const byTargetsDesc = (a: CollectorRow, b: CollectorRow) => b.targets - a.targets || a.id.localeCompare(b.id);

/** The `n` busiest and the `n` idlest collectors (idlest first in `bottom`); they never overlap. */
export function extremes(rows: readonly CollectorRow[], n = EXTREMES): { top: CollectorRow[]; bottom: CollectorRow[] } {
  const sorted = [...rows].sort(byTargetsDesc);
  const top = sorted.slice(0, n);
  const bottom = sorted.slice(Math.max(n, sorted.length - n)).reverse();
  return { top, bottom };
}

export interface Stats {
  collectors: number;
  mean: number | null;
  min: number | null;
  max: number | null;
}

/** Targets per collector over the collectors the imbalance is computed on (eligible and listed by the TA). */
export function eligibleStats(rows: readonly CollectorRow[]): Stats {
  const counts = rows.filter((r) => eligibilityOf(r) === "eligible").map((r) => r.targets);
  if (!counts.length) return { collectors: 0, mean: null, min: null, max: null };
  return { collectors: counts.length, mean: counts.reduce((s, x) => s + x, 0) / counts.length, min: Math.min(...counts), max: Math.max(...counts) };
}

/** Same thresholds as the load-imbalance diagnostic: upstream's consistent hashing bounds load near 1.1x the mean. */
export const IMBALANCE_WARN = 1.25;
export const IMBALANCE_BAD = 2;
export const IMBALANCE_MIN_MEAN = 5;

export type Tone = "ok" | "warn" | "bad" | "muted";

export interface Verdict {
  tone: Tone;
  label: string;
  /** a few words for compact layouts */
  short: string;
  /** what good looks like for this strategy */
  explanation: string;
}

const HASHING_GOOD = "Targets are hashed over the collectors, so a good spread has max/mean close to 1 and a small CV (below about 0.2).";

/** Reads the imbalance figures for the strategy: per-node imbalance follows the workloads and is expected. */
export function imbalanceVerdict(strategy: string | null, imbalance: { maxOverMean: number | null; cv: number | null }, stats: Stats): Verdict {
  if (strategy === "per-node") {
    return {
      tone: "muted",
      label: "expected",
      short: "per-node load follows the workloads on each node",
      explanation:
        "Each collector scrapes the targets of its own node, so its load follows the workloads on that node: imbalance here is expected. Look for busy nodes whose collector has nothing instead.",
    };
  }
  const explanation =
    strategy === "least-weighted"
      ? "Each new target goes to the collector with the fewest, so counts should stay within a few targets of each other (CV near 0)."
      : strategy === "consistent-hashing"
        ? HASHING_GOOD
        : `Unknown strategy${strategy ? ` "${strategy}"` : ""}: for a hashing strategy max/mean should be close to 1 and CV small.`;
  const m = imbalance.maxOverMean;
  if (m === null || stats.collectors < 2) {
    return { tone: "muted", label: "n/a", short: "fewer than two eligible collectors", explanation: `${explanation} Fewer than two eligible collectors hold targets.` };
  }
  if ((stats.mean ?? 0) < IMBALANCE_MIN_MEAN) {
    const short = `under ${IMBALANCE_MIN_MEAN} targets per collector: noise`;
    return { tone: "muted", label: "too few targets", short, explanation: `${explanation} With under ${IMBALANCE_MIN_MEAN} targets per collector the figures are noise.` };
  }
  if (m >= IMBALANCE_BAD) return { tone: "bad", label: "skewed", short: "the busiest collector has twice the mean or more", explanation };
  if (m >= IMBALANCE_WARN) return { tone: "warn", label: "uneven", short: `max/mean above ${IMBALANCE_WARN}`, explanation };
  return { tone: "ok", label: "balanced", short: "close to the mean everywhere", explanation };
}

export type CollectorSortKey = "id" | "role" | "node" | "zone" | "phase" | "restarts" | "targets";
export const COLLECTOR_SORT_KEYS: readonly CollectorSortKey[] = ["targets", "restarts", "id", "role", "node", "zone", "phase"] as const;
export type SortDir = "asc" | "desc";

/**
 * Search tokens that select one disagreement exactly (the view's "show in table" links use them):
 * `not_in_ta`, `not_eligible`, `ta_only` (listed by the TA, unknown to Kubernetes).
 */
export function disagreementTokens(r: CollectorRow): string[] {
  const out: string[] = [eligibilityOf(r)];
  if (r.inTa && !r.inKubernetes) out.push("ta_only");
  return out;
}

/** Keeps rows whose id, node, zone, phase, role, eligibility or reason text contains every term of `q` (case-insensitive). */
export function filterCollectors(rows: readonly CollectorRow[], q: string): CollectorRow[] {
  const terms = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (!terms.length) return [...rows];
  return rows.filter((r) => {
    const text = [r.id, r.role, r.node ?? "", r.zone ?? "", r.phase ?? "", ELIGIBILITY_LABEL[eligibilityOf(r)], r.reason ?? "", ...disagreementTokens(r)]
      .join(" ")
      .toLowerCase();
    return terms.every((t) => text.includes(t));
  });
}

/**
 * Short labels for chart ticks: the ids without their longest common prefix, cut at a "-" so a name segment stays whole
 * (`cloudwatch-agent-z2dd6` -> `z2dd6`). A single id, or ids without a shared "-"-prefix, stay as they are.
 */
export function shortIds(ids: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (ids.length < 2) {
    for (const id of ids) out.set(id, id);
    return out;
  }
  let prefix = ids[0];
  for (const id of ids) {
    let i = 0;
    while (i < prefix.length && i < id.length && prefix[i] === id[i]) i++;
    prefix = prefix.slice(0, i);
  }
  const cut = prefix.lastIndexOf("-") + 1;
  for (const id of ids) out.set(id, cut > 0 && id.length > cut ? id.slice(cut) : id);
  return out;
}

export function sortCollectors(rows: readonly CollectorRow[], key: CollectorSortKey, dir: SortDir): CollectorRow[] {
  const sign = dir === "asc" ? 1 : -1;
  const value = (r: CollectorRow): string | number => {
    if (key === "targets" || key === "restarts") return r[key];
    return r[key] ?? "";
  };
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
    return c * sign || a.role.localeCompare(b.role) || a.id.localeCompare(b.id);
  });
}

/** One sentence for screen readers: how many collectors, the range of targets, how many are not eligible or not in the TA. */
export function chartSummary(rows: readonly CollectorRow[]): string {
  if (!rows.length) return "No collectors.";
  const c = countByEligibility(rows);
  const sorted = [...rows].sort(byTargetsDesc);
  const top = sorted[0];
  const low = sorted[sorted.length - 1];
  const parts = [
    `${rows.length} collector${rows.length === 1 ? "" : "s"}`,
    `most targets: ${top.id} with ${top.targets}`,
    `fewest: ${low.id} with ${low.targets}`,
    `${c.eligible} eligible`,
  ];
  if (c.not_eligible) parts.push(`${c.not_eligible} in the TA but not eligible`);
  if (c.not_in_ta) parts.push(`${c.not_in_ta} not in the TA`);
  return `Targets per collector: ${parts.join(", ")}.`;
}
