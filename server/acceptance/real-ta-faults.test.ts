/**
 * The dashboard against upstream's real Target Allocator (otel-allocator, `ta: "real"`), under faults. Wherever a figure
 * is compared, it is computed here from the allocator's own raw answers (its /jobs, /jobs/<job>/targets and /metrics over
 * HTTP), not from the demo's simulation:
 * - a collector made not Ready is a ghost during the allocator's collector_not_ready_grace_period, then its targets move;
 *   both show on the churn timeline;
 * - a collector deleted and replaced: its targets go to the replacement;
 * - per-node without fallback, a node whose agent is gone: its targets are unassigned, the live count equals
 *   targets_remaining − Σ targets_per_collector, and the allocator's own sticky gauge is shown beside it;
 * - the allocator killed and restarted: the source goes stale with the reason, the last good data is kept, and it
 *   recovers within two polls of coming back;
 * - mTLS: the allocator's https listener with a required client certificate.
 */
import https from "node:https";
import fs from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import { realTaSuite } from "@allocation-lens/test-support/real-ta";
import { expectedClasses, healAndSettle, inject, nodeWithTargets, parseMetrics, startLens, summary, truthShows, waitFor, withinTwoPolls, zonesOf, type Lens } from "@/server/acceptance/support";

const GRACE_SECONDS = 6;

/** The real allocator's raw answers, read here over HTTP: assigned targets per collector, and its gauges. */
async function rawAllocator(lens: Lens): Promise<{ byCollector: Map<string, string[]>; remaining: number; perCollector: number; unassignedGauge: number }> {
  const base = lens.demo.realTas["per-node"]!.httpUrl;
  const jobs = Object.keys((await (await fetch(`${base}/jobs`)).json()) as Record<string, unknown>);
  const byCollector = new Map<string, string[]>();
  for (const job of jobs) {
    const answer = (await (await fetch(`${base}/jobs/${encodeURIComponent(job)}/targets`)).json()) as Record<string, { targets: { targets: string[] }[] }>;
    for (const [c, e] of Object.entries(answer)) {
      const list = byCollector.get(c) ?? [];
      for (const g of e.targets) for (const a of g.targets) list.push(`${job}|${a}`);
      byCollector.set(c, list);
    }
  }
  const m = parseMetrics(await (await fetch(`${base}/metrics`)).text());
  const sum = (name: string) => m.all(name).reduce((n, s) => n + s.value, 0);
  return {
    byCollector,
    remaining: sum("opentelemetry_allocator_targets_remaining"),
    perCollector: sum("opentelemetry_allocator_targets_per_collector"),
    unassignedGauge: sum("opentelemetry_allocator_targets_unassigned"),
  };
}

