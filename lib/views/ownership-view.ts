/**
 * Pure reshaping for the Ownership view (components/ownership): URL filters over MonitorRows, the role split as shares,
 * and which monitor CRD is missing or unreadable (from the stale sources of the snapshot).
 */
import type { Ownership, Role } from "@/lib/model";
import type { MonitorRow } from "@/lib/analysis/types";
import type { SourceView } from "@/lib/api/schemas";
import type { OwnershipView } from "@/lib/views/monitors";

/** Problems first, as the API sorts them. */
export const OWNERSHIP_STATES: readonly Ownership[] = ["double", "orphaned", "misrouted", "ok"] as const;

export interface MonitorFilter {
  states: readonly Ownership[];
  q: string;
  role: Role | null;
}

export const isFiltered = (f: MonitorFilter) => f.states.length > 0 || f.q.trim() !== "" || f.role !== null;

/** How the overview names each state. */
export const OWNERSHIP_LABEL: Record<Ownership, string> = { ok: "owned once", double: "double-scraped", orphaned: "orphaned", misrouted: "misrouted" };

/** Each state's colour (badges, chips, counts): problems red or amber. */
export const OWNERSHIP_TONE: Record<Ownership, "ok" | "bad" | "warn"> = { ok: "ok", double: "bad", orphaned: "bad", misrouted: "warn" };

export const OWNERSHIP_HELP: Record<Ownership, string> = {
  ok: "scraped once, by the TA its annotation routes it to",
  double: "jobs of it in both TAs: every target is scraped twice",
  orphaned: "in neither TA: nothing scrapes it",
  misrouted: "only in the other TA: scraped once, by the wrong agent",
};

/** A monitor involves a role when its annotation routes it there or that role's TA holds it (the view's role filter). */
export const involvesRole = (m: Pick<MonitorRow, "expectedRole" | "holders">, role: Role): boolean => m.expectedRole === role || m.holders.includes(role);

/** The monitors that involve `role`, by ownership state: what the view lists with `?role=` and that state. */
export function roleOwnership(rows: readonly MonitorRow[], role: Role): Record<Ownership, number> {
  const counts: Record<Ownership, number> = { ok: 0, double: 0, orphaned: 0, misrouted: 0 };
  for (const m of rows) if (involvesRole(m, role)) counts[m.ownership]++;
  return counts;
}

/** The Ownership view's URL filtered to `role` (and one state), keeping the other parameters of `query` (`?cluster=`). */
export function ownershipHref(query: string, role: Role, state?: Ownership): string {
  const p = new URLSearchParams(query);
  p.set("role", role);
  if (state) p.set("ownership", state);
  return `/ownership?${p}`;
}

/** The text a search matches: kind, namespace/name, the recognised annotation keys with their values and the job names. */
export function monitorText(m: MonitorRow): string {
  return [m.kind, `${m.namespace}/${m.name}`, ...m.scraperAnnotations.map((a) => `${a.key}=${a.value}`), ...m.jobs].join(" ").toLowerCase();
}

/**
 * Keeps rows whose state is one of `states` (all when empty), that involve `role` (expected to go there, or held
 * there), and whose text contains every whitespace-separated term of `q` (case-insensitive).
 */
export function filterMonitors(rows: readonly MonitorRow[], f: MonitorFilter): MonitorRow[] {
  const terms = f.q.toLowerCase().split(/\s+/).filter(Boolean);
  const states = new Set(f.states);
  return rows.filter((m) => {
    if (states.size && !states.has(m.ownership)) return false;
    if (f.role && !involvesRole(m, f.role)) return false;
    if (!terms.length) return true;
    const text = monitorText(m);
    return terms.every((t) => text.includes(t));
  });
}

export interface SplitPart {
  role: Role;
  monitors: number;
  targets: number;
  /** 0..1 of the monitor holdings of every role (a double-scraped monitor counts in both) */
  monitorShare: number;
  /** 0..1 of the assigned targets of every role */
  targetShare: number;
  staticJobs: string[];
}

const share = (n: number, total: number) => (total > 0 ? n / total : 0);

