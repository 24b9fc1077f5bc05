import { describe, expect, it } from "vitest";
import { bucketOf, flappersFromVector, rangeGrid, rankFlappers, seriesFromMatrices, timelineFromMatrices } from "./reshape";
import { promResponseSchema, type Matrix } from "./schemas";

const FROM = Date.parse("2026-03-01T12:00:00Z");
const range = { from: FROM, to: FROM + 600_000 };
/** the evaluation instant (seconds) that ends bucket i of 10 one-minute buckets */
const end = (i: number) => (FROM + (i + 1) * 60_000) / 1000;
const matrix = (metric: Record<string, string>, points: [number, string][]): Matrix[number] => ({ metric, values: points });

describe("the grid", () => {
  it("evaluates at each bucket's end", () => {
    expect(rangeGrid(range, 10)).toEqual({ start: end(0), end: end(9), step: 60, widthMs: 60_000 });
    expect(bucketOf(end(0), range, 10, 60_000)).toBe(0);
    expect(bucketOf(end(9) + 0.001, range, 10, 60_000)).toBe(9);
    expect(bucketOf(FROM / 1000, range, 10, 60_000)).toBe(-1);
    expect(bucketOf(end(10), range, 10, 60_000)).toBe(-1);
  });
});

describe("timelineFromMatrices", () => {
  it("rounds each role's increase into its bucket and totals the roles", () => {
    const t = timelineFromMatrices(
      range,
      10,
      [matrix({ role: "per-node" }, [[end(0), "2.0169"], [end(3), "0.4"], [end(9), "1"]]), matrix({ role: "cluster-scraper" }, [[end(0), "1"]]), matrix({ role: "bogus" }, [[end(1), "9"]])],
      [matrix({ role: "per-node" }, [[end(3), "12"], [end(4), "NaN"]])],
    );
    expect(t).toHaveLength(10);
    expect(t[0]).toEqual({ t: FROM, readiness: 3, reassignments: 0, byRole: { "per-node": { readiness: 2, reassignments: 0 }, "cluster-scraper": { readiness: 1, reassignments: 0 } } });
    expect(t[1].readiness).toBe(0);
    expect(t[3]).toMatchObject({ readiness: 0, reassignments: 12 });
    expect(t[4].reassignments).toBe(0);
    expect(t.reduce((s, b) => s + b.readiness, 0)).toBe(4);
  });
});

describe("replicas", () => {
  it("does not count twice a flip two replicas scraped on either side of a bucket edge, nor sum replicas", () => {
    // 3 flips: replica a saw them in buckets 0, 1, 1; replica b (scraped later) in buckets 1, 1, 2
    const a = matrix({ role: "per-node", instance: "a" }, [[end(0), "1"], [end(1), "2"], [end(2), "0"]]);
    const b = matrix({ __name__: "x", role: "per-node", instance: "b" }, [[end(0), "0"], [end(1), "2"], [end(2), "1"]]);
    const t = timelineFromMatrices(range, 10, [a, b], []);
    expect(t.map((x) => x.readiness).slice(0, 4)).toEqual([1, 2, 0, 0]);
    expect(t.reduce((s, x) => s + x.readiness, 0)).toBe(3);
    // one replica restarted and missed the first flip: the other one's count stands
    const c = matrix({ role: "per-node", instance: "c" }, [[end(1), "1"], [end(2), "1"]]);
    expect(timelineFromMatrices(range, 10, [a, c], []).reduce((s, x) => s + x.readiness, 0)).toBe(3);
  });

  it("adds up replicas that follow each other (a dashboard pod replaced by a new one)", () => {
    const old = matrix({ role: "per-node", instance: "old" }, [[end(0), "2"], [end(1), "1"]]);
    const next = matrix({ role: "per-node", instance: "new" }, [[end(3), "0"], [end(4), "4"], [end(5), "1"]]);
    expect(timelineFromMatrices(range, 10, [old, next], []).map((x) => x.readiness).slice(0, 6)).toEqual([2, 1, 0, 0, 4, 1]);
    // a replica added while another runs sees the same events from then on: no double count
    const scaled = matrix({ role: "per-node", instance: "scaled" }, [[end(1), "0"], [end(4), "4"], [end(5), "1"]]);
    const both = matrix({ role: "per-node", instance: "both" }, [[end(0), "2"], [end(1), "1"], [end(4), "4"], [end(5), "1"]]);
    expect(timelineFromMatrices(range, 10, [both, scaled], []).reduce((s, x) => s + x.readiness, 0)).toBe(8);
  });
});

