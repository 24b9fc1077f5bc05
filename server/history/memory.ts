import "server-only";
/**
 * The churn history in memory, when SQLite cannot be used: bounded ring buffers per cluster, same interface, lost on
 * restart. Retention applies too.
 */
import type { PollPoint } from "@/lib/analysis/poll-points";
import type { Range } from "@/lib/analysis/churn-buckets";
import type { ReadinessEvent } from "@/lib/analysis/readiness";
import type { ReassignmentRecord } from "@/lib/analysis/reassignments";
import { aggregateChurn, type ChurnAggregate, type ChurnAggregateQuery } from "@/lib/views/churn-aggregate";
import { DAY_MS, MAINTENANCE_EVERY_MS, ROWS_READ, type HistoryBatch, type HistoryStatus, type HistoryStore } from "@/server/history/types";

/** A fixed-capacity buffer: pushing onto a full one overwrites the oldest item. */
export class Ring<T> {
  private readonly items: T[] = [];
  private start = 0;

  constructor(readonly capacity: number) {}

  get length(): number {
    return this.items.length;
  }

  push(item: T): void {
    if (this.items.length < this.capacity) this.items.push(item);
    else {
      this.items[this.start] = item;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** The oldest item, or undefined when empty. */
  first(): T | undefined {
    return this.items[this.start];
  }

  /** Oldest first. */
  toArray(): T[] {
    return this.items.slice(this.start).concat(this.items.slice(0, this.start));
  }

  /** Keeps the items for which `keep` is true, in order. */
  retain(keep: (item: T) => boolean): void {
    const kept = this.toArray().filter(keep);
    this.items.length = 0;
    this.start = 0;
    for (const item of kept) this.items.push(item);
  }
}

export interface MemoryCapacity {
  readiness: number;
  reassignments: number;
  polls: number;
}

/** About a week of 15 s polls; readiness events beyond 50,000 per cluster drop the oldest. */
export const DEFAULT_MEMORY_CAPACITY: MemoryCapacity = { readiness: 50_000, reassignments: 5_000, polls: 40_320 };

interface ClusterRings {
  readiness: Ring<ReadinessEvent>;
  reassignments: Ring<ReassignmentRecord>;
  polls: Ring<PollPoint>;
}

const inRange = (at: number, r: Range) => at >= r.from && at <= r.to;
/** The last `limit` items (oldest first). */
const newest = <T>(items: T[], limit: number) => (items.length > limit ? items.slice(items.length - limit) : items);

export class MemoryHistory implements HistoryStore {
  readonly status: HistoryStatus;
  private readonly clusters = new Map<string, ClusterRings>();
  private lastMaintenance = -Infinity;

  constructor(
    private readonly retentionDays: number,
    status: Partial<HistoryStatus> = {},
    private readonly capacity: MemoryCapacity = DEFAULT_MEMORY_CAPACITY,
  ) {
    this.status = { backend: "memory", path: status.path ?? null, error: status.error ?? null };
  }

  private rings(cluster: string): ClusterRings {
    let r = this.clusters.get(cluster);
    if (!r) {
      r = { readiness: new Ring(this.capacity.readiness), reassignments: new Ring(this.capacity.reassignments), polls: new Ring(this.capacity.polls) };
      this.clusters.set(cluster, r);
    }
    return r;
  }

  write(cluster: string, batch: HistoryBatch): void {
    const r = this.rings(cluster);
    for (const e of batch.readiness) r.readiness.push({ ...e });
    if (batch.reassignments && batch.reassignments.total > 0) r.reassignments.push(batch.reassignments);
    if (batch.poll) r.polls.push(batch.poll);
    this.maintain(batch.poll?.at ?? Date.now());
  }

  readiness(cluster: string, range: Range, limit: number): ReadinessEvent[] {
    const all = this.clusters.get(cluster)?.readiness.toArray() ?? [];
    return all.filter((e) => inRange(e.at, range)).sort((a, b) => b.at - a.at).slice(0, limit);
  }

  reassignments(cluster: string, range: Range, limit = ROWS_READ): ReassignmentRecord[] {
    return newest((this.clusters.get(cluster)?.reassignments.toArray() ?? []).filter((r) => inRange(r.at, range)), limit);
  }

  polls(cluster: string, range: Range, limit = ROWS_READ): PollPoint[] {
    return newest((this.clusters.get(cluster)?.polls.toArray() ?? []).filter((p) => inRange(p.at, range)), limit);
  }

  /** The rings are bounded (DEFAULT_MEMORY_CAPACITY): the aggregate is computed from their rows in the range. */
  churn(cluster: string, q: ChurnAggregateQuery): ChurnAggregate {
    const range = { from: q.from, to: q.to };
    const r = this.clusters.get(cluster);
    const rows = {
      readiness: this.readiness(cluster, range, this.capacity.readiness),
      reassignments: (r?.reassignments.toArray() ?? []).filter((x) => inRange(x.at, range)),
      polls: q.series === false ? [] : (r?.polls.toArray() ?? []).filter((x) => inRange(x.at, range)),
    };
    return aggregateChurn(rows, q);
  }

  oldest(cluster: string): number | null {
    return this.clusters.get(cluster)?.polls.first()?.at ?? null;
  }

  maintain(now: number, force = false): void {
    if (!force && now - this.lastMaintenance < MAINTENANCE_EVERY_MS) return;
    this.lastMaintenance = now;
    const cutoff = now - this.retentionDays * DAY_MS;
    for (const r of this.clusters.values()) {
      r.readiness.retain((e) => e.at >= cutoff);
      r.reassignments.retain((e) => e.at >= cutoff);
      r.polls.retain((e) => e.at >= cutoff);
    }
  }

  close(): void {
    this.clusters.clear();
  }
}
