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
import { bucketStart, type Range, type SeriesPoint } from "@/lib/analysis/churn-buckets";
import { mergeReassignments, SAMPLE_CAP, type ReassignmentRecord, type ReassignmentTotals, type TargetMove } from "@/lib/analysis/reassignments";
import type { PollPoint } from "@/lib/analysis/poll-points";
import type { ReadinessEvent, ReadinessKind } from "@/lib/analysis/readiness";
import { EVENTS_SHOWN } from "@/lib/views/churn-rows";
import { aggregateChurn, FLAPPING_SHOWN, isFiltered, REASSIGNMENTS_READ, type BucketCount, type ChurnAggregate, type ChurnAggregateQuery } from "@/lib/views/churn-aggregate";
import { DAY_MS, MAINTENANCE_EVERY_MS, ROWS_READ, type HistoryBatch, type HistoryLimits, type HistoryStatus, type HistoryStore } from "@/server/history/types";

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

const toEvent = (r: Row): ReadinessEvent => ({
  at: Number(r.at),
  role: r.role as Role,
  pod: String(r.pod),
  node: (r.node as string | null) ?? null,
  ready: r.ready === 1,
  kind: r.kind as ReadinessKind,
  reason: (r.reason as string | null) ?? null,
});

const toRecord = (r: Row): ReassignmentRecord => ({
  at: Number(r.at),
  total: Number(r.total),
  byRole: parse(r.by_role, {}),
  byNode: parse(r.by_node, []),
  byCollector: parse(r.by_collector, []),
  sample: parse(r.sample, []),
});

// Churn aggregates (named parameters @cluster, @from, @to, @buckets, @span, @node, @pod).
const RANGE = "cluster = @cluster AND at BETWEEN @from AND @to";
/** bucketIndex (lib/analysis/churn.ts) in SQL: the same double arithmetic (parameters are bound as REAL), truncated. */
const BUCKET = "CASE WHEN @span <= 0 THEN 0 ELSE min(@buckets - 1, CAST(((at - @from) * @buckets) / @span AS INTEGER)) END";
const ROLES_SQL = ROLES.map((r) => `'${r}'`).join(", ");
const KINDS_SQL = [...KINDS].map((k) => `'${k}'`).join(", ");
/** Top lists of the hot spots, as mergeReassignments keeps. */
const TOP = 20;
/** A stored JSON column, or `fallback` when it is not valid JSON (json_each would fail the whole query). */
const safeJson = (column: string, fallback: string) => `CASE WHEN json_valid(${column}) THEN ${column} ELSE '${fallback}' END`;

