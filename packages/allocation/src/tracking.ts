/**
 * A TA's tracking of its collector pods, as a pure reducer (docs/target-allocator.md, "Which pods count" and "Watch
 * sessions"; `legacy` is the CloudWatch fork before its per-node change, whose silent ghost failure that change fixed).
 *
 * State: every pod the TA has registered, by pod name (= collector id).
 */
import type { Collector, Flavor, PodView, Tracking } from "./model";
import { DEFAULT_GRACE_MS, isEligible } from "./eligibility";

export type TrackState = ReadonlyMap<string, PodView>;

export type TrackEvent =
  /** A watch session starts: the List that precedes it. */
  | { type: "session"; pods: readonly PodView[] }
  | { type: "ADDED" | "MODIFIED" | "DELETED"; pod: PodView };

export const emptyTrackState = (): Map<string, PodView> => new Map();

/**
 * Apply one event.
 * - `ready-only`: a session REPLACES the registered set with the listed pods (so a pod deleted while no watch was
 *   open is dropped); ADDED/MODIFIED upsert; DELETED removes. Eligibility is applied by `collectorsOf`.
 * - `legacy`: the fork before the per-node fix (its collector watcher, `collector/collector.go`). A session registers
 *   the listed pods that are scheduled and not terminating and never removes anything (after its first List the fork
 *   only re-watches, and a watch replays the current pods as ADDED); ADDED and MODIFIED register or re-register a
 *   scheduled pod (one without a node is left as it was); only DELETED removes. Phase and readiness are never looked at.
 */
export function trackReduce(state: TrackState, event: TrackEvent, mode: Tracking): Map<string, PodView> {
  if (event.type === "session") {
    const next = mode === "ready-only" ? new Map<string, PodView>() : new Map(state);
    for (const p of event.pods) if (mode === "ready-only" || (p.nodeName && !p.terminating)) next.set(p.name, p);
    return next;
  }
  const next = new Map(state);
  switch (event.type) {
    case "ADDED":
    case "MODIFIED":
      if (mode === "ready-only" || event.pod.nodeName) next.set(event.pod.name, event.pod);
      break;
    case "DELETED":
      next.delete(event.pod.name);
      break;
  }
  return next;
}

/**
 * The collector set a TA allocates over, sorted by id.
 * - `ready-only`: the registered pods eligible under the flavor's rule at nowMs (see eligibility.ts).
 * - `legacy`: every registered pod, never checking readiness; node = nodeName as of registration.
 */
export function collectorsOf(
  state: TrackState,
  mode: Tracking,
  flavor: Flavor,
  nowMs: number,
  graceMs: number = DEFAULT_GRACE_MS,
): Collector[] {
  const out: Collector[] = [];
  for (const [id, pod] of state) {
    if (mode === "ready-only" && !isEligible(pod, flavor, nowMs, graceMs)) continue;
    out.push({ id, node: pod.nodeName });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
