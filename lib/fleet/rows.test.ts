import { describe, expect, it } from "vitest";
import { compareRows, judge, toFleetRows, type FleetResults, type FleetRow } from "@/lib/fleet/rows";
import { fleetRowSchema } from "@/lib/api/schemas";
import type { Vector } from "@/lib/prometheus/schemas";

const NOW = 1_800_000_000_000;
const T = NOW / 1000;
const v = (metric: Record<string, string>, value: number | string, t = T): Vector[number] => ({ metric, value: [t, String(value)] });

/** three clusters: a calm one, one with ghosts and an orphaned monitor, one whose series stopped a minute ago */
function results(): FleetResults {
  const perRole = (cluster: string, pn: number, cs: number) => [v({ cluster, role: "per-node" }, pn), v({ cluster, role: "cluster-scraper" }, cs)];
  return {
    locality: [...perRole("calm", 1, 0.2), ...perRole("ghosty", 0.8, 0.1), ...perRole("gone", 0.9, 0.3)],
    ghosts: [...perRole("calm", 0, 0), ...perRole("ghosty", 7, 0), ...perRole("gone", 0, 0)],
    unassigned: [...perRole("calm", 0, 0), v({ cluster: "ghosty", role: "per-node" }, 2), v({ cluster: "gone", role: "per-node" }, 0)],
    monitors: [
      ...["ok", "double", "orphaned", "misrouted"].map((o) => v({ cluster: "calm", ownership: o }, o === "ok" ? 9 : 0)),
      ...["ok", "double", "orphaned", "misrouted"].map((o) => v({ cluster: "ghosty", ownership: o }, o === "orphaned" ? 1 : o === "ok" ? 8 : 0)),
    ],
    nodesWithoutCollector: [v({ cluster: "calm" }, 0), v({ cluster: "ghosty" }, 1), v({ cluster: "gone" }, 0)],
    sourceUp: [v({ cluster: "calm", source: "ta/per-node" }, 1), v({ cluster: "calm", source: "kube/pods" }, 1), v({ cluster: "ghosty", source: "ta/per-node" }, 0)],
    lastPoll: [v({ cluster: "calm" }, T - 2), v({ cluster: "ghosty" }, T - 3), v({ cluster: "gone" }, T - 60)],
    seen: [v({ cluster: "calm" }, T - 1), v({ cluster: "ghosty" }, T - 1)],
    trendGhosts: [
      { metric: { cluster: "ghosty" }, values: [[T - 900, "0"], [T, "7"]] },
      { metric: { cluster: "calm" }, values: [[T, "0"]] },
    ],
    trendLocality: [{ metric: { cluster: "ghosty" }, values: [[T - 900, "1"], [T, "0.8"], [T + 1, "NaN"]] }],
  };
}

