import "server-only";
/** The churn history store: one interface, a SQLite file (sqlite.ts) or bounded memory (memory.ts) behind it. */
import type { PollPoint } from "@/lib/analysis/poll-points";
import type { Range } from "@/lib/analysis/churn-buckets";
import type { ReadinessEvent } from "@/lib/analysis/readiness";
import type { ReassignmentRecord } from "@/lib/analysis/reassignments";
import type { ChurnAggregate, ChurnAggregateQuery } from "@/lib/views/churn-aggregate";
import type { HistoryBackend } from "@/lib/api/schemas";

/**
 * The local store in use: `backend`, `path` (the database file, or the one that could not be used) and `error` (why SQLite
 * is not in use, or the last write failure; null when all is well). The churn view shows it as is (`backend`), so it is
 * the API's shape (lib/api/schemas.ts).
 */
export type HistoryStatus = HistoryBackend;

/** What one poll adds to the history of one cluster, written in one transaction. */
export interface HistoryBatch {
  /** readiness transitions since the previous batch */
  readiness: readonly ReadinessEvent[];
  poll?: PollPoint;
  /** null or absent when no target moved */
  reassignments?: ReassignmentRecord | null;
}

export interface HistoryLimits {
  retentionDays: number;
  maxBytes: number;
}

export interface HistoryStore {
  readonly status: HistoryStatus;
  write(cluster: string, batch: HistoryBatch): void;
  /** readiness events in [from, to], newest first, at most `limit` */
  readiness(cluster: string, range: Range, limit: number): ReadinessEvent[];
  /** per-poll reassignments in [from, to], oldest first: the newest `limit` (default ROWS_READ) */
  reassignments(cluster: string, range: Range, limit?: number): ReassignmentRecord[];
  /** per-poll summaries in [from, to], oldest first: the newest `limit` (default ROWS_READ) */
  polls(cluster: string, range: Range, limit?: number): PollPoint[];
  /**
   * What the churn view shows of [from, to], aggregated by the store (counts per bucket, rankings, totals, the latest
   * events): bounded work and a bounded answer, however many rows the range holds. Means what `aggregateChurn` computes.
   */
  churn(cluster: string, query: ChurnAggregateQuery): ChurnAggregate;
  /** when the oldest poll summary of the cluster was recorded (where local history starts), null when there is none */
  oldest(cluster: string): number | null;
  /** retention and size bound; rate-limited to once a minute unless forced */
  maintain(now: number, force?: boolean): void;
  close(): void;
}

export const DAY_MS = 86_400_000;
/** Rows one read returns at most, unless told: a week of 15 s polls. */
export const ROWS_READ = 50_000;
export const MAINTENANCE_EVERY_MS = 60_000;
