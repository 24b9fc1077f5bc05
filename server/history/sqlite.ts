import "server-only";
/**
 * The churn history in one SQLite file (better-sqlite3, WAL): readiness events, per-poll reassignment aggregates and one
 * summary row per poll per cluster. Only those fields: nothing of a TA's scrape configuration is ever stored.
 * Retention (rows older than `retentionDays`) and a size bound (`maxBytes`: the oldest 10% of each table go, then an
 * incremental vacuum) run at most once a minute, from `write`.
 */
import Database from "better-sqlite3";
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import type { PollPoint, Range, ReadinessEvent, ReadinessKind, ReassignmentRecord } from "@/lib/analysis/churn";
import { DAY_MS, MAINTENANCE_EVERY_MS, type HistoryBatch, type HistoryLimits, type HistoryStatus, type HistoryStore } from "@/server/history/types";

const SCHEMA_VERSION = "1";
const TABLES = ["readiness_events", "reassignments", "poll_summaries"] as const;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS readiness_events (
  id INTEGER PRIMARY KEY, cluster TEXT NOT NULL, at INTEGER NOT NULL, role TEXT NOT NULL, pod TEXT NOT NULL,
  node TEXT, ready INTEGER NOT NULL, kind TEXT NOT NULL, reason TEXT);
