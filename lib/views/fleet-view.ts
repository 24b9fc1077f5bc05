/**
 * Pure UI reshaping of the fleet answer (GET /api/v1/fleet) for components/fleet: the badge of a row's status, the words
 * a trend sparkline is described with (for screen readers and the tooltip), the totals of the view's head.
 */
import type { FleetRow, FleetStatus, FleetTrend, FleetView } from "@/lib/api/schemas";
import { formatPercent, plural } from "@/lib/format";

export type { FleetRow, FleetView } from "@/lib/api/schemas";

export const STATUS_BADGE: Record<FleetStatus, { label: string; tone: "bad" | "warn" | "ok" | "muted" }> = {
  stopped: { label: "stopped", tone: "muted" },
  bad: { label: "problems", tone: "bad" },
  warn: { label: "warnings", tone: "warn" },
  ok: { label: "ok", tone: "ok" },
};

export interface TrendSummary {
  points: number;
  maxGhosts: number | null;
  lastGhosts: number | null;
  minLocality: number | null;
  lastLocality: number | null;
}

export function trendSummary(trend: FleetTrend): TrendSummary {
  const ghosts = trend.ghosts.filter((x): x is number => x !== null);
  const locality = trend.localityRatio.filter((x): x is number => x !== null);
  return {
    points: Math.max(trend.ghosts.length, trend.localityRatio.length),
    maxGhosts: ghosts.length ? Math.max(...ghosts) : null,
    lastGhosts: ghosts.at(-1) ?? null,
    minLocality: locality.length ? Math.min(...locality) : null,
    lastLocality: locality.at(-1) ?? null,
  };
}

/** "24 h: ghosts at most 7 (now 0); per-node locality at least 80.0% (now 100.0%)" */
export function trendLabel(trend: FleetTrend): string {
  const t = trendSummary(trend);
  if (!t.points) return "24 h: no data in the backend";
  const ghosts = t.maxGhosts === null ? "ghosts unknown" : `ghosts at most ${t.maxGhosts} (now ${t.lastGhosts})`;
  const locality = t.minLocality === null ? "per-node locality unknown" : `per-node locality at least ${formatPercent(t.minLocality)} (now ${formatPercent(t.lastLocality)})`;
  return `24 h: ${ghosts}; ${locality}`;
}

/** "3 clusters: 1 stopped, 1 with problems" */
export function fleetHeadline(v: Pick<FleetView, "clusters" | "truncated">): string {
  const n = v.clusters.length + v.truncated;
  const count = (s: FleetStatus) => v.clusters.filter((c) => c.status === s).length;
  const parts = [count("stopped") && `${count("stopped")} stopped`, count("bad") && `${count("bad")} with problems`, count("warn") && `${count("warn")} with warnings`].filter(Boolean);
  return `${plural(n, "cluster")}${parts.length ? `: ${parts.join(", ")}` : ", all ok"}`;
}

/** total ghosts of a row over its roles, null when no role says */
export function rowGhosts(r: Pick<FleetRow, "roles">): number | null {
  const known = Object.values(r.roles).filter((x) => x && x.ghosts !== null);
  return known.length ? known.reduce((n, x) => n + (x!.ghosts ?? 0), 0) : null;
}

export function rowUnassigned(r: Pick<FleetRow, "roles">): number | null {
  const known = Object.values(r.roles).filter((x) => x && x.unassigned !== null);
  return known.length ? known.reduce((n, x) => n + (x!.unassigned ?? 0), 0) : null;
}
