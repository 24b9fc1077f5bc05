/**
 * Faults in the live data plane, `orphaned` monitors. The demo's TAs route every monitor to exactly one of them, so the honest way
 * to orphan a monitor is the real-world one: monitors annotated for the cluster-scraper in a cluster where no
 * cluster-scraper agent is observed. The dashboard is given a configuration with the per-node TA only (the cloudwatch
 * demo still runs both): the per-node TA drops the annotated monitors and no TA the dashboard knows holds them.
 * Then annotate-monitor moves one more monitor to the cluster-scraper: it turns orphaned within two poll intervals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import { inject, startLens, truthShows, withinTwoPolls, type Lens } from "@/test/acceptance/support";
import { DEFAULT_SCRAPER_ANNOTATION } from "@/lib/routing";

describe("orphaned monitors: annotated for a cluster-scraper the dashboard does not observe", () => {
  let lens: Lens;
  beforeAll(async () => {
    lens = await startLens({
      flavor: "cloudwatch",
      configure: (c) => {
        delete c.clusters[0].targetAllocators["cluster-scraper"];
        return c;
      },
    });
  });
  afterAll(async () => lens?.stop());

  it("monitors annotated cluster-scraper are orphaned, the others ok; a newly annotated one follows", async () => {
    const annotated = (m: { metadata: { annotations?: Record<string, string> } }) => m.metadata.annotations?.[DEFAULT_SCRAPER_ANNOTATION] === "cluster-scraper";
    const all = [...lens.demo.store.list("servicemonitors"), ...lens.demo.store.list("podmonitors")];
    const routed = all.filter(annotated);
    expect(routed.length).toBeGreaterThan(0);
    const v = api.ownershipViewSchema.parse((await lens.get("/api/v1/monitors")).body);
    expect(v.counts).toEqual({ ok: all.length - routed.length, double: 0, orphaned: routed.length, misrouted: 0 });
    for (const m of v.monitors.filter((m) => m.annotation === "cluster-scraper")) {
      expect(m.ownership).toBe("orphaned");
      expect(m.holders).toEqual([]);
    }
    let metrics = await lens.metrics();
    expect(metrics.value("allocation_lens_monitors", { cluster: lens.cluster, ownership: "orphaned" })).toBe(routed.length);

    const target = lens.demo.store.list("servicemonitors").find((m) => !annotated(m))!;
    const job = v.monitors.find((m) => m.name === target.metadata.name && m.namespace === target.metadata.namespace)!.jobs[0];
    expect(job).toBeTruthy();
    await inject(lens, { fault: "annotate-monitor", namespace: target.metadata.namespace, name: target.metadata.name, value: "cluster-scraper" });
    const { at } = await truthShows(lens, `the per-node TA dropping ${job}`, (t) => !t.targets.some((x) => x.role === "per-node" && x.job === job));
    await withinTwoPolls(lens, "one more orphaned monitor", at, async () => {
      const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      return s.monitors?.orphaned === routed.length + 1 && s;
    });
    metrics = await lens.metrics();
    expect(metrics.value("allocation_lens_monitors", { cluster: lens.cluster, ownership: "orphaned" })).toBe(routed.length + 1);
    await lens.control.heal();
  });
});
