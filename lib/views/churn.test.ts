import { describe, expect, it } from "vitest";
import type { ReassignmentRecord } from "@/lib/analysis/reassignments";
import type { ReadinessEvent } from "@/lib/analysis/readiness";
import { aggregateChurn } from "@/lib/views/churn-aggregate";
import { churnQueryKey, MAX_LAST_MS, maxChurnRangeMs, parseChurnQuery, toChurnView, type ChurnQuery } from "@/lib/views/churn";
import { narrowChurnRows, narrowReassignment } from "@/lib/views/churn-rows";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const q = (s: string) => parseChurnQuery(new URLSearchParams(s), NOW);

describe("parseChurnQuery: last, node, pod", () => {
  it("takes a relative window ending now, unless from is given", () => {
    expect(q("last=900000")).toMatchObject({ ok: true, query: { from: NOW - 900_000, to: NOW } });
    expect(q(`last=900000&from=${NOW - 5000}`)).toMatchObject({ ok: true, query: { from: NOW - 5000 } });
    expect(q("last=0")).toMatchObject({ ok: false, param: "last" });
    expect(q(`last=${MAX_LAST_MS + 1}`)).toMatchObject({ ok: false, param: "last" });
    expect(q("last=1h")).toMatchObject({ ok: false, param: "last" });
  });

  it("keeps node and pod, and leaves them out when absent", () => {
    const r = q("node=ip-10-0-1-5&pod=agent-abc");
    expect(r).toMatchObject({ ok: true, query: { node: "ip-10-0-1-5", pod: "agent-abc" } });
    const plain = q("");
    expect(plain.ok && "node" in plain.query).toBe(false);
    expect(q(`node=${"x".repeat(254)}`)).toMatchObject({ ok: false, param: "node" });
  });
});

const ev = (at: number, pod: string, node: string | null, ready: boolean): ReadinessEvent => ({
  at,
  role: "per-node",
  pod,
  node,
  ready,
  kind: ready ? "became_ready" : "became_not_ready",
  reason: ready ? null : "not Ready",
});

const record: ReassignmentRecord = {
  at: NOW - 1000,
  total: 10,
  byRole: { "per-node": 6, "cluster-scraper": 4 },
  byNode: [
    { node: "n1", count: 7 },
    { node: "n2", count: 3 },
  ],
  byCollector: [
    { role: "per-node", from: "a", to: "b", count: 6 },
    { role: "cluster-scraper", from: "s1", to: "s2", count: 4 },
  ],
  sample: [
    { role: "per-node", job: "j", address: "x:1", node: "n1", from: "a", to: "b" },
    { role: "per-node", job: "j", address: "x:2", node: "n1", from: "a", to: "b" },
    { role: "cluster-scraper", job: "k", address: "y:1", node: "n2", from: "s1", to: "s2" },
  ],
};

describe("narrowReassignment", () => {
  it("is the identity without a filter", () => {
    expect(narrowReassignment(record, {})).toBe(record);
  });

  it("by node: exact total, pairs from the sample, the unsampled rest split like the poll", () => {
    const r = narrowReassignment(record, { node: "n1" })!;
    expect(r.total).toBe(7);
    expect(r.byNode).toEqual([{ node: "n1", count: 7 }]);
    expect(r.byCollector).toEqual([{ role: "per-node", from: "a", to: "b", count: 2 }]);
    expect(r.sample).toHaveLength(2);
    // 2 sampled per-node moves + 5 unsampled split 6:4 -> 3 + 2
    expect(r.byRole).toEqual({ "per-node": 5, "cluster-scraper": 2 });
    expect((r.byRole["per-node"] ?? 0) + (r.byRole["cluster-scraper"] ?? 0)).toBe(r.total);
  });

  it("by pod: exact pairs, total and roles", () => {
    const r = narrowReassignment(record, { pod: "s2" })!;
    expect(r).toMatchObject({ total: 4, byRole: { "cluster-scraper": 4 }, byCollector: [{ from: "s1", to: "s2", count: 4 }], byNode: [{ node: "n2", count: 1 }] });
  });

  it("null when nothing is left", () => {
    expect(narrowReassignment(record, { node: "n9" })).toBeNull();
    expect(narrowReassignment(record, { pod: "zz" })).toBeNull();
    expect(narrowReassignment(record, { node: "n2", pod: "a" })).toBeNull();
  });
});

