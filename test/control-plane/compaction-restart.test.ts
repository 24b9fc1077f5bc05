/**
 * What a real API server does to watches, during churn: the dashboard on the demo's `--kube real` with upstream's real
 * allocator, while agent pods flip readiness: etcd is compacted past every resourceVersion the watches hold and
 * kube-apiserver is restarted, so that every watch has to start again from a resourceVersion the server no longer has
 * (a watch from it is refused with 410 Gone) and list again. Afterwards the dashboard's counts equal the allocator's
 * answers within two polls, and every readiness flip made before, during (written while the server was away, so the
 * dashboard learns of it only from its list after the 410) and after the restart is on the churn timeline.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import { inject, startLens, withinTwoPolls, expectedClasses, zonesOf, type Lens } from "@/test/acceptance/support";
import { GRACE_SECONDS, healAndSettleReal } from "@/test/real-peers/real-ta";
import { kubeRealSuite } from "@allocation-lens/test-support/real-ta";

kubeRealSuite("watches across an etcd compaction and a kube-apiserver restart, during churn", (kube, ta) => {
  let lens: Lens;
  beforeAll(async () => {
    lens = await startLens({ kube: "real", kubeReal: kube, flavor: "upstream", ta: "real", realTa: ta, graceSeconds: GRACE_SECONDS });
  }, 180_000);
  afterAll(async () => lens?.stop());

  /**
   * The per-node agent pod on `node` made not Ready, then healed: two readiness flips the dashboard must see (through its
   * pod watch, or the list after it) and record. Inside the allocator's grace period, so that no target moves.
   */
  const podOn = async (node: string) => (await lens.truth()).collectors.find((c) => c.role === "per-node" && c.node === node)!.id;
  const seenReady = async (pod: string, want: boolean) => {
    const c = api.collectorsViewSchema.parse((await lens.get("/api/v1/collectors")).body);
    return c.roles.some((r) => r.collectors.some((x) => x.id === pod && x.ready === want));
  };
  async function healed(pod: string): Promise<void> {
    await healAndSettleReal(lens);
    await withinTwoPolls(lens, `${pod} Ready again on the dashboard`, Date.now(), () => seenReady(pod, true));
  }
  async function flip(node: string): Promise<string> {
    const pod = await podOn(node);
    await inject(lens, { fault: "collector-not-ready", node });
    await withinTwoPolls(lens, `${pod} not Ready on the dashboard`, Date.now(), () => seenReady(pod, false));
    await healed(pod);
    return pod;
  }

  it("counts equal the allocator's within two polls afterwards, and no readiness flip is lost from the churn timeline", async () => {
    const plane = lens.demo.controlPlane!;
    const nodes = [...new Set((await lens.truth()).collectors.map((c) => c.node))].sort();
    const flipped = [await flip(nodes[0]), await flip(nodes[1])];

    // every resourceVersion the watches hold is compacted away, then the server restarts: each watch must list again
    const old = await plane.client("allocation-lens-demo").request("GET", "/api/v1/namespaces/opentelemetry/pods?limit=1");
    const oldRv = (old.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    flipped.push(await flip(nodes[2]));
    const revision = await plane.compact();
    expect(revision).toBeGreaterThan(Number(oldRv));
    // a flip made while the server restarts: written when it is back, so the dashboard learns of it from its list
    // after the 410, not from a watch event
    const gapPod = await podOn(nodes[3]);
    const restarting = plane.restartApiserver();
    await inject(lens, { fault: "collector-not-ready", node: nodes[3] });
    await restarting;
    const gone = await plane.client("allocation-lens-demo").request("GET", `/api/v1/namespaces/opentelemetry/pods?watch=1&resourceVersion=${oldRv}&timeoutSeconds=1`);
    // refused at once (410), or an ERROR event in the stream carrying 410: that resourceVersion is gone
    expect(gone.status === 410 || /"code":410/.test(gone.text), `${gone.status} ${gone.text.slice(0, 300)}`).toBe(true);
    await withinTwoPolls(lens, `${gapPod} not Ready on the dashboard after the restart`, Date.now(), () => seenReady(gapPod, false));
    await healed(gapPod);
    flipped.push(gapPod, await flip(nodes[4]));

    // the counts: the dashboard's classes and unassigned equal what the allocator's own answers give
    const since = Date.now();
    await withinTwoPolls(lens, "the summary equal to the allocator's answers", since, async () => {
      const t = await lens.truth();
      const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      const want = expectedClasses(t, zonesOf(lens.demo))["per-node"];
      return s.sources.every((x) => x.state === "ok") && JSON.stringify(s.roles["per-node"]?.classes) === JSON.stringify(want) && s.roles["per-node"]?.unassigned === t.unassigned["per-node"];
    });

    // the churn timeline: each flipped pod became not Ready and Ready again, before and after the restart
    const churn = api.churnViewSchema.parse((await lens.get("/api/v1/churn?last=600000")).body);
    for (const pod of flipped) {
      const kinds = churn.events.filter((e) => e.pod === pod).map((e) => e.kind);
      expect(kinds, pod).toContain("became_not_ready");
      expect(kinds, pod).toContain("became_ready");
    }
    expect(lens.demo.mirror!.stats.refused, lens.demo.mirror!.stats.lastRefusal).toBe(0);
    expect(plane.restarts).toBe(1);
  }, 300_000);
});
