/**
 * Faults in the live data plane, `ready-only` tracking, cloudwatch flavor (two TAs over mTLS): each demo fault shows up in the API
 * and in /metrics within two poll intervals as what it is: cross-node or cross-zone fallback, `double` monitors, a TA outage
 * as a stale source with its error while the last good data is still served, a missing CRD.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import {
  expectedClasses,
  healAndSettle,
  inject,
  nodeWithTargets,
  startLens,
  summary,
  truthShows,
  waitFor,
  withinTwoPolls,
  zonesOf,
  type Lens,
} from "@/test/acceptance/support";

describe("faults under ready-only tracking (cloudwatch, mTLS)", () => {
  let lens: Lens;
  beforeAll(async () => {
    lens = await startLens({ flavor: "cloudwatch", tracking: "ready-only" });
  });
  afterEach(async () => healAndSettle(lens));
  afterAll(async () => lens?.stop());

  it("collector-not-ready: the node's targets fall back to other nodes' collectors, shown as cross-node/cross-zone, not ghosts", async () => {
    const { node, pod, targets } = nodeWithTargets(await lens.truth(), 1);
    await inject(lens, { fault: "collector-not-ready", node });
    const { at, truth } = await truthShows(lens, `the targets of ${node} moved off ${pod}`, (t) =>
      t.targets.filter((x) => x.role === "per-node" && x.node === node).every((x) => x.collector && x.collector !== pod),
    );
    const want = expectedClasses(truth, zonesOf(lens.demo))["per-node"]!;
    expect(want.cross_node + want.cross_zone).toBe(targets.length);
    const s = await withinTwoPolls(lens, "the fallback in the summary", at, async () => {
      const s = await summary(lens);
      const c = s.roles["per-node"]!.classes;
      return c.cross_node + c.cross_zone === targets.length && s;
    });
    const pn = s.roles["per-node"]!;
    expect(pn.classes).toEqual(want);
    expect(pn.classes.ghost).toBe(0);
    expect(pn.unassigned).toBe(0);
    expect(pn.localityRatio).toBeLessThan(1);
    expect(pn.localityRatio).toBeCloseTo(want.local / (want.local + want.cross_node + want.cross_zone), 10);

    const nodes = api.nodesViewSchema.parse((await lens.get("/api/v1/nodes")).body);
    const row = nodes.zones.flatMap((z) => z.nodes).find((n) => n.name === node)!;
    expect(row.state).toBe("degraded");
    expect(row.scrapedElsewhere).toBe(targets.length);
    expect(row.collectors.find((c) => c.id === pod)).toMatchObject({ eligible: false });

    const m = await lens.metrics();
    const cluster = lens.cluster;
    expect(m.value("allocation_lens_targets", { cluster, role: "per-node", class: "cross_node" })).toBe(want.cross_node);
    expect(m.value("allocation_lens_targets", { cluster, role: "per-node", class: "cross_zone" })).toBe(want.cross_zone);
    expect(m.value("allocation_lens_targets", { cluster, role: "per-node", class: "ghost" })).toBe(0);
    expect(m.value("allocation_lens_locality_ratio", { cluster, role: "per-node" })).toBeLessThan(1);
    expect(m.value("allocation_lens_collectors", { cluster, role: "per-node", state: "not_ready" })).toBe(1);
  });

  it("routing-off on the cluster-scraper: every per-node monitor becomes `double`", async () => {
    const before = api.ownershipViewSchema.parse((await lens.get("/api/v1/monitors")).body);
    const perNodeMonitors = before.monitors.filter((m) => m.expectedRole === "per-node");
    expect(perNodeMonitors.length).toBeGreaterThan(0);
    const job = perNodeMonitors.flatMap((m) => m.jobs).find((j) => before.monitors.length && j)!;
    await inject(lens, { fault: "routing-off", role: "cluster-scraper" });
    const { at } = await truthShows(lens, "the cluster-scraper TA holding a per-node monitor's job", (t) =>
      t.targets.some((x) => x.role === "cluster-scraper" && x.job === job),
    );
    // A TA lists a job as soon as it is discovered and assigns its targets when it next allocates: the monitors can read
    // double one poll before the duplicated targets show. Wait for both.
    const s = await withinTwoPolls(lens, "double monitors and duplicated targets in the summary", at, async () => {
      const s = await summary(lens);
      const view = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      return s.monitors?.double === perNodeMonitors.length && view.duplicates > 0 && s;
    });
    expect(s.monitors).toMatchObject({ double: perNodeMonitors.length, ok: before.monitors.length - perNodeMonitors.length, orphaned: 0, misrouted: 0 });
    const v = api.ownershipViewSchema.parse((await lens.get("/api/v1/monitors")).body);
    for (const m of v.monitors.filter((m) => m.expectedRole === "per-node")) {
      expect(m.ownership, `${m.namespace}/${m.name}`).toBe("double");
      expect(m.holders.sort()).toEqual(["cluster-scraper", "per-node"]);
    }
    const summaryView = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
    expect(summaryView.duplicates).toBeGreaterThan(0);
    const m = await lens.metrics();
    expect(m.value("allocation_lens_monitors", { cluster: lens.cluster, ownership: "double" })).toBe(perNodeMonitors.length);
  });

  it("ta-outage: a stale source with its error, the last good data still served, back to ok afterwards", async () => {
    const before = await summary(lens);
    const targetsBefore = before.roles["per-node"]!;
    const at = Date.now();
    await inject(lens, { fault: "ta-outage", role: "per-node", seconds: 6 });
    const source = `${lens.cluster}/ta/per-node`;
    const s = await withinTwoPolls(lens, "the per-node TA source stale", at, async () => {
      const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      return s.sources.find((x) => x.source === source)?.state === "stale" && s;
    });
    const src = s.sources.find((x) => x.source === source)!;
    expect(src.error).toMatchObject({ kind: "network" });
    expect(src.error!.message.length).toBeGreaterThan(0);
    expect(s.stale.map((x) => x.source)).toContain(source);
    // the last good data is still served
    expect(s.roles["per-node"]!.targets).toBe(targetsBefore.targets);
    expect(s.roles["per-node"]!.classes).toEqual(targetsBefore.classes);
    const t = api.targetsPageSchema.parse((await lens.get("/api/v1/targets?role=per-node&limit=1")).body);
    expect(t.total).toBeGreaterThan(0);
    expect(t.stale.map((x) => x.source)).toContain(source);
    const m = await lens.metrics();
    expect(m.value("allocation_lens_source_up", { cluster: lens.cluster, source: "ta/per-node" })).toBe(0);
    expect(m.value("allocation_lens_source_up", { cluster: lens.cluster, source: "ta/cluster-scraper" })).toBe(1);
    expect(m.value("allocation_lens_targets", { cluster: lens.cluster, role: "per-node", class: "local" })).toBe(targetsBefore.classes.local);
    // the outage ends by itself: the source recovers without a heal
    let lastState: string | undefined;
    await waitFor(
      "the per-node TA source ok again after the outage",
      async () => (lastState = (await summary(lens)).sources.find((x) => x.source === source)?.state) === "ok",
      { timeoutMs: 15_000, last: () => lastState },
    );
  });

  it("crd-missing: the Kubernetes source reports that the PodMonitor CRD is not installed; its monitors are gone, not orphaned", async () => {
    const before = api.ownershipViewSchema.parse((await lens.get("/api/v1/monitors")).body);
    const podMonitors = before.monitors.filter((m) => m.kind === "PodMonitor").length;
    expect(podMonitors).toBeGreaterThan(0);
    const at = Date.now();
    await inject(lens, { fault: "crd-missing", kind: "PodMonitor" });
    const source = `${lens.cluster}/kube/podmonitors`;
    const s = await withinTwoPolls(
      lens,
      "the podmonitors source in error",
      at,
      async () => {
        const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
        const x = s.sources.find((x) => x.source === source);
        return x !== undefined && x.state !== "ok" && x.error !== null && s;
      },
      2500, // the informer learns it at its re-list after the watch ends
    );
    const src = s.sources.find((x) => x.source === source)!;
    expect(src.error).toMatchObject({ kind: "not_found", message: "the PodMonitor CRD is not installed" });
    expect(src.error!.hint).toMatch(/PodMonitor CRD/);
    expect(s.stale.map((x) => x.source)).toContain(source);
    const m = await lens.metrics();
    expect(m.value("allocation_lens_source_up", { cluster: lens.cluster, source: "kube/podmonitors" })).toBe(0);
    // The ServiceMonitors are still read; PodMonitors no longer exist (a CRD's removal deletes its objects): none orphaned.
    await withinTwoPolls(lens, "the ownership without PodMonitors", at, async () => {
      const v = api.ownershipViewSchema.parse((await lens.get("/api/v1/monitors")).body);
      return v.monitors.every((x) => x.kind === "ServiceMonitor") && v;
    }, 4000);
    const v = api.ownershipViewSchema.parse((await lens.get("/api/v1/monitors")).body);
    expect(v.available).toBe(true);
    expect(v.counts).toEqual({ ok: before.monitors.length - podMonitors, double: 0, orphaned: 0, misrouted: 0 });
    const d = api.diagnosticsViewSchema.parse((await lens.get("/api/v1/diagnostics")).body);
    expect(JSON.stringify(d.checks)).toContain("the PodMonitor CRD is not installed");
  });
});