CREATE INDEX IF NOT EXISTS readiness_events_cluster_at ON readiness_events (cluster, at);
CREATE TABLE IF NOT EXISTS reassignments (
  id INTEGER PRIMARY KEY, cluster TEXT NOT NULL, at INTEGER NOT NULL, total INTEGER NOT NULL,
  by_role TEXT NOT NULL, by_node TEXT NOT NULL, by_collector TEXT NOT NULL, sample TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS reassignments_cluster_at ON reassignments (cluster, at);
CREATE TABLE IF NOT EXISTS poll_summaries (
  id INTEGER PRIMARY KEY, cluster TEXT NOT NULL, at INTEGER NOT NULL, poll_ms REAL NOT NULL, roles TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS poll_summaries_cluster_at ON poll_summaries (cluster, at);
`;

const KINDS = new Set<ReadinessKind>(["became_ready", "became_not_ready", "added", "deleted"]);
const isRole = (v: unknown): v is Role => ROLES.includes(v as Role);

function parse<T>(text: unknown, fallback: T): T {
  if (typeof text !== "string") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

type Row = Record<string, unknown>;

export class SqliteHistory implements HistoryStore {
  readonly status: HistoryStatus;
  private readonly db: Database.Database;
  private readonly incremental: boolean;
  private lastMaintenance = -Infinity;
  private lastFullVacuum = -Infinity;
  private readonly stmt: Record<"event" | "reassignment" | "poll" | "readiness" | "reassignments" | "polls" | "oldest", Database.Statement>;
  private readonly writeTx: (cluster: string, batch: HistoryBatch) => void;

  /** Opens (or creates) the file; throws when it is not a database, of another schema version, or not writable. */
  constructor(
    readonly path: string,
    private readonly limits: HistoryLimits,
  ) {
    this.db = new Database(path, { timeout: 5000 });
    try {
      this.db.pragma("auto_vacuum = INCREMENTAL"); // takes effect on a new file only
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      this.db.exec(SCHEMA);
      const version = this.db.prepare("SELECT value FROM meta WHERE key = 'schema'").pluck().get() as string | undefined;
      if (version !== undefined && version !== SCHEMA_VERSION) throw new Error(`schema version ${version}, expected ${SCHEMA_VERSION}`);
      // A write now: a read-only file fails here rather than at the first poll.
      this.db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(SCHEMA_VERSION);
      this.incremental = this.db.pragma("auto_vacuum", { simple: true }) === 2;
    } catch (e) {
      this.db.close();
      throw e;
    }
    const db = this.db;
    this.stmt = {
      event: db.prepare("INSERT INTO readiness_events (cluster, at, role, pod, node, ready, kind, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
      reassignment: db.prepare("INSERT INTO reassignments (cluster, at, total, by_role, by_node, by_collector, sample) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      poll: db.prepare("INSERT INTO poll_summaries (cluster, at, poll_ms, roles) VALUES (?, ?, ?, ?)"),
      readiness: db.prepare("SELECT at, role, pod, node, ready, kind, reason FROM readiness_events WHERE cluster = ? AND at BETWEEN ? AND ? ORDER BY at DESC, id DESC LIMIT ?"),
      reassignments: db.prepare("SELECT at, total, by_role, by_node, by_collector, sample FROM reassignments WHERE cluster = ? AND at BETWEEN ? AND ? ORDER BY at, id"),
      polls: db.prepare("SELECT at, poll_ms, roles FROM poll_summaries WHERE cluster = ? AND at BETWEEN ? AND ? ORDER BY at, id"),
      oldest: db.prepare("SELECT min(at) FROM poll_summaries WHERE cluster = ?").pluck(),
    };
    this.writeTx = db.transaction((cluster: string, b: HistoryBatch) => {
      for (const e of b.readiness) this.stmt.event.run(cluster, e.at, e.role, e.pod, e.node, e.ready ? 1 : 0, e.kind, e.reason);
      const r = b.reassignments;
      if (r && r.total > 0) {
        this.stmt.reassignment.run(cluster, r.at, r.total, JSON.stringify(r.byRole), JSON.stringify(r.byNode), JSON.stringify(r.byCollector), JSON.stringify(r.sample));
      }
      if (b.poll) this.stmt.poll.run(cluster, b.poll.at, b.poll.pollMs, JSON.stringify(b.poll.roles));
    });
    this.status = { backend: "sqlite", path, error: null };
  }

  write(cluster: string, batch: HistoryBatch): void {
    try {
      this.writeTx(cluster, batch);
      this.maintain(batch.poll?.at ?? Date.now());
      this.status.error = null;
    } catch (e) {
      this.status.error = `cannot write to ${this.path}: ${(e as Error).message}`;
      throw e;
    }
  }

  readiness(cluster: string, range: Range, limit: number): ReadinessEvent[] {
    const rows = this.stmt.readiness.all(cluster, range.from, range.to, limit) as Row[];
    const out: ReadinessEvent[] = [];
    for (const r of rows) {
      if (!isRole(r.role) || !KINDS.has(r.kind as ReadinessKind)) continue;
      out.push({ at: Number(r.at), role: r.role, pod: String(r.pod), node: (r.node as string | null) ?? null, ready: r.ready === 1, kind: r.kind as ReadinessKind, reason: (r.reason as string | null) ?? null });
    }
    return out;
  }

  reassignments(cluster: string, range: Range): ReassignmentRecord[] {
    return (this.stmt.reassignments.all(cluster, range.from, range.to) as Row[]).map((r) => ({
      at: Number(r.at),
      total: Number(r.total),
      byRole: parse(r.by_role, {}),
      byNode: parse(r.by_node, []),
      byCollector: parse(r.by_collector, []),
      sample: parse(r.sample, []),
    }));
  }

  polls(cluster: string, range: Range): PollPoint[] {
    return (this.stmt.polls.all(cluster, range.from, range.to) as Row[]).map((r) => ({ at: Number(r.at), pollMs: Number(r.poll_ms), roles: parse(r.roles, {}) }));
  }

  oldest(cluster: string): number | null {
    const at = this.stmt.oldest.get(cluster);
    return at === null || at === undefined ? null : Number(at);
  }

  /** Bytes the database takes: page_count * page_size. */
  sizeBytes(): number {
    return Number(this.db.pragma("page_count", { simple: true })) * Number(this.db.pragma("page_size", { simple: true }));
  }

  maintain(now: number, force = false): void {
    if (!force && now - this.lastMaintenance < MAINTENANCE_EVERY_MS) return;
    this.lastMaintenance = now;
    const cutoff = now - this.limits.retentionDays * DAY_MS;
    for (const t of TABLES) this.db.prepare(`DELETE FROM ${t} WHERE at < ?`).run(cutoff);
    this.reclaim(now);
    for (let round = 0; round < 30 && this.sizeBytes() > this.limits.maxBytes; round++) {
      let deleted = 0;
      for (const t of TABLES) {
        deleted += this.db.prepare(`DELETE FROM ${t} WHERE id IN (SELECT id FROM ${t} ORDER BY id LIMIT (SELECT (count(*) + 9) / 10 FROM ${t}))`).run().changes;
      }
      if (deleted === 0 || !this.reclaim(now)) break;
    }
  }

  /** Gives freed pages back to the file system: incremental vacuum, or a full VACUUM at most once an hour. */
  private reclaim(now: number): boolean {
    if (Number(this.db.pragma("freelist_count", { simple: true })) === 0) return true;
    if (this.incremental) {
      this.db.pragma("incremental_vacuum");
    } else {
      if (now - this.lastFullVacuum < 3_600_000) return false;
      this.lastFullVacuum = now;
      this.db.exec("VACUUM");
    }
    this.db.pragma("wal_checkpoint(TRUNCATE)");
    return true;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
