/** One poll's summary per role (classes, unassigned, ghosts, locality, collectors), as the history stores it. Pure. */
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import type { Analysis, ClassCounts } from "@/lib/analysis/types";

/** One poll's summary, per role: what the churn view's series show. */
export interface RolePoint {
  targets: ClassCounts;
  unassigned: number | null;
  ghosts: number;
  localityRatio: number | null;
  collectorsReady: number;
  collectorsTotal: number;
}

export interface PollPoint {
  at: number;
  pollMs: number;
  roles: Partial<Record<Role, RolePoint>>;
}

export function pollPoint(analysis: Pick<Analysis, "roles">, at: number, pollMs: number): PollPoint {
  const roles: Partial<Record<Role, RolePoint>> = {};
  for (const role of ROLES) {
    const r = analysis.roles[role];
    if (!r) continue;
    roles[role] = {
      targets: { ...r.classes },
      unassigned: r.unassigned,
      ghosts: r.classes.ghost,
      localityRatio: r.localityRatio,
      collectorsReady: r.collectorsEligible,
      collectorsTotal: r.collectorsTotal,
    };
  }
  return { at, pollMs, roles };
}