describe("seriesFromMatrices", () => {
  it("keeps the mean ratio per role and sums the worst ghosts and unassigned over roles; null without data", () => {
    const s = seriesFromMatrices(range, 10, {
      locality: [matrix({ role: "per-node" }, [[end(0), "0.75"]])],
      ghosts: [matrix({ role: "per-node" }, [[end(0), "3"]]), matrix({ role: "cluster-scraper" }, [[end(0), "2"], [end(1), "0"]])],
      unassigned: [matrix({ role: "cluster-scraper" }, [[end(1), "5"]])],
    });
    expect(s[0]).toEqual({ t: FROM, localityRatio: { "per-node": 0.75, "cluster-scraper": null }, ghosts: 5, unassigned: null });
    expect(s[1]).toEqual({ t: FROM + 60_000, localityRatio: { "cluster-scraper": null }, ghosts: 0, unassigned: 5 });
    expect(s[2]).toEqual({ t: FROM + 120_000, localityRatio: {}, ghosts: null, unassigned: null });
  });
});

describe("flapping", () => {
  it("merges a pod's series, ranks as rankFlapping does and dates each pod by its last bucket with a flip", () => {
    const pods = flappersFromVector([
      { metric: { role: "per-node", pod: "a", node: "" }, value: [end(9), "1"] },
      { metric: { role: "per-node", pod: "a", node: "n1" }, value: [end(9), "3.02"] },
      { metric: { role: "per-node", pod: "b", node: "n2" }, value: [end(9), "4"] },
      { metric: { role: "cluster-scraper", pod: "c", node: "n3" }, value: [end(9), "2"] },
      { metric: { role: "per-node", pod: "z", node: "n3" }, value: [end(9), "0.2"] },
    ]);
    expect(pods.find((p) => p.pod === "a")).toEqual({ pod: "a", role: "per-node", node: "n1", transitions: 4 });
    expect(pods.some((p) => p.pod === "z")).toBe(false);
    const ranked = rankFlappers(
      pods,
      [matrix({ role: "per-node", pod: "a" }, [[end(2), "1"], [end(7), "3"]]), matrix({ role: "per-node", pod: "b" }, [[end(4), "4"], [end(8), "0.1"]])],
      range,
    );
    expect(ranked.map((f) => [f.pod, f.transitions, f.lastAt])).toEqual([
      ["a", 4, end(7) * 1000],
      ["b", 4, end(4) * 1000],
      ["c", 2, range.to],
    ]);
    expect(rankFlappers(pods, [], range, 1)).toHaveLength(1);
  });
});

describe("promResponseSchema", () => {
  it("accepts a matrix, a vector and an error; refuses a wrong shape", () => {
    expect(promResponseSchema.safeParse({ status: "success", data: { resultType: "matrix", result: [{ metric: { role: "per-node" }, values: [[1, "2"]] }] } }).success).toBe(true);
    expect(promResponseSchema.safeParse({ status: "success", data: { resultType: "vector", result: [{ metric: {}, value: [1.5, "NaN"] }] } }).success).toBe(true);
    expect(promResponseSchema.safeParse({ status: "error", errorType: "bad_data", error: "parse error" }).success).toBe(true);
    expect(promResponseSchema.safeParse({ status: "success", data: { resultType: "matrix", result: [{ metric: {}, values: [["1", 2]] }] } }).success).toBe(false);
    expect(promResponseSchema.safeParse("<html>").success).toBe(false);
  });
});
