/**
 * Which agent pods count as collectors, per flavor (docs/target-allocator.md, "Which pods count"), and the
 * vocabulary's "eligible" (docs/ARCHITECTURE.md).
 */
import type { Flavor, PodView } from "./model";

/** Upstream's `collector_not_ready_grace_period` default. */
export const DEFAULT_GRACE_MS = 30_000;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === "string" ? v : "");
function time(v: unknown): number | undefined {
  if (typeof v !== "string" || v === "") return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

/**
 * Reduce a Kubernetes Pod object (JSON as the API serves it) to what a TA looks at.
 * Tolerates missing metadata/spec/status (a freshly created pod has no status yet).
 */
export function podViewFromObject(pod: unknown): PodView {
  const p = obj(pod);
  const meta = obj(p.metadata);
  const spec = obj(p.spec);
  const status = obj(p.status);
  const phase = str(status.phase);
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const readyCond = conditions.map(obj).find((c) => c.type === "Ready");
  const ready = readyCond?.status === "True";
  const transition = readyCond ? time(readyCond.lastTransitionTime) : undefined;
  const view: PodView = {
    name: str(meta.name),
    namespace: str(meta.namespace),
    nodeName: str(spec.nodeName),
    terminating: meta.deletionTimestamp != null && meta.deletionTimestamp !== "",
    phase,
    ready,
  };
  if (ready && transition !== undefined) view.readySince = transition;
  // Not Ready since the condition last flipped (upstream grace period). Ready but not Running has no known start.
  if (!ready && transition !== undefined) view.notReadySince = transition;
  return view;
}

/**
 * Why a pod is not a collector right now, or null when it is eligible.
 * - cloudwatch: scheduled, no deletionTimestamp, phase Running and Ready=True, all checked at once.
 * - upstream: scheduled; a pod not Running or not Ready is dropped only once that has lasted longer than
 *   graceMs (no known start time counts as past the grace period). Terminating alone does not drop it.
 */
export function ineligibleReason(pod: PodView, flavor: Flavor, nowMs: number, graceMs = DEFAULT_GRACE_MS): string | null {
  if (pod.nodeName === "") return "not scheduled";
  if (flavor === "cloudwatch" && pod.terminating) return "terminating";
  const healthy = pod.phase === "Running" && pod.ready;
  if (healthy) return null;
  if (flavor === "upstream") {
    const since = pod.notReadySince;
    if (since !== undefined && nowMs - since <= graceMs) return null; // inside the grace period
  }
  if (pod.phase !== "Running") return pod.phase === "" ? "no status" : `phase ${pod.phase}`;
  return "not Ready";
}

export function isEligible(pod: PodView, flavor: Flavor, nowMs: number, graceMs = DEFAULT_GRACE_MS): boolean {
  return ineligibleReason(pod, flavor, nowMs, graceMs) === null;
}
