import { describe, expect, it } from "vitest";
import { byRole, middleEllipsis, sourceLine, localOnlyNote } from "@/lib/views/churn-view";
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

describe("middleEllipsis", () => {
  it("keeps short names and the distinguishing end of long ones", () => {
    expect(middleEllipsis("cloudwatch-agent-222xz", 24)).toBe("cloudwatch-agent-222xz");
    const s = middleEllipsis("cloudwatch-agent-cluster-scraper-gxb48m75vq-qscv5", 26);
    expect(s).toHaveLength(26);
    expect(s.endsWith("75vq-qscv5")).toBe(true);
    expect(s).toBe("cloudwatch-ag…8m75vq-qscv5");
  });
});


describe("byRole", () => {
  it("counts what the role filter hides", () => {
    const items = [{ role: "per-node" as const }, { role: "cluster-scraper" as const }, { role: "per-node" as const }];
    expect(byRole(items, null)).toMatchObject({ hidden: 0 });
    expect(byRole(items, "cluster-scraper")).toMatchObject({ shown: [{ role: "cluster-scraper" }], hidden: 2 });
  });
});

