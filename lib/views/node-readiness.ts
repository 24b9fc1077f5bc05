/**
 * Readiness timeline strips for the node detail: one row per collector pod, segments of known readiness between its
 * transitions, as fractions of the time window. Pure; fed by the churn API's readiness events (lib/analysis/churn.ts).
 */
import type { ReadinessEvent } from "@/lib/analysis/readiness";
import type { Role } from "@/lib/model";

export interface ReadinessSegment {
  /** start and end as fractions of the window, 0..1 */
  x0: number;
  x1: number;
  ready: boolean;
  at: number;
  reason: string | null;
}

export interface ReadinessStrip {
  key: string;
  pod: string;
  role: Role;
  segments: ReadinessSegment[];
  transitions: number;
}

/** Before a pod's first event inside the window its state is unknown: that stretch stays empty rather than guessed. */
export function readinessStrips(events: readonly ReadinessEvent[], from: number, to: number): ReadinessStrip[] {
  const span = Math.max(1, to - from);
  const frac = (t: number) => Math.min(1, Math.max(0, (t - from) / span));
  const byPod = new Map<string, ReadinessEvent[]>();
  for (const e of events) {
    if (e.at > to) continue;
    const k = `${e.role}\u0000${e.pod}`;
    let list = byPod.get(k);
    if (!list) byPod.set(k, (list = []));
    list.push(e);
  }
  const strips: ReadinessStrip[] = [];
  for (const [key, list] of byPod) {
    list.sort((a, b) => a.at - b.at);
    const segments: ReadinessSegment[] = [];
    list.forEach((e, i) => {
      const end = i + 1 < list.length ? list[i + 1].at : to;
      if (end < from) return;
      segments.push({ x0: frac(e.at), x1: frac(end), ready: e.ready, at: e.at, reason: e.reason });
    });
    strips.push({ key, pod: list[0].pod, role: list[0].role, segments, transitions: list.filter((e) => e.at >= from).length });
  }
  return strips.sort((a, b) => a.role.localeCompare(b.role) || a.pod.localeCompare(b.pod));
}
