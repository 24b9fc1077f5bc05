/** Test support: a readiness event of `pod` at `at` (ready for the kinds that leave the pod ready). */
import type { Role } from "@/lib/model";
import type { ReadinessEvent } from "@/lib/analysis/readiness";

export const ev = (at: number, pod: string, kind: ReadinessEvent["kind"], role: Role = "per-node", node: string | null = "n1"): ReadinessEvent => ({
  at,
  role,
  pod,
  node,
  ready: kind === "became_ready" || kind === "added",
  kind,
  reason: null,
});
