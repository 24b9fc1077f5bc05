import { describe, expect, it } from "vitest";
import type { SeriesPoint, TimelineBucket } from "@/lib/analysis/churn";
import {
  RANGES,
  byRole,
  fromInputValue,
  isolatedPoints,
  middleEllipsis,
  parseInstant,
  rangeRequest,
  seriesRoles,
  seriesRows,
  timelineRows,
  timelineTotals,
  toInputValue,
  widerRange,
  rangeKeys,
  sourceLine,
  localOnlyNote,
} from "@/lib/views/churn-view";
import type { ChurnSource } from "@/lib/views/churn-source";

const T = Date.parse("2026-03-01T12:03:07Z");

describe("source", () => {
  const src = (o: Partial<ChurnSource>): ChurnSource => ({ requested: "auto", answered: "local", prometheus: { endpoint: "https://mimir.example.com/prometheus" }, fallback: false, error: null, localFrom: T, ...o });
  it("names the backend by host, says when Prometheus failed, and nothing without one", () => {
    expect(sourceLine(src({ answered: "prometheus" }))).toMatchObject({ text: "from Prometheus at mimir.example.com", tone: "info", title: expect.stringContaining("https://mimir.example.com/prometheus") });
    expect(sourceLine(src({}))).toMatchObject({ text: "local history", tone: "muted" });
    expect(sourceLine(src({ fallback: true, error: { kind: "network", message: "ECONNREFUSED", hint: null } }))).toEqual({ text: "local history: Prometheus failed", title: "ECONNREFUSED", tone: "warn" });
    expect(sourceLine(src({ prometheus: null }))).toBeNull();
    expect(sourceLine(undefined)).toBeNull();
  });

  it("says what the local-only panels cover when Prometheus answered", () => {
    expect(localOnlyNote(src({ answered: "prometheus" }), T - 1000, T + 1000)).toEqual({ text: "local since 12:03", title: expect.stringContaining("2026-03-01 12:03 UTC") });
    expect(localOnlyNote(src({ answered: "prometheus" }), T - 1000, T + 86_400_000)?.text).toBe("local since 03-01 12:03");
    expect(localOnlyNote(src({ answered: "prometheus" }), T, T + 1000)).toBeNull();
    expect(localOnlyNote(src({ answered: "prometheus", localFrom: null }), T, T + 1000)?.text).toBe("no local history");
    expect(localOnlyNote(src({}), T - 1000, T)).toBeNull();
  });
});

describe("ranges", () => {
  it("widens to the next preset, not past the largest", () => {
    expect(widerRange("15m")).toBe("1h");
    expect(widerRange("1h")).toBe("6h");
    expect(widerRange("7d")).toBeNull();
    expect(widerRange("7d", true)).toBe("30d");
    expect(widerRange("30d", true)).toBeNull();
  });

  it("offers 30 d only with a Prometheus backend", () => {
    expect(rangeKeys(false)).toEqual(["15m", "1h", "6h", "24h", "7d"]);
    expect(rangeKeys(true)).toEqual(["15m", "1h", "6h", "24h", "7d", "30d"]);
    expect(RANGES["30d"]).toMatchObject({ ms: 30 * 86_400_000, label: "30 d", buckets: 90 });
  });

  it("asks for a relative window unless a valid custom range is set", () => {
    expect(rangeRequest("6h", null, null)).toEqual({ kind: "preset", key: "6h", last: RANGES["6h"].ms, buckets: 72 });
    expect(rangeRequest("1h", "2026-03-01T10:00", "2026-03-01T11:00")).toEqual({ kind: "custom", from: Date.parse("2026-03-01T10:00Z"), to: Date.parse("2026-03-01T11:00Z"), buckets: 60 });
    expect(rangeRequest("1h", String(T - 1000), null)).toEqual({ kind: "custom", from: T - 1000, to: null, buckets: 60 });
    expect(rangeRequest("1h", null, String(T))).toMatchObject({ kind: "custom", from: T - 3_600_000, to: T });
    // from after to, or garbage: back to the preset
    expect(rangeRequest("1h", String(T), String(T - 1))).toMatchObject({ kind: "preset", key: "1h" });
    expect(rangeRequest("1h", "yesterday", null)).toMatchObject({ kind: "preset" });
  });

  it("reads times without an offset as UTC", () => {
    expect(parseInstant("2026-03-01T12:03")).toBe(Date.parse("2026-03-01T12:03:00Z"));
    expect(parseInstant("2026-03-01T12:03:00+01:00")).toBe(Date.parse("2026-03-01T11:03:00Z"));
    expect(parseInstant(String(T))).toBe(T);
    expect(parseInstant("")).toBeNull();
    expect(fromInputValue(toInputValue(T))).toBe(Date.parse("2026-03-01T12:03:00Z"));
  });
});

