/**
 * The fault suite of the dashboard on upstream's real Target Allocator (otel-allocator, `ta: "real"`, consistent-hashing).
 * Every compared figure is computed from the allocator's own raw answers (real-ta.ts):
 * - a collector made not Ready is a ghost during the allocator's collector_not_ready_grace_period, then its targets move
 *   to the other collectors; both show on the churn timeline (readiness events and reassignments);
 * - a collector deleted and replaced: its targets move, nothing is a ghost;
 * - the allocator killed and restarted: the source goes stale with the reason, the last good data is kept, and it
 *   recovers within two polls of the allocator answering again.
 *
 * Shared by the demo's own Kubernetes API (real-ta-faults.test.ts) and a real kube-apiserver (the control plane tier):
 * `demo` adds the demo's options, e.g. `kube: "real"`.
 */
import { isDeepStrictEqual } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import type { RealTaBinary } from "@allocation-lens/test-support/real-ta";
import { expectedClasses, inject, killedThenRecovered, startLens, summary, truthShows, waitFor, withinTwoPolls, zonesOf, type Lens, type StartOptions } from "@/test/acceptance/support";
import { GRACE_SECONDS, healAndSettleReal, rawAllocator } from "@/test/real-peers/real-ta";

const held = (t: Awaited<ReturnType<Lens["truth"]>>, pod: string) => t.targets.filter((x) => x.collector === pod);

export function realTaFaults(ta: RealTaBinary, demo: StartOptions = {}): void {
  describe("consistent-hashing", () => {
    let lens: Lens;
    beforeAll(async () => {
      lens = await startLens({ flavor: "upstream", ta: "real", realTa: ta, strategy: "consistent-hashing", graceSeconds: GRACE_SECONDS, ...demo });
    }, 180_000);
    afterEach(async () => healAndSettleReal(lens), 120_000);
    afterAll(async () => lens?.stop());

    it("calm: the summary's and the collectors' figures are the allocator's own", async () => {
      const raw = await rawAllocator(lens);
      const s = await summary(lens);
      const assigned = [...raw.byCollector.values()].reduce((n, l) => n + l.length, 0);
      expect(assigned).toBeGreaterThan(100);
      expect(s.roles["per-node"]!.targets).toBe(assigned);
      expect(s.roles["per-node"]!.unassigned).toBe(raw.remaining - raw.perCollector);
      const collectors = api.collectorsViewSchema.parse((await lens.get("/api/v1/collectors")).body).roles[0].collectors;
      expect(collectors.map((c) => c.id).sort()).toEqual([...raw.byCollector.keys()].sort());
      for (const c of collectors) expect(c.targets, c.id).toBe(raw.byCollector.get(c.id)?.length ?? 0);
    });

    it("a collector made not Ready: a ghost for the grace period, then its targets move; both on the churn timeline", async () => {
      const truth = await lens.truth();
      const { id: pod, node } = truth.collectors.filter((c) => c.eligible).sort((a, b) => held(truth, b.id).length - held(truth, a.id).length)[0];
      const count = held(truth, pod).length;
      expect(count).toBeGreaterThan(0);
      const at = Date.now();
      await inject(lens, { fault: "collector-not-ready", node });
      // inside the grace period the allocator still lists the pod: the dashboard shows what it holds as ghosts
      const ghosts = await withinTwoPolls(lens, `the targets of ${pod} as ghosts`, at, async () => {
        const raw = await rawAllocator(lens);
        const s = await summary(lens);
        return (raw.byCollector.get(pod)?.length ?? 0) === count && s.roles["per-node"]!.classes.ghost === count && Date.now();
      });
      expect(ghosts - at, "seen as ghosts inside the grace period").toBeLessThan(GRACE_SECONDS * 1000);
      // after it (at the allocator's next collector event: its pod informer resyncs every 30 s), the targets move
      const moved = await truthShows(lens, `the targets of ${pod} moved to other collectors`, (t) => !t.registered["per-node"]!.includes(pod) && held(t, pod).length === 0 && t.unassigned["per-node"] === 0, 60_000);
      expect(moved.at - at).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000);
      const want = expectedClasses(moved.truth, zonesOf(lens.demo))["per-node"]!;
      const s = await withinTwoPolls(lens, "no ghost once the targets moved", moved.at, async () => {
        const s = await summary(lens);
        return s.roles["per-node"]!.classes.ghost === 0 && s;
      });
      expect(s.roles["per-node"]!.classes).toEqual(want);
      const churn = api.churnViewSchema.parse((await lens.get("/api/v1/churn?last=600000")).body);
      expect(churn.events.some((e) => e.pod === pod && e.kind === "became_not_ready")).toBe(true);
      expect(churn.reassignments.byCollector.filter((m) => m.from === pod).reduce((n, m) => n + m.count, 0)).toBe(count);
      expect(churn.timeline.some((b) => b.readiness > 0)).toBe(true);
      expect(churn.timeline.some((b) => b.reassignments > 0)).toBe(true);
    }, 150_000);

    it("a collector deleted and replaced: what it held moves, nothing is a ghost", async () => {
      const truth = await lens.truth();
      const { id: pod, node } = truth.collectors.filter((c) => c.eligible)[2];
      const count = held(truth, pod).length;
      await inject(lens, { fault: "collector-deleted-unseen", node });
      const moved = await truthShows(lens, `the targets of ${pod} on other collectors`, (t) => !t.registered["per-node"]!.includes(pod) && t.registered["per-node"]!.length === truth.registered["per-node"]!.length && held(t, pod).length === 0, 60_000);
      await withinTwoPolls(lens, "no ghost once the allocator moved them", moved.at, async () => {
        const s = await summary(lens);
        return s.roles["per-node"]!.classes.ghost === 0 && s;
      });
      // The replacement's own endpoints reach the allocator a discovery batch after it registers, so a few targets may
      // still change after `moved`: the dashboard must settle on the classes the truth gives at the same moment.
      let last: unknown;
      await waitFor(
        "the dashboard's classes to be the truth's",
        async () => {
          const [now, t] = [await summary(lens), await lens.truth()];
          const seen = { dashboard: now.roles["per-node"]!.classes, truth: expectedClasses(t, zonesOf(lens.demo))["per-node"] };
          last = seen;
          return isDeepStrictEqual(seen.dashboard, seen.truth);
        },
        { timeoutMs: 30_000, intervalMs: 250, last: () => last },
      );
      const churn = api.churnViewSchema.parse((await lens.get("/api/v1/churn?last=600000")).body);
      expect(churn.events.some((e) => e.pod === pod && e.kind === "deleted")).toBe(true);
      if (count) expect(churn.reassignments.byCollector.some((m) => m.from === pod)).toBe(true);
    }, 150_000);

    it("the allocator killed and restarted: stale with the reason, the last good data kept, recovered within two polls", async () => {
      await killedThenRecovered(lens, async () => (await fetch(`${lens.demo.realTas["per-node"]!.httpUrl}/jobs`)).ok);
    }, 150_000);
  });
}
