/** Collectors view: targets per collector, imbalance, and where the TA and Kubernetes disagree. */
import type { Analysis, RoleSummary } from "@/lib/analysis/types";
import type { CollectorsView, Freshness } from "@/lib/api/schemas";

export type { CollectorsView } from "@/lib/api/schemas";

export function toCollectorsView(a: Analysis, fresh: Freshness): CollectorsView {
  return {
    ...fresh,
    cluster: a.cluster,
    roles: (Object.values(a.roles) as RoleSummary[]).map((r) => {
      const collectors = a.collectors.filter((c) => c.role === r.role).sort((x, y) => y.targets - x.targets || x.id.localeCompare(y.id));
      return {
        role: r.role,
        strategy: r.strategy,
        imbalance: r.imbalance,
        collectors,
        taOnly: r.taOnlyCollectors,
        missingFromTa: r.missingFromTa,
        notEligibleInTa: collectors.filter((c) => c.inTa && !c.eligible),
      };
    }),
  };
}
