/**
 * The dashboard on the CloudWatch fork's real Target Allocators with the per-node agent's TA on per-node WITHOUT fallback,
 * and the monitors' routing between the two agents. Every compared figure is computed from the allocators' raw answers
 * (real-cloudwatch.ts):
 * - per-node without fallback: the targets without a node (static jobs) are unassigned; the live count equals what the
 *   fork's raw answers give (Σ discovered over its jobs − assigned), with the fork's own gauge beside it;
 * - a monitor re-annotated with the key the fork reads moves from the per-node TA to the cluster-scraper's, its
 *   ownership `ok` before and after;
 * - a monitor annotated `cluster-scraper` under the other spelling of the key, which this build ignores: the per-node TA
 *   keeps it, and the dashboard reports it (the scraper annotation key check names it) instead of counting it silently.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import { DEFAULT_SCRAPER_ANNOTATION } from "@/lib/routing";
import { cloudwatchTaSuite } from "@allocation-lens/test-support/real-ta";
import { inject, parseMetrics, startLens, summary, waitFor, withinTwoPolls, type Lens } from "@/test/acceptance/support";
import { assignedCount, forkGet, rawFork } from "@/test/real-peers/real-cloudwatch";

const ownershipOf = async (lens: Lens, namespace: string, name: string) => {
  const v = api.ownershipViewSchema.parse((await lens.get("/api/v1/monitors")).body);
  return v.monitors.find((m) => m.namespace === namespace && m.name === name);
};

cloudwatchTaSuite("the dashboard on the CloudWatch fork's real Target Allocators: per-node without fallback, routing", (ta) => {
  describe("per-node without fallback", () => {
    let lens: Lens;
    beforeAll(async () => {
      lens = await startLens({ flavor: "cloudwatch", tracking: "legacy", ta: "real", realTa: ta, fallback: null });
    }, 120_000);
    afterAll(async () => lens?.stop());

    it("node-less targets are unassigned: the live count is the fork's discovered less assigned, its gauge beside it", async () => {
      // the static jobs' targets carry no node label: without fallback the fork leaves every one of them unassigned
      const nodeless = lens.demo.world.staticJobs["per-node"].filter((j) => j.name !== "kubelet").flatMap((j) => j.targets({ nodes: [] }).map((l) => ({ job: j.name, address: l.__address__ })));
      expect(nodeless.length).toBeGreaterThan(0);
      let seen: unknown;
      const shown = await withinTwoPolls(lens, "the unassigned node-less targets, as the fork counts them", Date.now(), async () => {
        const raw = await rawFork(lens);
        const lost = api.lostViewSchema.parse((await lens.get("/api/v1/lost")).body).roles.find((r) => r.role === "per-node")!;
        const s = await summary(lens);
        const live = raw.discovered - assignedCount(raw);
        seen = { live, gauge: raw.unassignedGauge, lost: [lost.unassigned, lost.unassignedReported], summary: s.roles["per-node"]!.unassigned };
        return live === nodeless.length && lost.unassigned === live && s.roles["per-node"]!.unassigned === live && lost.unassignedReported === raw.unassignedGauge && { raw, lost };
      }).catch((e: Error) => {
        throw new Error(`${e.message}; last: ${JSON.stringify(seen)}`);
      });
      // the fork's gauge is recomputed at every reconcile: it agrees with the live count
      expect(shown.raw.unassignedGauge).toBe(nodeless.length);
      expect(shown.lost.reportedDiffers).toBe(false);
      // none of them is in any collector's list
      const listed = new Set([...shown.raw.byCollector.values()].flat());
      for (const t of nodeless) expect(listed.has(`${t.job}|${t.address}`), `${t.job} ${t.address}`).toBe(false);
    }, 120_000);

    it("a monitor re-annotated with the key the fork reads moves to the cluster-scraper's TA, ownership ok before and after", async () => {
      const sm = lens.demo.world.serviceMonitors.find((m) => !Object.keys(m.metadata.annotations ?? {}).length)!;
      const ns = sm.metadata.namespace!;
      const job = `serviceMonitor/${ns}/${sm.metadata.name}/0`;
      expect((await rawFork(lens, "per-node")).jobs).toContain(job);
      expect((await ownershipOf(lens, ns, sm.metadata.name))?.ownership).toBe("ok");
      await inject(lens, { fault: "annotate-monitor", namespace: ns, name: sm.metadata.name, value: "cluster-scraper" });
      await waitFor(
        `${job} to move from the per-node TA to the cluster-scraper's`,
        async () => !(await rawFork(lens, "per-node")).jobs.includes(job) && (await rawFork(lens, "cluster-scraper")).jobs.includes(job),
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      const moved = await withinTwoPolls(lens, "the monitor held by the cluster-scraper, ok", Date.now(), async () => {
        const m = await ownershipOf(lens, ns, sm.metadata.name);
        return m?.ownership === "ok" && JSON.stringify(m.holders) === JSON.stringify(["cluster-scraper"]) && m;
      });
      expect(moved.expectedRole).toBe("cluster-scraper");
      await inject(lens, { fault: "annotate-monitor", namespace: ns, name: sm.metadata.name, value: null });
      // each TA reloads on its own schedule: settled only once the job is back in the per-node TA and gone from the other
      await waitFor(
        `${job} back in the per-node TA and gone from the cluster-scraper's`,
        async () => (await rawFork(lens, "per-node")).jobs.includes(job) && !(await rawFork(lens, "cluster-scraper")).jobs.includes(job),
        { timeoutMs: 60_000, intervalMs: 500 },
      );
    }, 150_000);

    it("a monitor annotated under the other spelling of the key: the fork ignores it, the dashboard reports it", async () => {
      const sm = lens.demo.world.serviceMonitors.find((m) => !Object.keys(m.metadata.annotations ?? {}).length)!;
      const ns = sm.metadata.namespace!;
      const name = sm.metadata.name;
      const job = `serviceMonitor/${ns}/${name}/0`;
      // each TA counts the monitor changes it reloaded (cloudwatch_agent_allocator_events{source="EventSourcePrometheusCR"})
      const reloads = async (role: "per-node" | "cluster-scraper") =>
        parseMetrics((await forkGet(lens, role, "/metrics")).body).value("cloudwatch_agent_allocator_events", { source: "EventSourcePrometheusCR" }) ?? 0;
      const before = { pn: await reloads("per-node"), cs: await reloads("cluster-scraper") };
      await inject(lens, { fault: "annotate-monitor", namespace: ns, name, value: "cluster-scraper", key: DEFAULT_SCRAPER_ANNOTATION });
      // the fork reads the earlier spelling: once both TAs have reloaded their monitors, the per-node TA still keeps it
      // and the cluster-scraper's does not have it
      await waitFor("both of the fork's TAs to reload their monitors", async () => (await reloads("per-node")) > before.pn && (await reloads("cluster-scraper")) > before.cs, {
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      expect((await rawFork(lens, "per-node")).jobs).toContain(job);
      expect((await rawFork(lens, "cluster-scraper")).jobs).not.toContain(job);
      const check = await withinTwoPolls(lens, "the scraper annotation key check naming the monitor", Date.now(), async () => {
        const d = api.diagnosticsViewSchema.parse((await lens.get("/api/v1/diagnostics")).body);
        const c = d.checks.find((x) => x.id === "scraper-annotation-key");
        return c && c.status !== "pass" && JSON.stringify(c).includes(`${ns}/${name}`) && c;
      });
      expect(check.summary).toContain(DEFAULT_SCRAPER_ANNOTATION);
      await inject(lens, { fault: "annotate-monitor", namespace: ns, name, value: null, key: DEFAULT_SCRAPER_ANNOTATION });
    }, 150_000);
  });
});
