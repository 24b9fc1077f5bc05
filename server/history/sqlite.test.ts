import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import type { PollPoint } from "@/lib/analysis/poll-points";
import type { ReadinessEvent } from "@/lib/analysis/readiness";
import type { ReassignmentRecord } from "@/lib/analysis/reassignments";
import { SqliteHistory } from "@/server/history/sqlite";
import { MemoryHistory, Ring } from "@/server/history/memory";
import { DAY_MS, type HistoryStore } from "@/server/history/types";
import { aggregateChurn, type BucketCount, type ChurnAggregate } from "@/lib/views/churn-aggregate";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const limits = { retentionDays: 7, maxBytes: 256 * 1024 * 1024 };

const event = (at: number, pod = "agent-a", kind: ReadinessEvent["kind"] = "became_not_ready"): ReadinessEvent => ({
  at,
  role: "per-node",
  pod,
  node: "node-1",
  ready: kind === "became_ready",
  kind,
  reason: kind === "became_ready" ? null : "not Ready",
});
const poll = (at: number): PollPoint => ({
  at,
  pollMs: 12.5,
  roles: { "per-node": { targets: { ghost: 1, nodeless: 0, local: 9, cross_zone: 0, cross_node: 0 }, unassigned: 0, ghosts: 1, localityRatio: 1, collectorsReady: 3, collectorsTotal: 4 } },
});
const moves = (at: number, total = 2): ReassignmentRecord => ({
  at,
  total,
  byRole: { "per-node": total },
  byNode: [{ node: "node-1", count: total }],
  byCollector: [{ role: "per-node", from: "agent-a", to: "agent-b", count: total }],
  sample: [{ role: "per-node", job: "j", address: "10.0.0.1:9100", node: "node-1", from: "agent-a", to: "agent-b" }],
});
const all = { from: 0, to: Number.MAX_SAFE_INTEGER };

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "history-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function roundTrip(store: HistoryStore) {
  expect(store.oldest("c1")).toBeNull();
  store.write("c1", { readiness: [event(NOW - 2000), event(NOW - 1000, "agent-b", "became_ready")], poll: poll(NOW - 500), reassignments: moves(NOW - 500) });
  store.write("c1", { readiness: [], poll: poll(NOW), reassignments: null });
  store.write("c2", { readiness: [event(NOW)], poll: poll(NOW) });
  const events = store.readiness("c1", all, 10);
  expect(events.map((e) => e.pod)).toEqual(["agent-b", "agent-a"]); // newest first
  expect(events[1]).toEqual(event(NOW - 2000));
  expect(store.readiness("c1", all, 1)).toHaveLength(1);
  expect(store.readiness("c1", { from: NOW - 1500, to: NOW }, 10)).toHaveLength(1);
  expect(store.reassignments("c1", all)).toEqual([moves(NOW - 500)]);
  expect(store.polls("c1", all)).toEqual([poll(NOW - 500), poll(NOW)]);
  expect(store.polls("c2", all)).toHaveLength(1);
  expect(store.oldest("c1")).toBe(NOW - 500);
  expect(store.oldest("c2")).toBe(NOW);
  expect(store.oldest("c3")).toBeNull();
}

