import { describe, expect, it } from "vitest";
import type { RoleDetails, RoleSummary } from "@/lib/api/schemas";
import { LOCALITY_EXPECTED, localityNote, scraperCard } from "./role-card";
import { roleSummary } from "@/test/fixtures/rows";

const summary = (over: Partial<RoleSummary> = {}): RoleSummary =>
  roleSummary({
    role: "cluster-scraper",
    strategy: "consistent-hashing",
    collectorsTotal: 2,
    classes: { ghost: 0, nodeless: 2, local: 0, cross_zone: 2, cross_node: 2 },
    localityRatio: 0,
    imbalance: { maxOverMean: 4 / 3, cv: 1 / 3 },
    ...over,
  });

const details = (over: Partial<RoleDetails> = {}): RoleDetails => ({
  monitors: { ok: 2, double: 0, orphaned: 0, misrouted: 0 },
  perCollector: { collectors: 2, min: 2, max: 4, mean: 3 },
  zones: [
    { zone: "us-east-1a", count: 3 },
    { zone: "us-east-1b", count: 1 },
    { zone: "(no node)", count: 2 },
  ],
  ...over,
});

describe("scraperCard", () => {
  it("shows the demo's cluster-scraper: monitors owned once, 2–4 targets per collector, targets by zone, locality as a note", () => {
    const c = scraperCard(summary(), details(), "?cluster=demo");
    expect(c.monitors).toEqual({
      total: 2,
      problems: 0,
      href: "/ownership?cluster=demo&role=cluster-scraper",
      lines: [
        { state: "ok", label: "owned once", count: 2, tone: "muted", href: "/ownership?cluster=demo&role=cluster-scraper&ownership=ok" },
        { state: "double", label: "double-scraped", count: 0, tone: "muted", href: null },
        { state: "orphaned", label: "orphaned", count: 0, tone: "muted", href: null },
        { state: "misrouted", label: "misrouted", count: 0, tone: "muted", href: null },
      ],
    });
    expect(c.balance).toMatchObject({ range: "2–4", collectors: 2, mean: "3.0", maxOverMean: "1.33" });
    // under 5 targets per collector the hashing figures are noise: no colour
    expect(c.balance.verdict).toMatchObject({ tone: "muted", label: "too few targets" });
    expect(c.zones).toEqual([
      { zone: "us-east-1a", label: "us-east-1a", kind: "zone", count: 3, shade: 0 },
      { zone: "us-east-1b", label: "us-east-1b", kind: "zone", count: 1, shade: 1 },
      { zone: "(no node)", label: "no node", kind: "no_node", count: 2, shade: -1 },
    ]);
    expect(c.zonesTotal).toBe(6);
    expect(c.zonesLabel).toBe("Targets by zone: us-east-1a 3, us-east-1b 1, no node 2");
    expect(c.locality).toBe("locality 0% (not expected for the cluster-scraper)");
  });

  it("colours and links only the problem states that have monitors", () => {
    const c = scraperCard(summary(), details({ monitors: { ok: 1, double: 1, orphaned: 2, misrouted: 1 } }), "");
    expect(c.monitors?.total).toBe(5);
    expect(c.monitors?.problems).toBe(4);
    expect(c.monitors?.lines.map((l) => [l.state, l.tone, l.href])).toEqual([
      ["ok", "muted", "/ownership?role=cluster-scraper&ownership=ok"],
      ["double", "bad", "/ownership?role=cluster-scraper&ownership=double"],
      ["orphaned", "bad", "/ownership?role=cluster-scraper&ownership=orphaned"],
      ["misrouted", "warn", "/ownership?role=cluster-scraper&ownership=misrouted"],
    ]);
  });

  it("reads the balance by the strategy's thresholds", () => {
    const skewed = scraperCard(summary({ imbalance: { maxOverMean: 2.5, cv: 0.9 } }), details({ perCollector: { collectors: 3, min: 2, max: 50, mean: 20 } }), "");
    expect(skewed.balance).toMatchObject({ range: "2–50", maxOverMean: "2.50", verdict: { tone: "bad", label: "skewed" } });
    const even = scraperCard(summary({ imbalance: { maxOverMean: 1, cv: 0 } }), details({ perCollector: { collectors: 2, min: 7, max: 7, mean: 7 } }), "");
    expect(even.balance).toMatchObject({ range: "7", verdict: { tone: "ok", label: "balanced" } });
  });

  it("says what is unknown: no monitor CRD, no eligible collector, no target, no locality", () => {
    const c = scraperCard(
      summary({ targets: 0, localityRatio: null, imbalance: { maxOverMean: null, cv: null } }),
      details({ monitors: null, perCollector: { collectors: 0, min: null, max: null, mean: null }, zones: [] }),
      "",
    );
    expect(c.monitors).toBeNull();
    expect(c.balance).toMatchObject({ range: "n/a", collectors: 0, mean: "n/a", maxOverMean: "n/a", verdict: { tone: "muted", label: "n/a" } });
    expect(c.zones).toEqual([]);
    expect(c.zonesLabel).toBe("No assigned targets");
    expect(c.locality).toBe("locality n/a (not expected for the cluster-scraper)");
    // a summary from a server without the details reads the same
    expect(scraperCard(summary(), undefined, "").monitors).toBeNull();
  });
});

describe("locality", () => {
  it("is a goal for the per-node agent only", () => {
    expect(LOCALITY_EXPECTED).toEqual({ "per-node": true, "cluster-scraper": false });
    expect(localityNote("cluster-scraper", 0.25)).toBe("locality 25.0% (not expected for the cluster-scraper)");
  });
});