realTaSuite("the dashboard on upstream's real Target Allocator, under faults", (ta) => {
  describe("per-node with the consistent-hashing fallback", () => {
    let lens: Lens;
    beforeAll(async () => {
      lens = await startLens({ flavor: "upstream", ta: "real", realTa: ta, graceSeconds: GRACE_SECONDS });
    }, 120_000);
    afterEach(async () => healAndSettle(lens, 60_000), 90_000);
    afterAll(async () => lens?.stop());

    it("calm: the summary's figures are the allocator's own", async () => {
      const raw = await rawAllocator(lens);
      const s = await summary(lens);
      const assigned = [...raw.byCollector.values()].reduce((n, l) => n + l.length, 0);
      expect(s.roles["per-node"]!.targets).toBe(assigned);
      expect(s.roles["per-node"]!.unassigned).toBe(raw.remaining - raw.perCollector);
      const collectors = api.collectorsViewSchema.parse((await lens.get("/api/v1/collectors")).body).roles[0].collectors;
      for (const c of collectors) expect(c.targets, c.id).toBe(raw.byCollector.get(c.id)?.length ?? 0);
    });

    it("a collector made not Ready: a ghost for the grace period, then its targets move; both on the churn timeline", async () => {
      const { node, pod, targets } = nodeWithTargets(await lens.truth(), 1);
      const at = Date.now();
      await inject(lens, { fault: "collector-not-ready", node });
      // during the grace period the allocator still lists the pod: the dashboard shows its targets as ghosts
      const ghosts = await withinTwoPolls(lens, `the targets of ${pod} as ghosts`, at, async () => {
        const raw = await rawAllocator(lens);
        const held = raw.byCollector.get(pod)?.length ?? 0;
        const s = await summary(lens);
        return held === targets.length && s.roles["per-node"]!.classes.ghost === held && held;
      });
      expect(ghosts).toBe(targets.length);
      expect(Date.now() - at).toBeLessThan(GRACE_SECONDS * 1000);
      // after it, the allocator moves them; the dashboard follows within two polls of the allocator's answer
      const moved = await truthShows(lens, `the targets of ${node} moved off ${pod}`, (t) => t.targets.filter((x) => x.node === node).every((x) => x.collector && x.collector !== pod), 60_000);
      expect(moved.at - at).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 1000);
      const want = expectedClasses(moved.truth, zonesOf(lens.demo))["per-node"]!;
      const s = await withinTwoPolls(lens, "the moved targets as cross-node or cross-zone", moved.at, async () => {
        const s = await summary(lens);
        const c = s.roles["per-node"]!.classes;
        return c.ghost === 0 && c.cross_node + c.cross_zone === targets.length && s;
      });
      expect(s.roles["per-node"]!.classes).toEqual(want);
      const churn = api.churnViewSchema.parse((await lens.get("/api/v1/churn?last=10m")).body);
      expect(churn.events.some((e) => e.pod === pod && e.kind === "became_not_ready")).toBe(true);
      expect(churn.reassignments.byCollector.some((m) => m.from === pod && m.count === targets.length)).toBe(true);
      expect(churn.timeline.some((b) => b.readiness > 0)).toBe(true);
      expect(churn.timeline.some((b) => b.reassignments > 0)).toBe(true);
    }, 120_000);

    it("a collector deleted and replaced: its targets go to the replacement, local again", async () => {
      const { node, pod, targets } = nodeWithTargets(await lens.truth(), 2);
      await inject(lens, { fault: "collector-deleted-unseen", node });
      const moved = await truthShows(lens, `the targets of ${node} on the replacement of ${pod}`, (t) => {
        const on = t.targets.filter((x) => x.node === node);
        const replacement = t.collectors.find((c) => c.node === node && c.id !== pod && c.eligible);
        return !!replacement && on.length === targets.length && on.every((x) => x.collector === replacement.id);
      }, 60_000);
      const s = await withinTwoPolls(lens, "the node local again on its new collector", moved.at, async () => {
        const s = await summary(lens);
        return s.roles["per-node"]!.classes.ghost === 0 && s.roles["per-node"]!.localityRatio === 1 && s;
      });
      expect(s.roles["per-node"]!.classes).toEqual(expectedClasses(moved.truth, zonesOf(lens.demo))["per-node"]);
      const churn = api.churnViewSchema.parse((await lens.get("/api/v1/churn?last=10m")).body);
      expect(churn.events.some((e) => e.pod === pod && e.kind === "deleted")).toBe(true);
    }, 120_000);

    it("the allocator killed and restarted: stale with the reason, the last good data kept, recovered within two polls", async () => {
      const before = await summary(lens);
      const source = `${lens.cluster}/ta/per-node`;
      const at = Date.now();
      await inject(lens, { fault: "ta-killed", role: "per-node", downSeconds: 5 });
      const s = await withinTwoPolls(lens, "the per-node TA source stale", at, async () => {
        const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
        return s.sources.find((x) => x.source === source)?.state === "stale" && s;
      });
      const src = s.sources.find((x) => x.source === source)!;
      expect(src.error).toMatchObject({ kind: "network" });
      expect(s.roles["per-node"]!.targets).toBe(before.roles["per-node"]!.targets);
      expect(s.roles["per-node"]!.classes).toEqual(before.roles["per-node"]!.classes);
      // back: the moment its /jobs answers again, then two polls
      const back = await waitFor("the restarted allocator to answer", async () => (await fetch(`${lens.demo.realTas["per-node"]!.httpUrl}/readyz`)).ok && Date.now(), { timeoutMs: 60_000, intervalMs: 100 });
      await withinTwoPolls(lens, "the per-node TA source ok again", back, async () => (await summary(lens)).sources.find((x) => x.source === source)?.state === "ok");
    }, 120_000);
  });

  describe("per-node without fallback", () => {
    let lens: Lens;
    beforeAll(async () => {
      lens = await startLens({ flavor: "upstream", ta: "real", realTa: ta, fallback: null, graceSeconds: GRACE_SECONDS });
    }, 120_000);
    afterAll(async () => lens?.stop());

    it("a node whose agent is gone: its targets are unassigned; the live count is targets_remaining − Σ targets_per_collector, the sticky gauge beside it", async () => {
      const { node, targets } = nodeWithTargets(await lens.truth(), 0);
      await inject(lens, { fault: "collector-crashloop", node });
      let raw = await rawAllocator(lens);
      await waitFor(
        `the allocator to leave the targets of ${node} unassigned`,
        async () => {
          raw = await rawAllocator(lens);
          return raw.remaining - raw.perCollector === targets.length;
        },
        { timeoutMs: 60_000, intervalMs: 250, last: () => ({ remaining: raw.remaining, perCollector: raw.perCollector }) },
      );
      const at = Date.now();
      const lost = await withinTwoPolls(lens, "the unassigned targets on the lost page", at, async () => {
        const v = api.lostViewSchema.parse((await lens.get("/api/v1/lost")).body);
        const r = v.roles.find((x) => x.role === "per-node")!;
        return r.unassigned === targets.length && r;
      });
      raw = await rawAllocator(lens);
      expect(lost.unassigned).toBe(raw.remaining - raw.perCollector);
      expect(lost.unassignedReported).toBe(raw.unassignedGauge);
      const s = await summary(lens);
      expect(s.roles["per-node"]!.unassigned).toBe(targets.length);
      expect(s.roles["per-node"]!.unassignedReported).toBe(raw.unassignedGauge);
    }, 120_000);
  });

  describe("mTLS: the allocator's https listener, client certificate required", () => {
    let lens: Lens;
    beforeAll(async () => {
      lens = await startLens({ flavor: "upstream", ta: "real", realTa: ta, https: true });
    }, 120_000);
    afterAll(async () => lens?.stop());

    it("the dashboard polls it over TLS with the client certificate; a client without one is refused", async () => {
      const info = lens.demo.info.targetAllocators["per-node"]!;
      expect(info.url).toMatch(/^https:/);
      const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      expect(s.sources.every((x) => x.state === "ok"), JSON.stringify(s.sources)).toBe(true);
      const raw = await rawAllocator(lens);
      expect(s.roles["per-node"]!.targets).toBe([...raw.byCollector.values()].reduce((n, l) => n + l.length, 0));
      const refused = await new Promise<string>((resolve) => {
        const req = https.get(`${info.url}/jobs`, { ca: fs.readFileSync(info.ca!), timeout: 5000 }, (res) => resolve(`answered ${res.statusCode}`));
        req.on("error", (e) => resolve(`refused: ${e.message}`));
      });
      expect(refused).toMatch(/^refused/);
    });
  });
});
