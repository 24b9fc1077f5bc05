/**
 * Lifetimes of the per-collector series of `allocation_lens_collector_readiness_transitions_total{cluster,role,pod,node}`:
 * a series is created at 0 when its pod is first seen (so that Prometheus' increase() sees the first flip), counts the
 * pod's readiness flips, and is removed `ttlMs` after the pod is gone (bounded cardinality, while leaving the backend a
 * few scrapes of the final value). Pure: the caller passes the time and applies what it returns to the real counter.
 */
import type { Role } from "@/lib/model";

export interface PodSeriesLabels {
  role: Role;
  pod: string;
  /** "" while the pod is unscheduled */
  node: string;
}

/** Longer than a few scrape intervals of any sane scrape configuration. */
export const POD_SERIES_TTL_MS = 10 * 60_000;

interface Entry {
  labels: PodSeriesLabels;
  count: number;
  goneAt: number | null;
}

const podKey = (role: Role, pod: string) => `${role}\u0000${pod}`;

export class PodSeriesLifetimes {
  /** pod key -> node -> series (a pod first seen unscheduled then on a node has two) */
  private readonly pods = new Map<string, Map<string, Entry>>();

  constructor(private readonly ttlMs = POD_SERIES_TTL_MS) {}

  /** Ensures the series of the pod on `node` exists (and that the pod counts as present); true when it was just created. */
  ensure(role: Role, pod: string, node: string | null): boolean {
    const key = podKey(role, pod);
    let nodes = this.pods.get(key);
    if (!nodes) this.pods.set(key, (nodes = new Map()));
    for (const e of nodes.values()) e.goneAt = null;
    if (nodes.has(node ?? "")) return false;
    nodes.set(node ?? "", { labels: { role, pod, node: node ?? "" }, count: 0, goneAt: null });
    return true;
  }

  /** One readiness flip of the pod on `node`; returns the labels to increment (ensure() first to create it at 0). */
  flip(role: Role, pod: string, node: string | null): PodSeriesLabels {
    this.ensure(role, pod, node);
    const e = this.pods.get(podKey(role, pod))!.get(node ?? "")!;
    e.count++;
    return e.labels;
  }

  /** The pod is gone (deleted, or absent from a snapshot) as of `at`; its series go `ttlMs` later. */
  gone(role: Role, pod: string, at: number): void {
    for (const e of this.pods.get(podKey(role, pod))?.values() ?? []) e.goneAt ??= at;
  }

  /** Marks every pod of `role` not in `present` as gone at `at`. */
  retain(role: Role, present: ReadonlySet<string>, at: number): void {
    for (const nodes of this.pods.values()) {
      for (const e of nodes.values()) if (e.labels.role === role && !present.has(e.labels.pod)) e.goneAt ??= at;
    }
  }

  /** Drops the series of pods gone for at least ttlMs at `now`; returns their labels (to remove from the counter). */
  expire(now: number): PodSeriesLabels[] {
    const out: PodSeriesLabels[] = [];
    for (const [key, nodes] of this.pods) {
      for (const [node, e] of nodes) {
        if (e.goneAt !== null && now - e.goneAt >= this.ttlMs) {
          out.push(e.labels);
          nodes.delete(node);
        }
      }
      if (!nodes.size) this.pods.delete(key);
    }
    return out;
  }

  /** Every live series with its count (to replay onto counters wired late). */
  entries(): { labels: PodSeriesLabels; count: number }[] {
    return [...this.pods.values()].flatMap((nodes) => [...nodes.values()].map((e) => ({ labels: { ...e.labels }, count: e.count })));
  }

  get size(): number {
    let n = 0;
    for (const nodes of this.pods.values()) n += nodes.size;
    return n;
  }
}
