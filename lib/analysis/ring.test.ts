import { describe, expect, it } from "vitest";
import type { Role } from "@/lib/model";
import { RING_PARTITIONS, RING_WARN_FROM, ringAverageLoad, ringUse, strategyText, taRings, taStrategy, type RingInputs } from "./ring";

describe("the ring's arithmetic (buraksezer/consistent as both allocators configure it)", () => {
  it("average load is ceil(floor(1061 / members) x 1.1): 2 at 1,061 members, 0 from 1,062 on", () => {
    expect(ringAverageLoad(1)).toBe(1168);
    expect(ringAverageLoad(2)).toBe(583); // floor(530.5) = 530
    expect(ringAverageLoad(531)).toBe(2); // floor(1.998) = 1
    expect(ringAverageLoad(1061)).toBe(2);
    expect(ringAverageLoad(1062)).toBe(0);
    expect(ringAverageLoad(5000)).toBe(0);
    expect(ringAverageLoad(0)).toBe(0);
  });

  it("warns from 90 % of the partitions", () => {
    expect(RING_PARTITIONS).toBe(1061);
    expect(RING_WARN_FROM).toBe(955);
  });
});

describe("taStrategy: which source says what", () => {
  it("takes the strategy from the TA's metrics first, then the configuration, then the ConfigMap", () => {
    expect(taStrategy("per-node", { strategy: "consistent-hashing" }, { strategy: "least-weighted" })).toMatchObject({ strategy: "per-node", strategyFrom: "TA metrics" });
    expect(taStrategy(null, { strategy: "consistent-hashing" }, { strategy: "least-weighted" })).toMatchObject({ strategy: "consistent-hashing", strategyFrom: "configuration" });
    expect(taStrategy(null, {}, { strategy: "least-weighted" })).toMatchObject({ strategy: "least-weighted", strategyFrom: "ConfigMap" });
    expect(taStrategy(null)).toMatchObject({ strategy: null, strategyFrom: null });
  });

  it("takes the fallback from the configuration, then the ConfigMap (none set there: none), else unknown", () => {
    expect(taStrategy("per-node", { fallbackStrategy: "none" }, { strategy: "per-node", fallbackStrategy: "consistent-hashing" })).toMatchObject({ fallback: "none", fallbackFrom: "configuration" });
    expect(taStrategy("per-node", undefined, { strategy: "per-node", fallbackStrategy: "consistent-hashing" })).toMatchObject({ fallback: "consistent-hashing", fallbackFrom: "ConfigMap" });
    expect(taStrategy("per-node", undefined, { strategy: "per-node", fallbackStrategy: null })).toMatchObject({ fallback: "none", fallbackFrom: "ConfigMap" });
    // the metrics never carry the fallback
    expect(taStrategy("per-node")).toMatchObject({ fallback: null, fallbackFrom: null });
  });
});

describe("ringUse", () => {
  it.each([
    ["consistent-hashing", null, "yes"],
    ["least-weighted", null, "no"],
    ["per-node", "consistent-hashing", "yes"],
    ["per-node", "none", "no"],
    ["per-node", "least-weighted", "no"],
    ["per-node", null, "maybe"],
    [null, null, "maybe"],
    ["zone-aware", null, "maybe"],
  ] as const)("%s with fallback %s: %s", (strategy, fallback, use) => {
    expect(ringUse({ strategy, fallback })).toBe(use);
  });
});

describe("taRings", () => {
  const input = (eligible: number, listed: number, over: Partial<RingInputs> = {}): RingInputs => ({
    analysis: {
      roles: { "per-node": { strategy: "per-node", collectorsEligible: eligible }, "cluster-scraper": { strategy: "least-weighted", collectorsEligible: 2 } },
      collectors: [
        ...Array.from({ length: listed }, () => ({ role: "per-node" as Role, inTa: true })),
        { role: "per-node", inTa: false },
        { role: "cluster-scraper", inTa: true },
      ],
    },
    ...over,
  });

  it("counts the larger of the eligible pods and the collectors the TA lists, and the headroom to 1,061", () => {
    const [pn, cs] = taRings(input(1062, 0, { discovered: [{ role: "per-node", strategy: "per-node", fallbackStrategy: "consistent-hashing" }] }));
    expect(pn).toMatchObject({ role: "per-node", uses: "yes", members: 1062, eligible: 1062, listed: 0, headroom: -1, fallbackFrom: "ConfigMap" });
    expect(cs).toMatchObject({ role: "cluster-scraper", uses: "no", members: 2, listed: 1, headroom: 1059 });
    // upstream keeps not-Ready pods registered for a grace period: the TA's list is then the larger
    expect(taRings(input(900, 960))[0]).toMatchObject({ members: 960, eligible: 900, listed: 960, headroom: 101, uses: "maybe" });
  });

  it("has one entry per role of the analysis", () => {
    expect(taRings({ analysis: { roles: {}, collectors: [] } })).toEqual([]);
  });
});

describe("strategyText", () => {
  it("names each fact and its source, and says unknown when no source says", () => {
    expect(strategyText(taStrategy("per-node", undefined, { fallbackStrategy: "consistent-hashing" }))).toBe("per-node (TA metrics), fallback consistent-hashing (ConfigMap)");
    expect(strategyText(taStrategy(null, { strategy: "per-node", fallbackStrategy: "none" }))).toBe("per-node (configuration), no fallback (configuration)");
    expect(strategyText(taStrategy("per-node"))).toBe("per-node (TA metrics), fallback unknown");
    expect(strategyText(taStrategy("consistent-hashing", { fallbackStrategy: "none" }))).toBe("consistent-hashing (TA metrics)");
    expect(strategyText(taStrategy(null))).toBe("strategy unknown");
  });
});
