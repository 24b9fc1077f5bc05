/**
 * Pure reshaping for the diagnostics page: the status filter (`?status=fail,warn`), what it hides, the header's counts,
 * long evidence split into what shows and what folds away, and the link to the view that explains a check.
 */
import type { Check, CheckStatus } from "@/lib/analysis/diagnostics";
import { sortChecks } from "@/lib/views/diagnostics";

/** Display order of the statuses (sortChecks' order). */
export const STATUSES: readonly CheckStatus[] = ["fail", "warn", "unknown", "pass"];

/** The word next to each icon: status is never colour alone. */
export const STATUS_WORD: Record<CheckStatus, string> = { fail: "Fail", warn: "Warn", unknown: "Unknown", pass: "Pass" };
/** "n failing, n warning, ..." */
export const STATUS_COUNT_LABEL: Record<CheckStatus, string> = { fail: "failing", warn: "warning", unknown: "unknown", pass: "passing" };
export const STATUS_TONE: Record<CheckStatus, "bad" | "warn" | "muted" | "ok"> = { fail: "bad", warn: "warn", unknown: "muted", pass: "ok" };

export interface FilteredChecks {
  /** sorted: failures first */
  shown: Check[];
  /** checks the status filter hides */
  hidden: number;
}

/** An empty filter shows everything. */
export function filterChecks(checks: readonly Check[], statuses: readonly CheckStatus[]): FilteredChecks {
  const sorted = sortChecks(checks);
  if (!statuses.length) return { shown: sorted, hidden: 0 };
  const want = new Set(statuses);
  const shown = sorted.filter((c) => want.has(c.status));
  return { shown, hidden: sorted.length - shown.length };
}

/** "2 failing, 1 warning, 19 passing, 1 unknown" (every status, zeros included: the header keeps its shape). */
export function countsSentence(counts: Record<CheckStatus, number>): string {
  return (["fail", "warn", "pass", "unknown"] as const).map((s) => `${counts[s]} ${STATUS_COUNT_LABEL[s]}`).join(", ");
}

/** Everything is fine: no failure, warning or unknown, and at least one check. */
export const allPass = (counts: Record<CheckStatus, number>) => counts.pass > 0 && counts.fail + counts.warn + counts.unknown === 0;

/** The empty state of a filtered list: which statuses were asked for, in words. */
export function statusPhrase(statuses: readonly CheckStatus[]): string {
  const words = STATUSES.filter((s) => statuses.includes(s)).map((s) => STATUS_COUNT_LABEL[s]);
  if (words.length <= 1) return words[0] ?? "matching";
  return `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

export const EVIDENCE_SHOWN = 3;

/** The first `max` items show; the rest fold away behind "N more" (kept when only one would fold: no "1 more" button). */
export function splitEvidence(evidence: readonly string[], max = EVIDENCE_SHOWN): { shown: string[]; folded: string[] } {
  if (evidence.length <= max + 1) return { shown: [...evidence], folded: [] };
  return { shown: evidence.slice(0, max), folded: evidence.slice(max) };
}

/** Checks whose fix says there is nothing to do show no fix. */
export const hasFix = (c: Pick<Check, "fix">) => c.fix.trim() !== "" && !/^nothing to do\.?$/i.test(c.fix.trim());

export const VIEW_LABEL: Record<string, string> = {
  "/": "Overview",
  "/nodes": "Nodes",
  "/ownership": "Ownership",
  "/lost": "Lost",
  "/targets": "Targets",
  "/collectors": "Collectors",
  "/churn": "Churn",
  "/diagnostics": "Diagnostics",
};

/**
 * The link to the view that explains a check, keeping `keep` (cluster, theme), or null when the check points at this page
 * or at something that is not a dashboard path.
 */
export function checkViewHref(view: string, keep: URLSearchParams): { href: string; label: string } | null {
  const path = view.split("?")[0];
  if (!path.startsWith("/") || path.startsWith("//") || path === "/diagnostics") return null;
  const label = VIEW_LABEL[path];
  if (!label) return null;
  const q = new URLSearchParams(view.includes("?") ? view.slice(view.indexOf("?") + 1) : "");
  for (const [k, v] of keep) q.set(k, v);
  const s = q.toString();
  return { href: s ? `${path}?${s}` : path, label };
}