describe("middleEllipsis", () => {
  it("keeps short names and the distinguishing end of long ones", () => {
    expect(middleEllipsis("cloudwatch-agent-222xz", 24)).toBe("cloudwatch-agent-222xz");
    const s = middleEllipsis("cloudwatch-agent-cluster-scraper-gxb48m75vq-qscv5", 26);
    expect(s).toHaveLength(26);
    expect(s.endsWith("75vq-qscv5")).toBe(true);
    expect(s).toBe("cloudwatch-ag…8m75vq-qscv5");
  });
});


const bucket = (t: number, pn: [number, number], cs?: [number, number]): TimelineBucket => ({
  t,
  readiness: pn[0] + (cs?.[0] ?? 0),
  reassignments: pn[1] + (cs?.[1] ?? 0),
  byRole: { "per-node": { readiness: pn[0], reassignments: pn[1] }, ...(cs ? { "cluster-scraper": { readiness: cs[0], reassignments: cs[1] } } : {}) },
});

describe("timelineRows", () => {
  const buckets = [bucket(0, [1, 10], [2, 0]), bucket(60, [0, 0])];

  it("flattens per role with the bucket's end", () => {
    const rows = timelineRows(buckets, 120, null);
    expect(rows[0]).toEqual({ t: 0, end: 60, ready_pn: 1, ready_cs: 2, moves_pn: 10, moves_cs: 0 });
    expect(rows[1].end).toBe(120);
    expect(timelineTotals(rows)).toEqual({ readiness: 3, reassignments: 10 });
  });

  it("zeroes the other role when filtered", () => {
    expect(timelineTotals(timelineRows(buckets, 120, "cluster-scraper"))).toEqual({ readiness: 2, reassignments: 0 });
  });
});

describe("series", () => {
  const points: SeriesPoint[] = [
    { t: 0, localityRatio: { "per-node": 0.98765 }, ghosts: 3, unassigned: 0 },
    { t: 60, localityRatio: {}, ghosts: null, unassigned: null },
  ];

  it("turns ratios into percents and keeps gaps as null", () => {
    expect(seriesRows(points)).toEqual([
      { t: 0, locality_pn: 98.8, locality_cs: null, ghosts: 3, unassigned: 0 },
      { t: 60, locality_pn: null, locality_cs: null, ghosts: null, unassigned: null },
    ]);
    expect(seriesRoles(points)).toEqual(["per-node"]);
    expect([...isolatedPoints(seriesRows(points), "ghosts")]).toEqual([0]);
    expect([...isolatedPoints(seriesRows([...points, points[0], points[0]]), "ghosts")]).toEqual([0]);
  });
});

describe("byRole", () => {
  it("counts what the role filter hides", () => {
    const items = [{ role: "per-node" as const }, { role: "cluster-scraper" as const }, { role: "per-node" as const }];
    expect(byRole(items, null)).toMatchObject({ hidden: 0 });
    expect(byRole(items, "cluster-scraper")).toMatchObject({ shown: [{ role: "cluster-scraper" }], hidden: 2 });
  });
});

