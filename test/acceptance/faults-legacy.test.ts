/**
 * Faults in the live data plane, `legacy` tracking (the fork before the per-node change: registers on ADDED, removes only on
 * DELETED, never checks readiness, no re-list between watch sessions), cloudwatch flavor over mTLS:
 * - a not-Ready collector keeps its node's targets: ghosts in the API and /metrics within two poll intervals, while the
 *   TA's own unassigned gauge reads 0 (on the TA's /metrics and as the API's unassignedReported);
 * - a collector deleted while the TA's watch was down stays registered: its targets are ghosts and differ from where the
 *   per-node strategy would put them from the Kubernetes view (drift).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import { taMetric } from "@allocation-lens/demo-cluster/test/acceptance/harness";
import { healAndSettle, inject, nodeWithTargets, startLens, summary, truthShows, withinTwoPolls, type Lens } from "@/test/acceptance/support";

const TA_UNASSIGNED = "cloudwatch_agent_allocator_targets_unassigned";

describe("faults under legacy tracking (cloudwatch, mTLS)", () => {
  let lens: Lens;
  beforeAll(async () => {
    lens = await startLens({ flavor: "cloudwatch", tracking: "legacy" });
  });
  afterEach(async () => healAndSettle(lens));
  afterAll(async () => lens?.stop());

  it("collector-not-ready: the node's targets become ghosts while the TA's unassigned gauge reads 0", async () => {
    const { node, pod, targets } = nodeWithTargets(await lens.truth(), 2);
    expect(targets.length).toBeGreaterThan(1);
    await inject(lens, { fault: "collector-not-ready", node });
    const { at, truth } = await truthShows(lens, `${pod} not eligible`, (t) => t.collectors.find((c) => c.id === pod)?.eligible === false);
    // legacy: the TA keeps the pod and every target of its node
    expect(truth.targets.filter((x) => x.role === "per-node" && x.node === node).every((x) => x.collector === pod)).toBe(true);
    // the node's targets and whatever nodeless targets the fallback hashed onto the pod
    const held = truth.targets.filter((x) => x.role === "per-node" && x.collector === pod);
    expect(held.length).toBeGreaterThanOrEqual(targets.length);
    const s = await withinTwoPolls(lens, "ghosts in the summary", at, async () => {
      const s = await summary(lens);
      return s.roles["per-node"]!.classes.ghost === held.length && s;
    });
    const pn = s.roles["per-node"]!;
    expect(pn.unassignedReported).toBe(0);
    expect(pn.unassigned).toBe(0);
    expect(pn.classes.cross_node + pn.classes.cross_zone).toBe(0);
    // the TA itself says nothing is unassigned
    expect(await taMetric(lens.demo.info.targetAllocators["per-node"]!, TA_UNASSIGNED)).toBe(0);

    const ghosts = api.targetsPageSchema.parse((await lens.get("/api/v1/targets?class=ghost&limit=1000")).body);
    expect(ghosts.matched).toBe(held.length);
    expect(ghosts.rows.filter((t) => t.node === node)).toHaveLength(targets.length);
    for (const t of ghosts.rows) {
      expect(t.collector).toBe(pod);
      expect(t.node === node || t.node === null).toBe(true);
      expect(t.reason).toBeTruthy();
    }
    const nodes = api.nodesViewSchema.parse((await lens.get("/api/v1/nodes")).body);
    expect(nodes.zones.flatMap((z) => z.nodes).find((n) => n.name === node)!.state).toBe("ghosts");
    const collectors = api.collectorsViewSchema.parse((await lens.get("/api/v1/collectors")).body);
    expect(collectors.roles.find((r) => r.role === "per-node")!.notEligibleInTa.map((c) => c.id)).toEqual([pod]);
    const diagnostics = api.diagnosticsViewSchema.parse((await lens.get("/api/v1/diagnostics")).body);
    const failing = diagnostics.checks.filter((c) => c.status === "fail");
    expect(failing.length).toBeGreaterThan(0);
    expect(JSON.stringify(failing)).toContain(pod);

    const m = await lens.metrics();
    const cluster = lens.cluster;
    expect(m.value("allocation_lens_targets", { cluster, role: "per-node", class: "ghost" })).toBe(held.length);
    expect(m.value("allocation_lens_unassigned_targets", { cluster, role: "per-node" })).toBe(0);
    expect(m.value("allocation_lens_collectors", { cluster, role: "per-node", state: "not_ready" })).toBe(1);
    // ghosts are not local: the per-node locality counts only the targets that are scraped
    expect(m.value("allocation_lens_locality_ratio", { cluster, role: "per-node" })).toBe(1);
  });

  it("collector-deleted-unseen: the TA keeps the deleted pod, its targets are ghosts and drift from the expected collector", async () => {
    const { node, pod, targets } = nodeWithTargets(await lens.truth(), 3);
    await inject(lens, { fault: "collector-deleted-unseen", node });
    const { at, truth } = await truthShows(lens, `${pod} replaced`, (t) => !t.collectors.some((c) => c.id === pod) && t.collectors.some((c) => c.role === "per-node" && c.node === node));
    const replacement = truth.collectors.find((c) => c.role === "per-node" && c.node === node)!.id;
    const held = truth.targets.filter((x) => x.role === "per-node" && x.collector === pod);
    expect(truth.registered["per-node"]).toContain(pod);
    const s = await withinTwoPolls(lens, "drift in the summary", at, async () => {
      const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      return s.roles["per-node"]!.drift === targets.length && s;
    });
    const pn = s.roles["per-node"]!;
    expect(pn.classes.ghost).toBe(held.length);
    expect(pn.taOnlyCollectors).toEqual([pod]);
    expect(pn.missingFromTa).toEqual([replacement]);
    expect(pn.unassignedReported).toBe(0);
    const rows = api.targetsPageSchema.parse((await lens.get(`/api/v1/targets?collector=${encodeURIComponent(pod)}&limit=1000`)).body);
    expect(rows.matched).toBe(held.length);
    for (const t of rows.rows) {
      expect(t.class).toBe("ghost");
      if (t.node) expect(t.expected).toBe(replacement);
      expect(t.reason).toMatch(/not a pod in Kubernetes/);
    }
    const collectors = api.collectorsViewSchema.parse((await lens.get("/api/v1/collectors")).body);
    const pnc = collectors.roles.find((r) => r.role === "per-node")!;
    expect(pnc.taOnly).toEqual([pod]);
    expect(pnc.missingFromTa).toEqual([replacement]);
    const m = await lens.metrics();
    expect(m.value("allocation_lens_targets", { cluster: lens.cluster, role: "per-node", class: "ghost" })).toBe(held.length);
  });
});
