/**
 * Collector readiness churn (docs/ARCHITECTURE.md, "churn"): the transitions pod watch events make, followed per pod by a
 * ReadinessTracker, and the ranking of the collectors that flap most. Pure: server/history/attach.ts feeds the tracker and
 * stores its events; the churn view and the flapping diagnostic rank them.
 */
import type { PodView, Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { ineligibleReason, podViewFromObject } from "@allocation-lens/allocation/eligibility";
import type { Flapper, ReadinessEvent } from "@/lib/api/schemas";

/** The API's shapes (lib/api/schemas.ts). */
export type { Flapper, ReadinessEvent, ReadinessKind } from "@/lib/api/schemas";

export type PodEventType = "add" | "update" | "delete";

/** Readiness is judged strictly (Running, Ready, not terminating, scheduled), as ghosts are: no grace period. */
const STRICT = "cloudwatch" as const;

function transitionOf(previous: { ready: boolean } | undefined, view: PodView, role: Role, at: number, type: PodEventType): ReadinessEvent | null {
  const node = view.nodeName || null;
  const why = ineligibleReason(view, STRICT, at);
  if (type === "delete") return { at, role, pod: view.name, node, ready: false, kind: "deleted", reason: why ?? "deleted" };
  const ready = why === null;
  if (previous === undefined) return { at, role, pod: view.name, node, ready, kind: "added", reason: why };
  if (previous.ready === ready) return null;
  return { at, role, pod: view.name, node, ready, kind: ready ? "became_ready" : "became_not_ready", reason: why };
}

/**
 * The transition one pod event makes, or null. `previous` is what was known of the pod before (undefined: never seen, so an
 * add or update is an appearance). A delete is always a transition.
 */
export function readinessTransition(
  previous: { ready: boolean } | undefined,
  podObj: unknown,
  role: Role,
  at: number,
  type: PodEventType = previous === undefined ? "add" : "update",
): ReadinessEvent | null {
  return transitionOf(previous, podViewFromObject(podObj), role, at, type);
}

/**
 * Follows agent pods through informer events and says which events are readiness transitions. Until `baselineDone(role)`,
 * events only record state: the informer's initial list is not churn. After it, an `update` of a pod never seen is recorded
 * silently too (its `add` happened before we listened); a real newcomer always arrives as an `add`.
 */
export class ReadinessTracker {
  private readonly pods = new Map<string, { ready: boolean; node: string | null }>();
  private readonly baselined = new Set<Role>();

  observe(e: { at: number; role: Role; type: PodEventType; pod: unknown }): ReadinessEvent | null {
    const view = podViewFromObject(e.pod);
    const key = `${e.role}\u0000${view.name}`;
    const previous = this.pods.get(key);
    if (e.type === "delete") {
      this.pods.delete(key);
      return this.baselined.has(e.role) ? transitionOf(previous, view, e.role, e.at, "delete") : null;
    }
    const event = transitionOf(previous, view, e.role, e.at, e.type);
    this.pods.set(key, { ready: event ? event.ready : previous!.ready, node: view.nodeName || null });
    if (!this.baselined.has(e.role) || (previous === undefined && e.type === "update")) return null;
    return event;
  }

  /** Records pods known from elsewhere (a snapshot) without events; pods already followed keep their state. */
  seed(role: Role, pods: readonly { name: string; ready: boolean; node: string | null }[]): void {
    for (const p of pods) {
      const key = `${role}\u0000${p.name}`;
      if (!this.pods.has(key)) this.pods.set(key, { ready: p.ready, node: p.node });
    }
  }

  baselineDone(role?: Role): void {
    for (const r of role ? [role] : ROLES) this.baselined.add(r);
  }

  isBaselined(role: Role): boolean {
    return this.baselined.has(role);
  }

  get size(): number {
    return this.pods.size;
  }
}

/** Collectors with the most readiness flips, most first (ties: latest first). Appearances and deletions are not flapping. */
export function rankFlapping(events: readonly ReadinessEvent[], limit = 20): Flapper[] {
  const by = new Map<string, Flapper>();
  for (const e of events) {
    if (e.kind !== "became_ready" && e.kind !== "became_not_ready") continue;
    const key = `${e.role}\u0000${e.pod}`;
    const f = by.get(key);
    if (!f) by.set(key, { pod: e.pod, role: e.role, node: e.node, transitions: 1, lastAt: e.at });
    else {
      f.transitions++;
      if (e.at >= f.lastAt) Object.assign(f, { lastAt: e.at, node: e.node ?? f.node });
    }
  }
  return [...by.values()].sort((a, b) => b.transitions - a.transitions || b.lastAt - a.lastAt || a.pod.localeCompare(b.pod)).slice(0, limit);
}
