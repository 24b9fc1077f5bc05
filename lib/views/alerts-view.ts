/**
 * The Alerts view's reshaping for the page: counts by state, the words for a state and a severity, and the rule list's
 * panel state (empty: no rule would fire). Pure.
 */
import type { AlertRow, AlertsView } from "@/lib/api/schemas";

export type AlertCounts = Record<AlertRow["state"], number>;

export function alertCounts(v: Pick<AlertsView, "alerts">): AlertCounts {
  const c: AlertCounts = { firing: 0, pending: 0, inactive: 0 };
  for (const a of v.alerts) c[a.state]++;
  return c;
}

export const STATE_WORD: Record<AlertRow["state"], string> = { firing: "Firing", pending: "Pending", inactive: "Quiet" };
export const SEVERITY_WORD: Record<AlertRow["severity"], string> = { critical: "critical", warning: "warning", info: "info" };

/** The rules that hold now (firing, then pending) and the quiet ones, in the answer's order. */
export function splitAlerts(v: Pick<AlertsView, "alerts">): { active: AlertRow[]; quiet: AlertRow[] } {
  return { active: v.alerts.filter((a) => a.state !== "inactive"), quiet: v.alerts.filter((a) => a.state === "inactive") };
}

/** "2 firing, 1 pending, 10 quiet" */
export function countsSentence(c: AlertCounts): string {
  return `${c.firing} firing, ${c.pending} pending, ${c.inactive} quiet`;
}

/** A view path of an alert with the page's `theme` kept (the cluster is in the path already). */
export function withTheme(path: string, theme: string | null): string {
  if (!theme) return path;
  return `${path}${path.includes("?") ? "&" : "?"}theme=${encodeURIComponent(theme)}`;
}

/** The view an alert's link opens, named for the link's text. */
export function viewName(path: string): string {
  const p = path.split("?")[0];
  const names: Record<string, string> = { "/": "Overview", "/targets": "Targets", "/ownership": "Ownership", "/lost": "Lost", "/nodes": "Nodes", "/diagnostics": "Diagnostics" };
  return names[p] ?? p;
}