export function splitShares(split: OwnershipView["split"]): SplitPart[] {
  const monitors = split.reduce((s, p) => s + p.monitors, 0);
  const targets = split.reduce((s, p) => s + p.targets, 0);
  return split.map((p) => ({ ...p, monitorShare: share(p.monitors, monitors), targetShare: share(p.targets, targets) }));
}

export type MonitorKind = MonitorRow["kind"];

export interface MonitorDependencyProblem {
  kind: MonitorKind;
  source: string;
  /** "not installed", "not readable" or the source's own message */
  what: "not_installed" | "forbidden" | "failing";
  message: string;
  /** read successfully before: the table keeps that kind's last good list */
  stale: boolean;
}

const KIND_BY_SOURCE: Record<string, MonitorKind> = { servicemonitors: "ServiceMonitor", podmonitors: "PodMonitor" };

/** The monitor CRD sources among the failing sources (`<cluster>/kube/servicemonitors`, `<cluster>/kube/podmonitors`). */
export function monitorSourceProblems(stale: readonly SourceView[]): MonitorDependencyProblem[] {
  const out: MonitorDependencyProblem[] = [];
  for (const s of stale) {
    const kind = KIND_BY_SOURCE[s.source.split("/").at(-1) ?? ""];
    if (!kind || !s.source.includes("/kube/")) continue;
    const what = s.error?.kind === "not_found" ? "not_installed" : s.error?.kind === "forbidden" ? "forbidden" : "failing";
    out.push({ kind, source: s.source, what, message: s.error?.message ?? "no answer", stale: s.lastSuccess !== null });
  }
  return out.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "ServiceMonitor" ? -1 : 1));
}

export interface DependencyNotice {
  /** every monitor is unknown (available: false), or only one kind */
  severity: "unavailable" | "partial";
  title: string;
  hint: string;
}

const plural = (kinds: readonly MonitorKind[]) => (kinds.length > 1 ? `The ${kinds.join(" and ")} CRDs` : `The ${kinds[0]} CRD`);

function hintFor(problems: readonly MonitorDependencyProblem[]): string {
  const installs = problems.some((p) => p.what === "not_installed");
  const grants = problems.some((p) => p.what === "forbidden");
  if (installs && !grants) return "Install prometheus-operator's monitoring.coreos.com/v1 CRDs if monitors should be scraped.";
  if (grants && !installs) return "Grant the dashboard's service account list and watch on servicemonitors and podmonitors (its ClusterRole).";
  return "Install prometheus-operator's CRDs or grant list/watch on servicemonitors and podmonitors to the dashboard.";
}

const VERB: Record<MonitorDependencyProblem["what"], string> = {
  not_installed: "is not installed",
  forbidden: "cannot be listed (no list/watch permission)",
  failing: "could not be read",
};

/** What to tell the user about the monitor CRDs, or null when both were read. */
export function dependencyNotice(view: Pick<OwnershipView, "available" | "stale">): DependencyNotice | null {
  const problems = monitorSourceProblems(view.stale);
  if (!view.available) {
    const kinds: MonitorKind[] = problems.length ? problems.map((p) => p.kind) : ["ServiceMonitor", "PodMonitor"];
    return {
      severity: "unavailable",
      title: `${plural(kinds)} could not be read, so monitor ownership is unknown.`,
      hint: `${problems.map((p) => `${p.kind}: ${p.message}.`).join(" ")} ${hintFor(problems)}`.trim(),
    };
  }
  if (!problems.length) return null;
  const p = problems[0];
  const kinds = problems.map((x) => x.kind);
  const title =
    problems.length === 1
      ? `The ${p.kind} CRD ${VERB[p.what]}: ${p.stale ? `the ${p.kind}s below are from the last good read and may be out of date` : `${p.kind}s are missing from this table`}.`
      : `${plural(kinds)} could not be read: the table may be incomplete.`;
  return { severity: "partial", title, hint: `${problems.map((x) => `${x.source}: ${x.message}.`).join(" ")} ${hintFor(problems)}`.trim() };
}