export class SqliteHistory implements HistoryStore {
  readonly status: HistoryStatus;
  private readonly db: Database.Database;
  private readonly incremental: boolean;
  private lastMaintenance = -Infinity;
  private lastFullVacuum = -Infinity;
  private readonly stmt: Record<"event" | "reassignment" | "poll" | "readiness" | "reassignments" | "polls" | "oldest", Database.Statement>;
  private readonly writeTx: (cluster: string, batch: HistoryBatch) => void;
  private readonly statements = new Map<string, Database.Statement>();

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
      reassignments: db.prepare("SELECT at, total, by_role, by_node, by_collector, sample FROM reassignments WHERE cluster = ? AND at BETWEEN ? AND ? ORDER BY at DESC, id DESC LIMIT ?"),
      polls: db.prepare("SELECT at, poll_ms, roles FROM poll_summaries WHERE cluster = ? AND at BETWEEN ? AND ? ORDER BY at DESC, id DESC LIMIT ?"),
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
    return rows.filter((r) => isRole(r.role) && KINDS.has(r.kind as ReadinessKind)).map(toEvent);
  }

  reassignments(cluster: string, range: Range, limit = ROWS_READ): ReassignmentRecord[] {
    return (this.stmt.reassignments.all(cluster, range.from, range.to, limit) as Row[]).reverse().map(toRecord);
  }

  polls(cluster: string, range: Range, limit = ROWS_READ): PollPoint[] {
    return (this.stmt.polls.all(cluster, range.from, range.to, limit) as Row[]).reverse().map((r) => ({ at: Number(r.at), pollMs: Number(r.poll_ms), roles: parse(r.roles, {}) }));
  }

  /**
   * The churn aggregate in SQL: counts per bucket, the flapping ranking, totals and top lists (json_each over the stored
   * per-poll lists), the series (json_extract over the poll summaries); only the latest events and the newest reassignment
   * samples come back as rows. Narrowed to a node or pod, reassignment records are read (the newest REASSIGNMENTS_READ)
   * and narrowed as `aggregateChurn` does.
   */
  churn(cluster: string, q: ChurnAggregateQuery): ChurnAggregate {
    const p = { cluster, from: q.from, to: q.to, buckets: q.buckets, span: q.to - q.from, node: q.node ?? null, pod: q.pod ?? null };
    const readinessWhere = `${RANGE} AND role IN (${ROLES_SQL}) AND kind IN (${KINDS_SQL})${q.node !== undefined ? " AND node = @node" : ""}${q.pod !== undefined ? " AND pod = @pod" : ""}`;
    const byBucket = (rows: Row[]) => rows.filter((r) => isRole(r.role)).map((r) => ({ bucket: Number(r.bucket), role: r.role as Role, count: Number(r.count) }));
    const readinessByBucket = byBucket(this.sql(`SELECT ${BUCKET} AS bucket, role, count(*) AS count FROM readiness_events WHERE ${readinessWhere} GROUP BY bucket, role`).all(p) as Row[]);
    const eventsInRange = Number(this.sql(`SELECT count(*) FROM readiness_events WHERE ${readinessWhere}`).pluck().get(p));
    const events = (this.sql(`SELECT at, role, pod, node, ready, kind, reason FROM readiness_events WHERE ${readinessWhere} ORDER BY at DESC, id DESC LIMIT ${EVENTS_SHOWN}`).all(p) as Row[]).map(toEvent);
    // SQLite: the bare column `node` comes from the row holding max(at), the pod's latest event
    const flapping = (
      this.sql(
        `SELECT role, pod, node, count(*) AS transitions, max(at) AS last_at FROM readiness_events WHERE ${readinessWhere} AND kind IN ('became_ready', 'became_not_ready') GROUP BY role, pod ORDER BY transitions DESC, last_at DESC, pod LIMIT ${FLAPPING_SHOWN}`,
      ).all(p) as Row[]
    ).map((r) => ({ pod: String(r.pod), role: r.role as Role, node: (r.node as string | null) ?? null, transitions: Number(r.transitions), lastAt: Number(r.last_at) }));

    let reassignmentsByBucket: BucketCount[];
    let reassignments: ReassignmentTotals;
    let reassignmentsTruncated = false;
    if (isFiltered(q)) {
      const rows = this.sql(`SELECT at, total, by_role, by_node, by_collector, sample FROM reassignments WHERE ${RANGE} ORDER BY at DESC, id DESC LIMIT ${REASSIGNMENTS_READ + 1}`).all(p) as Row[];
      reassignmentsTruncated = rows.length > REASSIGNMENTS_READ;
      const records = rows.slice(0, REASSIGNMENTS_READ).reverse().map(toRecord);
      const a = aggregateChurn({ readiness: [], reassignments: records, polls: [] }, { ...q, series: false });
      reassignmentsByBucket = a.reassignmentsByBucket;
      reassignments = a.reassignments;
    } else {
      reassignmentsByBucket = byBucket(
        this.sql(`SELECT ${BUCKET} AS bucket, j.key AS role, sum(j.value) AS count FROM reassignments, json_each(${safeJson("by_role", "{}")}) j WHERE ${RANGE} GROUP BY bucket, role`).all(p) as Row[],
      );
      const total = Number(this.sql(`SELECT coalesce(sum(total), 0) FROM reassignments WHERE ${RANGE}`).pluck().get(p));
      const byNode = (
        this.sql(
          `SELECT json_extract(j.value, '$.node') AS node, sum(json_extract(j.value, '$.count')) AS count FROM reassignments, json_each(${safeJson("by_node", "[]")}) j WHERE ${RANGE} GROUP BY 1 ORDER BY count DESC, coalesce(node, '') LIMIT ${TOP}`,
        ).all(p) as Row[]
      ).map((r) => ({ node: (r.node as string | null) ?? null, count: Number(r.count) }));
      const byCollector = (
        this.sql(
          `SELECT json_extract(j.value, '$.role') AS role, json_extract(j.value, '$.from') AS "from", json_extract(j.value, '$.to') AS "to", sum(json_extract(j.value, '$.count')) AS count FROM reassignments, json_each(${safeJson("by_collector", "[]")}) j WHERE ${RANGE} GROUP BY 1, 2, 3 ORDER BY count DESC, "from", "to" LIMIT ${TOP}`,
        ).all(p) as Row[]
      )
        .filter((r) => isRole(r.role))
        .map((r) => ({ role: r.role as Role, from: String(r.from), to: String(r.to), count: Number(r.count) }));
      // every stored record moved at least one target, so the newest SAMPLE_CAP records hold the newest SAMPLE_CAP moves
      const newest = (this.sql(`SELECT at, sample FROM reassignments WHERE ${RANGE} ORDER BY at DESC, id LIMIT ${SAMPLE_CAP}`).all(p) as Row[]).map((r) => ({
        at: Number(r.at),
        total: 0,
        byRole: {},
        byNode: [],
        byCollector: [],
        sample: parse<TargetMove[]>(r.sample, []),
      }));
      reassignments = { total, byNode, byCollector, sample: mergeReassignments(newest, TOP, SAMPLE_CAP).sample };
    }

    return {
      readinessByBucket,
      reassignmentsByBucket,
      flapping,
      events,
      eventsInRange,
      reassignments,
      series: q.series === false ? [] : this.series(p),
      reassignmentsTruncated,
    };
  }

  /** The series of `series()` (lib/analysis/churn.ts) computed in SQL, one row per bucket that holds polls. */
  private series(p: { from: number; to: number; buckets: number } & Record<string, unknown>): SeriesPoint[] {
    const role = (r: Role, field: string) => `json_extract(roles, '$."${r}".${field}')`;
    const cols = ROLES.flatMap((r, i) => [`sum(json_type(roles, '$."${r}"') = 'object') AS present${i}`, `avg(${role(r, "localityRatio")}) AS ratio${i}`]);
    const ghosts = ROLES.map((r) => `coalesce(${role(r, "ghosts")}, 0)`).join(" + ");
    const unassignedNull = ROLES.map((r) => `${role(r, "unassigned")} IS NULL`).join(" AND ");
    const unassigned = ROLES.map((r) => `coalesce(${role(r, "unassigned")}, 0)`).join(" + ");
    const rows = this.sql(
      `SELECT ${BUCKET} AS bucket, ${cols.join(", ")}, max(${ghosts}) AS ghosts, max(CASE WHEN ${unassignedNull} THEN NULL ELSE ${unassigned} END) AS unassigned FROM poll_summaries WHERE ${RANGE} AND json_valid(roles) GROUP BY bucket`,
    ).all(p) as Row[];
    const range = { from: p.from, to: p.to };
    const out: SeriesPoint[] = Array.from({ length: p.buckets }, (_, i) => ({ t: bucketStart(i, range, p.buckets), localityRatio: {}, ghosts: null, unassigned: null }));
    for (const r of rows) {
      const point = out[Number(r.bucket)];
      if (!point) continue;
      ROLES.forEach((role, i) => {
        if (Number(r[`present${i}`]) > 0) point.localityRatio[role] = r[`ratio${i}`] === null ? null : Number(r[`ratio${i}`]);
      });
      point.ghosts = r.ghosts === null ? null : Number(r.ghosts);
      point.unassigned = r.unassigned === null ? null : Number(r.unassigned);
    }
    return out;
  }

  /** A prepared statement, kept per SQL text (a handful of shapes: with or without the node and pod filters). */
  private sql(text: string): Database.Statement {
    let s = this.statements.get(text);
    if (!s) this.statements.set(text, (s = this.db.prepare(text)));
    return s;
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