describe("fleet rows", () => {
  const { rows, truncated } = toFleetRows(results(), { nowMs: NOW, staleAfterMs: 30_000, dashboardUrl: "https://lens.{cluster}.example.com/" });
  const row = (c: string) => rows.find((r) => r.cluster === c)!;

  it("makes one row per cluster with the figures per role, matching the answer's schema", () => {
    expect(rows.map((r) => r.cluster)).toEqual(["gone", "ghosty", "calm"]);
    expect(truncated).toBe(0);
    for (const r of rows) fleetRowSchema.parse(r);
    expect(row("calm")).toMatchObject({
      status: "ok",
      problems: [],
      seenAt: NOW - 1000,
      lastPollAt: NOW - 2000,
      roles: { "per-node": { localityRatio: 1, ghosts: 0, unassigned: 0 }, "cluster-scraper": { localityRatio: 0.2, ghosts: 0, unassigned: 0 } },
      monitors: { double: 0, orphaned: 0, misrouted: 0 },
      nodesWithoutCollector: 0,
      sources: [{ source: "kube/pods", up: true }, { source: "ta/per-node", up: true }],
      dashboardUrl: "https://lens.calm.example.com/",
    });
    expect(row("ghosty").roles["cluster-scraper"]).toEqual({ localityRatio: 0.1, ghosts: 0, unassigned: null });
    expect(row("gone").monitors).toBeNull();
  });

  it("says what is wrong, worst first", () => {
    expect(row("ghosty").status).toBe("bad");
    expect(row("ghosty").problems).toEqual(["7 ghost targets", "1 monitor orphaned", "1 source failing: ta/per-node", "2 unassigned targets", "1 node without a collector"]);
    expect(row("gone")).toMatchObject({ status: "stopped", seenAt: null, lastPollAt: NOW - 60_000 });
    expect(row("gone").problems[0]).toBe("series stopped: no current sample in the backend");
  });

  it("merges the two trends on their timestamps into columns, dropping non-finite samples", () => {
    expect(row("ghosty").trend).toEqual({ start: NOW - 900_000, stepMs: 900_000, ghosts: [0, 7], localityRatio: [1, 0.8] });
    expect(row("calm").trend).toEqual({ start: NOW, stepMs: 900_000, ghosts: [0], localityRatio: [null] });
    expect(row("gone").trend).toEqual({ start: NOW, stepMs: 900_000, ghosts: [], localityRatio: [] });
  });

  it("keeps a gap as null, the ratio to 4 decimals, and at most a window of points whatever the backend's timestamps", () => {
    const r = results();
    r.trendGhosts = [{ metric: { cluster: "ghosty" }, values: [[T - 3 * 900, "1"], [T, "2"], [T - 1e9, "5"]] }];
    r.trendLocality = [{ metric: { cluster: "ghosty" }, values: [[T - 3 * 900, "0.123456789"], [T - 900, "0.99995"]] }];
    const trend = toFleetRows(r, { nowMs: NOW, staleAfterMs: 30_000 }).rows.find((x) => x.cluster === "ghosty")!.trend;
    expect(trend.start).toBe(NOW - 3 * 900_000);
    expect(trend.ghosts).toEqual([1, null, null, 2]);
    expect(trend.localityRatio).toEqual([0.1235, null, 1, null]);
    const wide = results();
    wide.trendGhosts = [{ metric: { cluster: "calm" }, values: Array.from({ length: 500 }, (_, i) => [T - i * 900, "0"] as [number, string]) }];
    const long = toFleetRows(wide, { nowMs: NOW, staleAfterMs: 30_000 }).rows.find((x) => x.cluster === "calm")!.trend;
    expect(long.ghosts).toHaveLength(96);
    expect(long.start).toBe(NOW - 95 * 900_000);
  });

  it("marks a cluster stopped when its last sample is older than staleAfter, and a stalled poller as bad", () => {
    const base = { ...row("calm"), status: undefined, problems: undefined };
    expect(judge({ ...base, seenAt: NOW - 31_000 }, { nowMs: NOW, staleAfterMs: 30_000 })).toEqual({ status: "stopped", problems: ["series stopped: last sample 31 s ago"] });
    expect(judge({ ...base, seenAt: NOW - 29_000 }, { nowMs: NOW, staleAfterMs: 30_000 }).status).toBe("ok");
    expect(judge({ ...base, lastPollAt: NOW - 600_000 }, { nowMs: NOW, staleAfterMs: 30_000 })).toEqual({ status: "bad", problems: ["last poll 9 min old"] });
    const lowLocality = { ...base, roles: { "per-node": { localityRatio: 0.4, ghosts: 0, unassigned: 0 } } };
    expect(judge(lowLocality, { nowMs: NOW, staleAfterMs: 30_000 })).toEqual({ status: "bad", problems: ["per-node locality 40.0%"] });
    expect(judge({ ...base, monitors: { double: 2, orphaned: 0, misrouted: 1 } }, { nowMs: NOW, staleAfterMs: 30_000 })).toEqual({
      status: "warn",
      problems: ["2 monitors scraped twice", "1 monitor misrouted"],
    });
  });

  it("sorts by status, then how much is wrong, then the lower locality, then the name", () => {
    const mk = (cluster: string, status: FleetRow["status"], ghosts: number, locality: number | null): FleetRow => ({
      ...row("calm"),
      cluster,
      status,
      roles: { "per-node": { localityRatio: locality, ghosts, unassigned: 0 } },
    });
    const sorted = [mk("a", "ok", 0, 0.99), mk("b", "bad", 1, 0.9), mk("c", "bad", 5, 0.9), mk("d", "ok", 0, 0.7), mk("e", "stopped", 0, null), mk("f", "warn", 0, null), mk("g", "ok", 0, 0.7)].sort(compareRows);
    expect(sorted.map((r) => r.cluster)).toEqual(["e", "c", "b", "f", "d", "g", "a"]);
  });

  it("ignores what is not a cluster's figure, and bounds the rows", () => {
    const r = results();
    r.ghosts.push(v({ role: "per-node" }, 3), v({ cluster: "calm", role: "bogus" }, 3), v({ cluster: "calm", role: "per-node" }, "+Inf"));
    r.lastPoll.push(...Array.from({ length: 5 }, (_, i) => v({ cluster: `x${i}` }, T)));
    const out = toFleetRows(r, { nowMs: NOW, staleAfterMs: 30_000, maxClusters: 4 });
    expect(out.rows).toHaveLength(4);
    expect(out.truncated).toBe(4);
    const calm = toFleetRows(r, { nowMs: NOW, staleAfterMs: 30_000 }).rows.find((x) => x.cluster === "calm")!;
    expect(calm.roles["per-node"]?.ghosts).toBe(0);
    expect(Object.keys(calm.roles)).toEqual(["per-node", "cluster-scraper"]);
    expect(calm.dashboardUrl).toBeNull();
  });

  it("gives no link to a cluster whose name is not a DNS label", () => {
    const r = results();
    r.lastPoll.push(v({ cluster: '"><img src=x onerror=alert(1)>' }, T));
    const out = toFleetRows(r, { nowMs: NOW, staleAfterMs: 30_000, dashboardUrl: "https://lens.{cluster}.example.com/" });
    expect(out.rows.find((x) => x.cluster.startsWith('"'))?.dashboardUrl).toBeNull();
  });
});