describe("narrowChurnRows and the view's filter", () => {
  const rows = {
    readiness: [ev(NOW - 10, "a", "n1", true), ev(NOW - 20, "c", "n2", false), ev(NOW - 30, "a", "n1", false)],
    reassignments: [record],
    polls: [],
  };

  it("keeps one node's readiness events, newest first", () => {
    const r = narrowChurnRows(rows, { node: "n1" });
    expect(r.readiness.map((e) => e.at)).toEqual([NOW - 10, NOW - 30]);
    expect(r.reassignments[0].total).toBe(7);
    expect(narrowChurnRows(rows, {})).toBe(rows);
  });

  it("says what it was narrowed to", () => {
    const fresh = { at: NOW, pollIntervalMs: 15_000, stale: [] };
    const range = { from: NOW - 3_600_000, to: NOW, buckets: 4 };
    const backend = { backend: "sqlite" as const, error: null, path: null };
    const v = toChurnView(fresh, "c1", { ...range, node: "n2" }, backend, aggregateChurn(rows, { ...range, node: "n2" }));
    expect(v.filter).toEqual({ node: "n2", pod: null });
    expect(v.events.map((e) => e.pod)).toEqual(["c"]);
    expect(v.flapping).toEqual([{ pod: "c", role: "per-node", node: "n2", transitions: 1, lastAt: NOW - 20 }]);
    expect(v.reassignments.total).toBe(3);
    expect(toChurnView(fresh, "c1", range, backend, aggregateChurn(rows, range)).filter).toEqual({ node: null, pod: null });
  });
});

describe("parseChurnQuery: bounds", () => {
  const DAY = 86_400_000;
  const bounded = (s: string, options = {}) => parseChurnQuery(new URLSearchParams(s), NOW, options);

  it("refuses times outside sane bounds with a 400 naming the parameter, never throwing", () => {
    expect(() => bounded("from=99999999999999999&to=1")).not.toThrow();
    expect(bounded("from=99999999999999999&to=1")).toMatchObject({ ok: false, param: "from" });
    expect(bounded("to=99999999999999999")).toMatchObject({ ok: false, param: "to" });
    expect(bounded(`from=${"9".repeat(400)}`)).toMatchObject({ ok: false, param: "from" });
    expect(bounded("from=0")).toMatchObject({ ok: false, param: "from", message: expect.stringMatching(/^from: expected a time from 2000-01-01/) });
    expect(bounded("from=1999-12-31T23:59:59Z")).toMatchObject({ ok: false, param: "from" });
    expect(bounded(`to=${NOW + 2 * 3_600_000}`)).toMatchObject({ ok: false, param: "to", message: expect.stringMatching(/after the server's time/) });
    expect(bounded(`from=${NOW + 2 * 3_600_000}`)).toMatchObject({ ok: false, param: "from" });
    expect(bounded(`to=${NOW + 60_000}`)).toMatchObject({ ok: true }); // clock skew
    expect(bounded("buckets=1001")).toMatchObject({ ok: false, param: "buckets" });
    expect(bounded("buckets=99999999999999999999")).toMatchObject({ ok: false, param: "buckets" });
    expect(bounded(`last=${"9".repeat(30)}`)).toMatchObject({ ok: false, param: "last" });
  });

  it("clamps a range longer than the maximum to its end, and says so", () => {
    const r = bounded(`from=${Date.UTC(2000, 0, 1)}&to=${NOW}`, { maxRangeMs: 7 * DAY });
    expect(r).toMatchObject({ ok: true, query: { from: NOW - 7 * DAY, to: NOW, clamped: true } });
    expect(bounded(`last=${MAX_LAST_MS}`, { maxRangeMs: 30 * DAY })).toMatchObject({ ok: true, query: { from: NOW - 30 * DAY, to: NOW, clamped: true } });
    const inside = bounded("last=3600000", { maxRangeMs: 7 * DAY });
    expect(inside.ok && inside.query.clamped).toBeUndefined();
  });

  it("the maximum is the local retention, or at least 30 days with a Prometheus backend", () => {
    expect(maxChurnRangeMs({ retentionDays: 7 })).toBe(7 * DAY);
    expect(maxChurnRangeMs({ retentionDays: 7, prometheus: { url: "http://p:9090" } })).toBe(30 * DAY);
    expect(maxChurnRangeMs({ retentionDays: 90, prometheus: { url: "http://p:9090" } })).toBe(90 * DAY);
  });

  it("a relative range ends at the poll's time, so requests of one poll normalise to one key", () => {
    const poll = NOW - 4000;
    const a = bounded("last=3600000", { anchor: poll });
    const b = parseChurnQuery(new URLSearchParams("last=3600000&buckets=60"), NOW + 3000, { anchor: poll });
    expect(a).toMatchObject({ ok: true, query: { from: poll - 3_600_000, to: poll } });
    expect(a.ok && b.ok && churnQueryKey(a.query)).toBe(b.ok && churnQueryKey(b.query));
    expect(a.ok && churnQueryKey(a.query)).not.toBe(churnQueryKey((bounded("last=3600000&source=local", { anchor: poll }) as { query: ChurnQuery }).query));
    // an open range starting after the poll ends now
    expect(bounded(`from=${NOW - 1000}`, { anchor: poll })).toMatchObject({ ok: true, query: { from: NOW - 1000, to: NOW } });
  });
});
