/**
 * The overview's role cards (components/overview/RoleCard.tsx). The per-node agent is judged by its locality: a gauge with
 * thresholds. The cluster-scraper scrapes cluster-level endpoints that are not meant to be on its own node, so its locality
 * is naturally low (often 0%) and says nothing about its health: its card shows its monitors by ownership state, its balance
 * across its replicas and its targets by zone, and its locality only as a note that says it is not expected. Pure.
 */
import type { Ownership, Role } from "@/lib/model";
import { OWNERSHIPS } from "@/lib/model";
import type { RoleDetails, RoleSummary } from "@/lib/api/schemas";
import { eligibleStats, imbalanceVerdict, type Tone, type Verdict } from "@/lib/views/collectors-view";
import { flowNodeLabel, kindOf, type FlowNodeKind } from "@/lib/views/node-flow";
import { OWNERSHIP_LABEL, OWNERSHIP_TONE, ownershipHref } from "@/lib/views/ownership-view";
import { formatCount, formatDecimal, formatPercent } from "@/lib/format";

/** Whether a role's locality is a goal: the per-node agent's is; the cluster-scraper's targets are not on its node. */
export const LOCALITY_EXPECTED: Record<Role, boolean> = { "per-node": true, "cluster-scraper": false };

/** Why a role's locality is not a goal, in a few words (the overview's note and the churn chart's caption). */
export const LOCALITY_NOT_EXPECTED_WHY = "its targets are cluster-level endpoints, not on its own node";

/** "locality 0% (not expected for the cluster-scraper)" */
export const localityNote = (role: Role, ratio: number | null): string => `locality ${formatPercent(ratio)} (not expected for the ${role})`;

export interface MonitorLine {
  state: Ownership;
  label: string;
  count: number;
  /** "muted" for a zero count or for ok: only problems take a colour */
  tone: Tone;
  /** the Ownership view filtered to the role and this state; null for a zero count (an empty table) */
  href: string | null;
}

export interface ZoneSlice {
  zone: string;
  label: string;
  kind: FlowNodeKind;
  count: number;
  /** index among the real zones (for their shade), -1 for no zone / no node */
  shade: number;
}

export interface ScraperCardModel {
  /** null when neither monitor CRD could be read */
  monitors: { total: number; href: string; lines: MonitorLine[]; problems: number } | null;
  balance: {
    /** "2–4": fewest and most targets over the eligible collectors; "n/a" without one */
    range: string;
    collectors: number;
    mean: string;
    maxOverMean: string;
    verdict: Verdict;
  };
  zones: ZoneSlice[];
  zonesTotal: number;
  /** one sentence for screen readers */
  zonesLabel: string;
  locality: string;
}

/** The cluster-scraper card's figures from the role's summary and details (`query` keeps `?cluster=` in the links). */
export function scraperCard(s: RoleSummary, d: RoleDetails | undefined, query: string): ScraperCardModel {
  const m = d?.monitors ?? null;
  const monitors = m
    ? {
        total: OWNERSHIPS.reduce((sum, o) => sum + m[o], 0),
        href: ownershipHref(query, s.role),
        problems: m.double + m.orphaned + m.misrouted,
        lines: OWNERSHIPS.map((state) => ({
          state,
          label: OWNERSHIP_LABEL[state],
          count: m[state],
          tone: state !== "ok" && m[state] ? OWNERSHIP_TONE[state] : ("muted" as const),
          href: m[state] ? ownershipHref(query, s.role, state) : null,
        })),
      }
    : null;
  const stats = d?.perCollector ?? eligibleStats([]);
  const range = stats.min === null || stats.max === null ? "n/a" : stats.min === stats.max ? formatCount(stats.min) : `${formatCount(stats.min)}–${formatCount(stats.max)}`;
  let shade = 0;
  const zones = (d?.zones ?? []).map((z) => {
    const kind = kindOf(z.zone);
    return { zone: z.zone, label: flowNodeLabel(z.zone), kind, count: z.count, shade: kind === "zone" ? shade++ : -1 };
  });
  const zonesTotal = zones.reduce((sum, z) => sum + z.count, 0);
  return {
    monitors,
    balance: {
      range,
      collectors: stats.collectors,
      mean: formatDecimal(stats.mean, 1),
      maxOverMean: formatDecimal(s.imbalance.maxOverMean, 2),
      verdict: imbalanceVerdict(s.strategy, s.imbalance, stats),
    },
    zones,
    zonesTotal,
    zonesLabel: zones.length ? `Targets by zone: ${zones.map((z) => `${z.label} ${formatCount(z.count)}`).join(", ")}` : "No assigned targets",
    locality: localityNote(s.role, s.localityRatio),
  };
}
