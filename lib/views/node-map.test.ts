import { describe, expect, it } from "vitest";
import { emptyClassCounts, type NodeRow } from "@/lib/analysis/types";
import type { NodesView } from "@/lib/views/nodes";
import { commonSuffix, crossNodeRows, densityFor, filterNodeMap, isFiltered, shortName, tileLabel, toTile, zoneSignature } from "./node-map";

const node = (name: string, over: Partial<NodeRow> = {}): NodeRow => ({
  name,
  zone: "a",
  instanceType: "m5.large",
  ready: true,
  state: "healthy",
  collectors: [{ role: "per-node", id: `agent-${name}`, eligible: true, reason: null }],
  targets: { ...emptyClassCounts(), local: 3 },
  scrapedElsewhere: 0,
  scrapedHereForOthers: 0,
  multiplePods: false,
  ...over,
});

const zones: NodesView["zones"] = [
  { zone: "a", nodes: [node("n1.ec2.internal"), node("n2.ec2.internal", { state: "ghosts" })], byState: { healthy: 1, degraded: 0, no_collector: 0, ghosts: 1, idle: 0 } },
  { zone: "b", nodes: [node("n3.ec2.internal", { zone: "b", state: "degraded" })], byState: { healthy: 0, degraded: 1, no_collector: 0, ghosts: 0, idle: 0 } },
];

describe("filterNodeMap", () => {
  it("keeps everything without filters and counts states over the whole map", () => {
    const m = filterNodeMap(zones, { zone: null, states: [], q: "" });
    expect(m.shown).toBe(3);
    expect(m.hidden).toBe(0);
    expect(m.byState).toMatchObject({ healthy: 1, ghosts: 1, degraded: 1 });
  });

  it("filters by zone, state list and text (node name or collector pod), and says how many are hidden", () => {
    expect(filterNodeMap(zones, { zone: "b", states: [], q: "" }).zones.map((z) => z.zone)).toEqual(["b"]);
    const s = filterNodeMap(zones, { zone: null, states: ["ghosts", "degraded"], q: "" });
    expect(s.zones.flatMap((z) => z.nodes.map((n) => n.name))).toEqual(["n2.ec2.internal", "n3.ec2.internal"]);
    expect(filterNodeMap(zones, { zone: null, states: [], q: "AGENT-N3" }).shown).toBe(1);
    const none = filterNodeMap(zones, { zone: "a", states: ["idle"], q: "" });
    expect(none.zones).toEqual([]);
    expect(none.hidden).toBe(3);
    // the legend counts what the zone and text filters keep, whatever the state filter
    expect(none.byState).toMatchObject({ healthy: 1, ghosts: 1, degraded: 0, idle: 0 });
  });

  it("knows when a filter is set", () => {
    expect(isFiltered({ zone: null, states: [], q: "  " })).toBe(false);
    expect(isFiltered({ zone: null, states: ["idle"], q: "" })).toBe(true);
  });
});

describe("tiles", () => {
  it("strips the shared domain suffix but never a whole name", () => {
    expect(commonSuffix(["ip-1.ec2.internal", "ip-2.ec2.internal"])).toBe(".ec2.internal");
    expect(commonSuffix(["a.x", "b.y"])).toBe("");
    expect(commonSuffix(["ec2.internal", "ip-2.ec2.internal"])).toBe(".internal");
    expect(commonSuffix(["only.one"])).toBe("");
    expect(shortName("ip-1.ec2.internal", ".ec2.internal")).toBe("ip-1");
    expect(shortName(".ec2.internal", ".ec2.internal")).toBe(".ec2.internal");
  });

  it("says in words what the colour and the marks say", () => {
    const n = node("n9", {
      state: "ghosts",
      targets: { ...emptyClassCounts(), ghost: 4, local: 1 },
      multiplePods: true,
      ready: false,
      collectors: [
        { role: "per-node", id: "old", eligible: false, reason: "not Ready" },
        { role: "per-node", id: "new", eligible: true, reason: null },
      ],
    });
    expect(tileLabel(n)).toBe("n9: holding ghosts, 5 targets, 4 ghost, 2 agent pods (1 not eligible), two agent pods of one role (rollout), node not Ready");
  });

  it("gives the same signature to an unchanged poll and a new one to any visible change", () => {
    const t1 = zones[0].nodes.map((n) => toTile(n, ""));
    const t2 = structuredClone(zones[0].nodes).map((n) => toTile(n, ""));
    expect(zoneSignature(t1)).toBe(zoneSignature(t2));
    const changed = structuredClone(zones[0].nodes);
    changed[0].state = "degraded";
    expect(zoneSignature(changed.map((n) => toTile(n, "")))).not.toBe(zoneSignature(t1));
  });

  it("picks a density from the node count", () => {
    expect(densityFor(12)).toBe("cards");
    expect(densityFor(300)).toBe("tiles");
    expect(densityFor(5000)).toBe("dense");
  });
});

describe("crossNodeRows", () => {
  const view = {
    zones,
    crossNodeFlows: [
      { from: "n1.ec2.internal", to: "n3.ec2.internal", count: 5 },
      { from: "n1.ec2.internal", to: "n2.ec2.internal", count: 2 },
    ],
  };
  it("marks cross-zone flows and filters on either side", () => {
    const all = crossNodeRows(view, { zone: null, q: "" });
    expect(all.rows.map((r) => r.crossZone)).toEqual([true, false]);
    const b = crossNodeRows(view, { zone: "b", q: "" });
    expect(b.rows).toHaveLength(1);
    expect(b.hidden).toBe(1);
    expect(crossNodeRows(view, { zone: null, q: "N2" }).rows.map((r) => r.to)).toEqual(["n2.ec2.internal"]);
  });
});
