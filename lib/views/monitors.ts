/** Ownership view: the split between the cluster-scraper and per-node roles, and every monitor's owner and state. */
import type { Role } from "@/lib/model";
import type { Analysis } from "@/lib/analysis/types";
import type { Freshness, OwnershipView } from "@/lib/api/schemas";
import { recognisedScraperKeys } from "@/lib/routing";

export type { OwnershipView } from "@/lib/api/schemas";

export function toOwnershipView(a: Analysis, fresh: Freshness): OwnershipView {
  const roles = Object.keys(a.roles) as Role[];
  const monitors = a.monitors ?? [];
  return {
    ...fresh,
    cluster: a.cluster,
    annotationKeys: [...recognisedScraperKeys(a.scraperAnnotation)],
    annotationKeyConfigured: Boolean(a.scraperAnnotation),
    available: a.monitors !== null,
    split: roles.map((role) => ({
      role,
      monitors: monitors.filter((m) => m.holders.includes(role)).length,
      targets: a.roles[role]?.targets ?? 0,
      staticJobs: a.roles[role]?.staticJobs ?? [],
    })),
    counts: a.monitorCounts,
    monitors,
  };
}