describe("SqliteHistory", () => {
  it("round-trips events, reassignments and poll summaries per cluster", () => {
    const store = new SqliteHistory(path.join(dir, "h.sqlite"), limits);
    expect(store.status).toEqual({ backend: "sqlite", path: path.join(dir, "h.sqlite"), error: null });
    roundTrip(store);
    store.close();
  });

  it("uses WAL and keeps the data across a close and reopen", () => {
    const file = path.join(dir, "h.sqlite");
    const a = new SqliteHistory(file, limits);
    a.write("c1", { readiness: [event(NOW)], poll: poll(NOW), reassignments: moves(NOW) });
    a.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    raw.close();
    const b = new SqliteHistory(file, limits);
    expect(b.readiness("c1", all, 10)).toEqual([event(NOW)]);
    expect(b.reassignments("c1", all)).toHaveLength(1);
    expect(b.polls("c1", all)).toEqual([poll(NOW)]);
    b.close();
  });

  it("deletes rows older than the retention, at most once a minute unless forced", () => {
    const store = new SqliteHistory(path.join(dir, "h.sqlite"), { ...limits, retentionDays: 7 });
    const old = NOW - 8 * DAY_MS;
    store.write("c1", { readiness: [event(NOW - DAY_MS)], poll: poll(NOW) }); // maintenance ran at NOW
    store.write("c1", { readiness: [event(old)], poll: poll(old), reassignments: moves(old) });
    store.maintain(NOW + 30_000); // 30 s after the last run: skipped
    expect(store.polls("c1", all)).toHaveLength(2);
    store.maintain(NOW + 60_000);
    expect(store.readiness("c1", all, 10).map((e) => e.at)).toEqual([NOW - DAY_MS]);
    expect(store.polls("c1", all).map((p) => p.at)).toEqual([NOW]);
    expect(store.reassignments("c1", all)).toEqual([]);
    store.write("c1", { readiness: [event(old)], poll: poll(NOW + 70_000) });
    store.maintain(NOW + 80_000, true);
    expect(store.readiness("c1", all, 10)).toHaveLength(1);
    store.close();
  });

  it("keeps the file under maxBytes by deleting the oldest rows", () => {
    const maxBytes = 256 * 1024;
    const file = path.join(dir, "h.sqlite");
    const store = new SqliteHistory(file, { retentionDays: 7, maxBytes });
    const big = (at: number): ReassignmentRecord => ({ ...moves(at), sample: Array.from({ length: 100 }, (_, i) => ({ role: "per-node", job: `job-${i}`, address: `10.0.${i}.1:9100`, node: `node-${i}`, from: "agent-a", to: "agent-b" })) });
    const t0 = NOW - 3600_000;
    for (let i = 0; i < 200; i++) store.write("c1", { readiness: [event(t0 + i)], poll: poll(t0 + i), reassignments: big(t0 + i) });
    expect(store.sizeBytes()).toBeGreaterThan(maxBytes);
    store.maintain(NOW, true);
    expect(store.sizeBytes()).toBeLessThanOrEqual(maxBytes);
    expect(fs.statSync(file).size).toBeLessThanOrEqual(maxBytes); // pages given back to the file system
    const left = store.polls("c1", all);
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(200);
    expect(left.at(-1)!.at).toBe(t0 + 199); // the newest rows stay
    expect(left[0].at).toBeGreaterThan(t0);
    store.close();
  });

  it("refuses a file that is not a database", () => {
    const file = path.join(dir, "garbage.sqlite");
    fs.writeFileSync(file, Buffer.alloc(8192, 0x5a));
    expect(() => new SqliteHistory(file, limits)).toThrow(/not a database/);
  });

  it("refuses a database of another schema version", () => {
    const file = path.join(dir, "h.sqlite");
    new SqliteHistory(file, limits).close();
    const raw = new Database(file);
    raw.prepare("UPDATE meta SET value = '99' WHERE key = 'schema'").run();
    raw.close();
    expect(() => new SqliteHistory(file, limits)).toThrow(/schema version 99/);
  });
});

describe("MemoryHistory", () => {
  it("round-trips like SqliteHistory", () => {
    roundTrip(new MemoryHistory(7));
  });

  it("applies the retention and its ring buffers drop the oldest", () => {
    const store = new MemoryHistory(7, {}, { readiness: 3, reassignments: 3, polls: 3 });
    store.write("c1", { readiness: [event(NOW - 8 * DAY_MS)], poll: poll(NOW - 8 * DAY_MS) });
    store.maintain(NOW, true);
    expect(store.readiness("c1", all, 10)).toEqual([]);
    for (let i = 0; i < 5; i++) store.write("c1", { readiness: [event(NOW + i)], poll: poll(NOW + i) });
    expect(store.readiness("c1", all, 10).map((e) => e.at)).toEqual([NOW + 4, NOW + 3, NOW + 2]);
    expect(store.polls("c1", all).map((p) => p.at)).toEqual([NOW + 2, NOW + 3, NOW + 4]);
  });

  it("Ring keeps order across wrap-around and retain", () => {
    const r = new Ring<number>(3);
    for (const n of [1, 2, 3, 4, 5]) r.push(n);
    expect(r.toArray()).toEqual([3, 4, 5]);
    r.retain((n) => n !== 4);
    r.push(6);
    r.push(7);
    expect(r.toArray()).toEqual([5, 6, 7]);
  });
});

