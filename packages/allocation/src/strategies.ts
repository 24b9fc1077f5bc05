/**
 * Allocation strategies of a Target Allocator (docs/target-allocator.md, "How targets are allocated", with the per-node
 * differences per flavor). Pure: the demo cluster's TAs call `allocate`; the analysis uses `expectedCollectorByNode`.
 */
import type { Collector, Flavor, StrategyName, Target } from "./model";
import { HashRing, PARTITION_COUNT, RingCapacityError } from "./hashring";
import { targetNode } from "./node";

export interface AllocationOptions {
  strategy: StrategyName;
  flavor: Flavor;
  /** `allocation_fallback_strategy`; only consistent-hashing is honoured as a fallback. */
  fallback: "consistent-hashing" | null;
}

export interface AllocationInput {
  targets: readonly Target[];
  collectors: readonly Collector[];
  /** target key -> collector id from the last allocation */
  previous?: ReadonlyMap<string, string>;
}

export interface AllocationResult {
  /** every target key -> collector id, or null (unassigned) */
  assignment: Map<string, string | null>;
  /** target keys placed by the fallback */
  fallbackUsed: Set<string>;
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * node -> the collector expected to take that node's targets under per-node. Two collectors on one node (rollout
 * surge): the lexicographically smaller pod name wins. Unscheduled collectors (node "") are skipped.
 */
export function expectedCollectorByNode(collectors: readonly Collector[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of collectors) {
    if (c.node === "") continue;
    const cur = out.get(c.node);
    if (cur === undefined || byId(c.id, cur) < 0) out.set(c.node, c.id);
  }
  return out;
}

/**
 * Whether a TA running `options` builds a consistent-hashing ring over every collector it registers: consistent-hashing,
 * and per-node with the consistent-hashing fallback (both allocators build the fallback's ring whenever the collectors
 * change, used or not).
 */
export const buildsRing = (options: Pick<AllocationOptions, "strategy" | "fallback">): boolean =>
  options.strategy === "consistent-hashing" || (options.strategy === "per-node" && options.fallback === "consistent-hashing");

/**
 * Throws RingCapacityError where the real allocators panic: a ring of more collectors than its partitions (docs/target-
 * allocator.md, "The ring's limit").
 */
export function allocate(input: AllocationInput, options: AllocationOptions): AllocationResult {
  const { targets, previous } = input;
  const assignment = new Map<string, string | null>();
  const fallbackUsed = new Set<string>();
  const ids = [...new Set(input.collectors.map((c) => c.id))].sort(byId);
  if (ids.length > PARTITION_COUNT && buildsRing(options)) throw new RingCapacityError(ids.length);

  if (ids.length === 0) {
    // cloudwatch keeps the existing mapping when the collector set drops to zero; upstream unassigns everything.
    const keep = options.flavor === "cloudwatch" && previous !== undefined;
    for (const t of targets) assignment.set(t.key, keep ? (previous.get(t.key) ?? null) : null);
    return { assignment, fallbackUsed };
  }

  switch (options.strategy) {
    case "consistent-hashing": {
      const ring = new HashRing(ids);
      for (const t of targets) assignment.set(t.key, ring.locate(t.address));
      break;
    }
    case "least-weighted":
      leastWeighted(targets, ids, previous, assignment);
      break;
    case "per-node":
      perNode(targets, input.collectors, ids, options, assignment, fallbackUsed);
      break;
  }
  return { assignment, fallbackUsed };
}

/**
 * least-weighted: a target keeps its previous collector while that collector is present; every other target goes
 * to the collector with the fewest targets (ties: smallest id). New targets are placed in key order, so the result
 * does not depend on input order.
 */
function leastWeighted(
  targets: readonly Target[],
  ids: readonly string[],
  previous: ReadonlyMap<string, string> | undefined,
  assignment: Map<string, string | null>,
): void {
  const index = new Map(ids.map((id, i) => [id, i]));
  const counts = new Int32Array(ids.length);
  const pending: Target[] = [];
  for (const t of targets) {
    const prev = previous?.get(t.key);
    const i = prev === undefined ? undefined : index.get(prev);
    if (i !== undefined) {
      assignment.set(t.key, prev!);
      counts[i]++;
    } else pending.push(t);
  }
  pending.sort((a, b) => byId(a.key, b.key));
  // Min-heap of collector indexes by (count, id); ids are sorted, so index order is id order.
  const heap = ids.map((_, i) => i);
  const less = (a: number, b: number) => counts[a] < counts[b] || (counts[a] === counts[b] && a < b);
  const siftDown = (pos: number) => {
    for (;;) {
      const l = 2 * pos + 1;
      const r = l + 1;
      let m = pos;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === pos) return;
      [heap[pos], heap[m]] = [heap[m], heap[pos]];
      pos = m;
    }
  };
  for (let p = (heap.length >> 1) - 1; p >= 0; p--) siftDown(p);
  for (const t of pending) {
    const i = heap[0];
    assignment.set(t.key, ids[i]);
    counts[i]++;
    siftDown(0);
  }
}

/**
 * per-node: the collector on the target's node (see expectedCollectorByNode).
 * - upstream: the fallback applies only to targets with no node; a node without a collector leaves its targets
 *   unassigned.
 * - cloudwatch: the fallback (consistent-hashing over ALL collectors) also takes targets whose node has no collector.
 * - no fallback: those targets stay unassigned (null).
 */
function perNode(
  targets: readonly Target[],
  collectors: readonly Collector[],
  ids: readonly string[],
  options: AllocationOptions,
  assignment: Map<string, string | null>,
  fallbackUsed: Set<string>,
): void {
  const byNode = expectedCollectorByNode(collectors);
  let ring: HashRing | null = null; // built on first use
  const fallback = (t: Target): string | null => {
    if (options.fallback !== "consistent-hashing") return null;
    ring ??= new HashRing(ids);
    const id = ring.locate(t.address);
    if (id !== null) fallbackUsed.add(t.key);
    return id;
  };
  for (const t of targets) {
    fallbackUsed.delete(t.key); // a duplicate key: the last occurrence decides
    const node = targetNode(t.labels);
    if (node === null) {
      assignment.set(t.key, fallback(t));
      continue;
    }
    const id = byNode.get(node);
    if (id !== undefined) assignment.set(t.key, id);
    else assignment.set(t.key, options.flavor === "cloudwatch" ? fallback(t) : null);
  }
}
