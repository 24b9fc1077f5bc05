/**
 * The dashboard on upstream's real Target Allocator, per-node, where a node's agent is gone. Upstream's per-node strategy
 * falls back only for targets without a node: a target whose node has no collector is unassigned, with or without
 * `allocation_fallback_strategy`, and the allocator's JSON lists it nowhere. The live count must equal what its own
 * metrics give, targets_remaining − Σ targets_per_collector, with its own (sticky) targets_unassigned gauge beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import { realTaSuite } from "@allocation-lens/test-support/real-ta";
import { inject, nodeWithTargets, startLens, summary, waitFor, withinTwoPolls, type Lens } from "@/test/acceptance/support";
import { GRACE_SECONDS, rawAllocator } from "@/test/real-peers/real-ta";

realTaSuite("the dashboard on upstream's real Target Allocator, per-node without fallback", (ta) => {
  describe("a node whose agent is gone", () => {
    let lens: Lens;
    beforeAll(async () => {
      lens = await startLens({ flavor: "upstream", ta: "real", realTa: ta, fallback: null, graceSeconds: GRACE_SECONDS });
    }, 120_000);
    afterAll(async () => lens?.stop());

    it("its targets are unassigned: the live count is targets_remaining − Σ targets_per_collector, the sticky gauge beside it", async () => {
      const { node, targets } = nodeWithTargets(await lens.truth(), 0);
      expect(targets.length).toBeGreaterThan(0);
      // calm, without fallback, the targets without a node are unassigned already
      let raw = await rawAllocator(lens);
      const calm = raw.remaining - raw.perCollector;
      expect(calm).toBe((await lens.truth()).unassigned["per-node"]);
      const want = calm + targets.length;
      await inject(lens, { fault: "collector-crashloop", node });
      await waitFor(
        `the allocator to leave the ${targets.length} targets of ${node} unassigned too`,
        async () => {
          raw = await rawAllocator(lens);
          return raw.remaining - raw.perCollector === want;
        },
        { timeoutMs: 90_000, intervalMs: 250, last: () => ({ remaining: raw.remaining, perCollector: raw.perCollector }) },
      );
      // the dashboard's next polls show it: each figure against a raw read of the same moment (bounded by two polls)
      const at = Date.now();
      let seen: unknown;
      const shown = await withinTwoPolls(lens, "the unassigned targets on the lost page and the summary, as the allocator counts them", at, async () => {
        const v = api.lostViewSchema.parse((await lens.get("/api/v1/lost")).body);
        const lost = v.roles.find((x) => x.role === "per-node")!;
        const s = await summary(lens);
        raw = await rawAllocator(lens);
        const assigned = [...raw.byCollector.values()].reduce((n, l) => n + l.length, 0);
        seen = { lost: lost.unassigned, reported: lost.unassignedReported, summary: s.roles["per-node"], raw: { remaining: raw.remaining, perCollector: raw.perCollector, gauge: raw.unassignedGauge, assigned } };
        const ok =
          lost.unassigned === want &&
          lost.unassigned === raw.remaining - raw.perCollector &&
          lost.unassignedReported === raw.unassignedGauge &&
          s.roles["per-node"]!.unassigned === want &&
          s.roles["per-node"]!.unassignedReported === raw.unassignedGauge &&
          s.roles["per-node"]!.targets === assigned;
        return ok && { lost, raw };
      }).catch((e: Error) => {
        throw new Error(`${e.message}; last: ${JSON.stringify(seen)}`);
      });
      expect(shown.lost.reportedDiffers).toBe(shown.raw.unassignedGauge !== want);
    }, 150_000);
  });
});
