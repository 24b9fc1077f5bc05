import { describe, expect, it } from "vitest";
import type { MonitorRow } from "@/lib/analysis/types";
import type { SourceView } from "@/lib/views/summary";
import { dependencyNotice, filterMonitors, isFiltered, monitorSourceProblems, ownershipHref, roleOwnership, splitShares } from "./ownership-view";

const row = (over: Partial<MonitorRow>): MonitorRow => ({
  kind: "ServiceMonitor",
  namespace: "shop",
  name: "cart",
  annotations: {},
  endpoints: 1,
  annotation: null,
  scraperAnnotations: [],
  expectedRole: "per-node",
  holders: ["per-node"],
  ownership: "ok",
  targets: { "per-node": 3 },
  jobs: ["serviceMonitor/shop/cart/0"],
  ...over,
});

const rows = [
  row({}),
  row({ name: "web", ownership: "double", holders: ["per-node", "cluster-scraper"], jobs: ["serviceMonitor/shop/web/0"] }),
  row({ kind: "PodMonitor", namespace: "kube-system", name: "coredns", annotation: "cluster-scraper", scraperAnnotations: [{ key: "cloudwatch.aws/scraper", value: "cluster-scraper" }], expectedRole: "cluster-scraper", holders: [], ownership: "orphaned", jobs: [] }),
  row({ namespace: "monitoring", name: "ksm", annotation: "cluster-scraper", scraperAnnotations: [{ key: "cloudwatch.aws.amazon.com/scraper", value: "cluster-scraper" }], expectedRole: "cluster-scraper", holders: ["per-node"], ownership: "misrouted", jobs: ["serviceMonitor/monitoring/ksm/0"] }),
];

const src = (source: string, kind: NonNullable<SourceView["error"]>["kind"], message: string): SourceView => ({
  source,
  state: "error",
  lastSuccess: null,
  latencyMs: null,
  error: { source, kind, message },
});

describe("filterMonitors", () => {
  const none = { states: [], q: "", role: null } as const;
  it("keeps everything without filters", () => {
    expect(filterMonitors(rows, none)).toHaveLength(4);
    expect(isFiltered(none)).toBe(false);
  });
  it("filters by states, role (expected or held) and every text term", () => {
    expect(filterMonitors(rows, { ...none, states: ["double", "orphaned"] }).map((m) => m.name)).toEqual(["web", "coredns"]);
    expect(filterMonitors(rows, { ...none, role: "cluster-scraper" }).map((m) => m.name)).toEqual(["web", "coredns", "ksm"]);
    expect(filterMonitors(rows, { ...none, q: "SHOP web" }).map((m) => m.name)).toEqual(["web"]);
    expect(filterMonitors(rows, { ...none, q: "podmonitor" }).map((m) => m.name)).toEqual(["coredns"]);
    expect(filterMonitors(rows, { ...none, q: "cluster-scraper", states: ["misrouted"] }).map((m) => m.name)).toEqual(["ksm"]);
    expect(isFiltered({ ...none, q: " x " })).toBe(true);
  });
  it("searches the annotation keys too: which monitors carry which spelling", () => {
    expect(filterMonitors(rows, { ...none, q: "cloudwatch.aws/scraper" }).map((m) => m.name)).toEqual(["coredns"]);
    expect(filterMonitors(rows, { ...none, q: "cloudwatch.aws.amazon.com/scraper=cluster-scraper" }).map((m) => m.name)).toEqual(["ksm"]);
    expect(filterMonitors(rows, { ...none, q: "scraper" }).map((m) => m.name)).toEqual(["coredns", "ksm"]);
  });
  it("treats markup in the search as plain text", () => {
    expect(filterMonitors(rows, { ...none, q: "<script>" })).toEqual([]);
  });
});

describe("roleOwnership", () => {
  it("counts, by state, the monitors the role filter lists: routed to the role or held by it", () => {
    expect(roleOwnership(rows, "cluster-scraper")).toEqual({ ok: 0, double: 1, orphaned: 1, misrouted: 1 });
    expect(roleOwnership(rows, "per-node")).toEqual({ ok: 1, double: 1, orphaned: 0, misrouted: 1 });
    for (const role of ["per-node", "cluster-scraper"] as const) {
      const c = roleOwnership(rows, role);
      expect(c.ok + c.double + c.orphaned + c.misrouted).toBe(filterMonitors(rows, { states: [], q: "", role }).length);
    }
    expect(roleOwnership([], "per-node")).toEqual({ ok: 0, double: 0, orphaned: 0, misrouted: 0 });
  });
  it("links to the view filtered to the role and a state, keeping the cluster", () => {
    expect(ownershipHref("", "cluster-scraper")).toBe("/ownership?role=cluster-scraper");
    expect(ownershipHref("?cluster=a%20b", "cluster-scraper", "double")).toBe("/ownership?cluster=a+b&role=cluster-scraper&ownership=double");
  });
});

describe("splitShares", () => {
  it("computes shares of monitors and targets, zero-safe", () => {
    const s = splitShares([
      { role: "per-node", monitors: 3, targets: 90, staticJobs: ["kubelet"] },
      { role: "cluster-scraper", monitors: 1, targets: 10, staticJobs: [] },
    ]);
    expect(s.map((p) => [p.monitorShare, p.targetShare])).toEqual([
      [0.75, 0.9],
      [0.25, 0.1],
    ]);
    expect(splitShares([{ role: "per-node", monitors: 0, targets: 0, staticJobs: [] }])[0].monitorShare).toBe(0);
  });
});

describe("monitor dependency", () => {
  it("names the missing CRDs when monitors are unavailable", () => {
    const n = dependencyNotice({
      available: false,
      stale: [src("demo/kube/podmonitors", "not_found", "the PodMonitor CRD is not installed"), src("demo/kube/servicemonitors", "not_found", "the ServiceMonitor CRD is not installed")],
    });
    expect(n?.severity).toBe("unavailable");
    expect(n?.title).toBe("The ServiceMonitor and PodMonitor CRDs could not be read, so monitor ownership is unknown.");
    expect(n?.hint).toContain("Install prometheus-operator");
  });
  it("says which kind is missing when the other was read", () => {
    const n = dependencyNotice({ available: true, stale: [src("demo/kube/podmonitors", "forbidden", "the service account lacks list/watch on podmonitors")] });
    expect(n?.severity).toBe("partial");
    expect(n?.title).toContain("The PodMonitor CRD cannot be listed");
    expect(n?.hint).toContain("Grant");
    expect(n?.title).toContain("PodMonitors are missing from this table");
  });
  it("says the kept list is the last good read when the source went stale", () => {
    const stale = { ...src("demo/kube/podmonitors", "not_found", "the PodMonitor CRD is not installed"), state: "stale" as const, lastSuccess: 1 };
    expect(dependencyNotice({ available: true, stale: [stale] })?.title).toBe(
      "The PodMonitor CRD is not installed: the PodMonitors below are from the last good read and may be out of date.",
    );
  });
  it("ignores other sources and returns null when both were read", () => {
    expect(monitorSourceProblems([src("demo/ta/per-node", "network", "refused"), src("demo/kube/pods/per-node", "http", "x")])).toEqual([]);
    expect(dependencyNotice({ available: true, stale: [] })).toBeNull();
  });
  it("still names both CRDs when unavailable without a failing source", () => {
    expect(dependencyNotice({ available: false, stale: [] })?.title).toContain("ServiceMonitor and PodMonitor CRDs");
  });
});