describe("the churn aggregate: SQL, with bounded rows, means what aggregateChurn computes", () => {
  const t0 = NOW - 3_600_000;
  const roles = ["per-node", "cluster-scraper"] as const;
  const pods = ["agent-a", "agent-b", "agent-c", "scraper-0"];
  const nodes = ["node-1", "node-2", null];
  const kinds: ReadinessEvent["kind"][] = ["became_not_ready", "became_ready", "added", "became_not_ready", "deleted", "became_ready"];
  const fixture = () => {
    const batches: { readiness: ReadinessEvent[]; poll: PollPoint; reassignments: ReassignmentRecord | null }[] = [];
    for (let i = 0; i < 240; i++) {
      const at = t0 + i * 15_000;
      const readiness = Array.from({ length: i % 4 }, (_, k): ReadinessEvent => {
        const kind = kinds[(i + k) % kinds.length];
        return { at: at - 1000 + k, role: roles[(i + k) % 2], pod: pods[(i * 3 + k) % pods.length], node: nodes[(i + k) % 3], ready: kind === "became_ready", kind, reason: kind === "became_ready" ? null : "not Ready" };
      });
      const n = (i % 5) + 1;
      const reassignments: ReassignmentRecord | null =
        i % 3 === 0
          ? null
          : {
              at,
              total: n + 2,
              byRole: { "per-node": n, "cluster-scraper": 2 },
              byNode: [
                { node: `node-${(i % 2) + 1}`, count: n },
                { node: null, count: 2 },
              ],
              byCollector: [
                { role: "per-node", from: "agent-a", to: `agent-${i % 2 ? "b" : "c"}`, count: n },
                { role: "cluster-scraper", from: "scraper-0", to: "scraper-1", count: 2 },
              ],
              sample: Array.from({ length: n }, (_, k) => ({ role: "per-node" as const, job: "j", address: `10.0.${i}.${k}:9100`, node: `node-${(i % 2) + 1}`, from: "agent-a", to: "agent-b" })),
            };
      const ratio = [1, 0.5, 0.25, null][i % 4];
      const poll: PollPoint = {
        at,
        pollMs: 10,
        roles: {
          "per-node": { targets: { ghost: i % 3, nodeless: 0, local: 9, cross_zone: 0, cross_node: 1 }, unassigned: i % 7 === 0 ? null : i % 4, ghosts: i % 3, localityRatio: ratio, collectorsReady: 3, collectorsTotal: 3 },
          ...(i % 2 ? { "cluster-scraper": { targets: { ghost: 1, nodeless: 5, local: 0, cross_zone: 0, cross_node: 0 }, unassigned: i % 7 === 0 ? null : 1, ghosts: 1, localityRatio: null, collectorsReady: 1, collectorsTotal: 1 } } : {}),
        },
      };
      batches.push({ readiness, poll, reassignments });
    }
    return batches;
  };

  /** Rows handed from SQLite to JavaScript by every statement while `fn` runs. */
  function rowsRead(fn: () => void): number {
    const probe = new Database(":memory:");
    const proto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as { all: (...a: unknown[]) => unknown[]; get: (...a: unknown[]) => unknown };
    probe.close();
    const { all: realAll, get: realGet } = proto;
    let n = 0;
    proto.all = function (this: unknown, ...a: unknown[]) {
      const r = realAll.apply(this, a);
      n += r.length;
      return r;
    };
    proto.get = function (this: unknown, ...a: unknown[]) {
      n++;
      return realGet.apply(this, a);
    };
    try {
      fn();
    } finally {
      proto.all = realAll;
      proto.get = realGet;
    }
    return n;
  }

  it("agrees with aggregateChurn over the rows, for the whole cluster and narrowed, and with MemoryHistory", () => {
    const sqlite = new SqliteHistory(path.join(dir, "h.sqlite"), limits);
    const memory = new MemoryHistory(7);
    for (const b of fixture()) {
      sqlite.write("c1", b);
      memory.write("c1", b);
    }
    sqlite.write("c2", { readiness: [event(NOW - 5)], poll: poll(NOW - 5), reassignments: moves(NOW - 5) });
    const range = { from: t0 + 7_000, to: NOW - 90_000 };
    for (const filter of [{}, { node: "node-1" }, { pod: "agent-b" }, { node: "node-2", pod: "agent-a" }, { node: "nowhere" }]) {
      for (const buckets of [1, 7, 60]) {
        const q = { ...range, buckets, ...filter };
        const rows = { readiness: sqlite.readiness("c1", range, 1_000_000), reassignments: sqlite.reassignments("c1", range), polls: sqlite.polls("c1", range) };
        const expected = aggregateChurn(rows, q);
        const got = sqlite.churn("c1", q);
        const sorted = (a: ChurnAggregate) => ({ ...a, readinessByBucket: sortCounts(a.readinessByBucket), reassignmentsByBucket: sortCounts(a.reassignmentsByBucket) });
        expect(sorted(got), JSON.stringify(q)).toEqual(sorted(expected));
        expect(sorted(memory.churn("c1", q)), JSON.stringify(q)).toEqual(sorted(expected));
        expect(sqlite.churn("c1", { ...q, series: false }).series).toEqual([]);
      }
    }
    expect(sqlite.churn("c1", { ...range, buckets: 10 }).eventsInRange).toBeGreaterThan(200); // the list is capped, the count is not
    sqlite.close();
  });

  it("hands JavaScript a bounded number of rows however many the range holds", () => {
    const store = new SqliteHistory(path.join(dir, "h.sqlite"), limits);
    const batches = fixture();
    for (let round = 0; round < 4; round++) for (const b of batches) store.write("c1", { ...b, readiness: b.readiness.map((e) => ({ ...e, at: e.at - round })) });
    const q = { from: t0 - 10_000, to: NOW, buckets: 60 };
    let events = 0;
    const read = rowsRead(() => (events = store.churn("c1", q).eventsInRange));
    expect(events).toBeGreaterThan(1000);
    // the latest events (200), 60 buckets x 2 roles twice, top lists (20 each), flapping (20), 100 newest samples, 60 series rows, counts
    expect(read).toBeLessThanOrEqual(200 + 2 * 120 + 40 + 20 + 100 + 60 + 4);
    expect(read).toBeLessThan(events);
    store.close();
  });
});

const sortCounts = (c: readonly BucketCount[]) => [...c].sort((a, b) => a.bucket - b.bucket || a.role.localeCompare(b.role));
