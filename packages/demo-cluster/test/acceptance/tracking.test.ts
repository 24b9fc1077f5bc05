/**
 * Collector tracking. Under `--tracking legacy` a not-Ready collector keeps its node's targets (per /truth
 * and per the TA's own /jobs/<job>/targets) while the TA's unassigned gauge stays 0, and a pod deleted while the watch
 * was down stays registered as a ghost; under `--tracking ready-only` (default) the targets move within seconds and the
 * pod leaves the TA's collector keys.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  fault,
  heal,
  kubeGet,
  nodeAt,
  normalizeTruth,
  perNodeCollectorOn,
  startDemo,
  taJobTargets,
  taMetric,
  truth,
  type Demo,
  type Truth,
} from "./harness";
import { sleep, waitFor } from "@allocation-lens/test-support/wait";

const UNASSIGNED = "cloudwatch_agent_allocator_targets_unassigned";
const NODE_EXPORTER = "podMonitor/monitoring/node-exporter/0";

/** per-node targets whose node is `node`: job + address + collector */
const nodeTargets = (t: Truth, node: string) => t.targets.filter((x) => x.role === "per-node" && x.node === node);

/** A job of the per-node TA with a target on `node`, and that target's address. */
function jobOn(t: Truth, node: string): { job: string; address: string } {
  const x = nodeTargets(t, node).find((x) => x.job === NODE_EXPORTER) ?? nodeTargets(t, node)[0];
  return { job: x.job, address: x.address };
}

async function waitCalm(demo: Demo, calm: ReturnType<typeof normalizeTruth>) {
  let last: unknown;
  await waitFor(
    "the truth to be the calm one again after DELETE /faults",
    async () => JSON.stringify((last = normalizeTruth(await truth(demo.info)))) === JSON.stringify(calm),
    { timeoutMs: 15_000, last: () => last },
  );
}

describe.each(["legacy", "ready-only"] as const)("--tracking %s", (tracking) => {
  let demo: Demo;
  let calm: ReturnType<typeof normalizeTruth>;
  beforeAll(async () => {
    demo = await startDemo(["--tracking", tracking, "--nodes", "6", "--seed", "7"]);
    calm = normalizeTruth(await truth(demo.info));
  });
  afterEach(async () => {
    expect((await heal(demo.info)).status).toBe(200);
    await waitCalm(demo, calm);
  });
  afterAll(async () => demo?.stop());

  it("collector-not-ready", async () => {
    const ta = demo.info.targetAllocators["per-node"]!;
    const t0 = await truth(demo.info);
    const node = nodeAt(t0, 1);
    const pod = perNodeCollectorOn(t0, node)!.id;
    const before = nodeTargets(t0, node);
    expect(before.length).toBeGreaterThan(1);
    expect(before.every((x) => x.collector === pod)).toBe(true);
    const { job, address } = jobOn(t0, node);
    expect((await taJobTargets(ta, job))[pod]).toContain(address);
    expect(await taMetric(ta, UNASSIGNED)).toBe(0);

    await fault(demo.info, { fault: "collector-not-ready", node });
    await waitFor("the pod to be not eligible in /truth", async () => (await truth(demo.info)).collectors.find((c) => c.id === pod)?.eligible === false);

    if (tracking === "legacy") {
      await sleep(3500); // > 3 reconciles (1 s each): nothing may move
      const t = await truth(demo.info);
      expect(t.collectors.find((c) => c.id === pod)).toMatchObject({ eligible: false, registered: true });
      expect(nodeTargets(t, node).filter((x) => x.collector !== pod)).toEqual([]);
      const map = await taJobTargets(ta, job);
      expect(Object.keys(map)).toContain(pod);
      expect(map[pod]).toContain(address);
      expect(t.unassigned["per-node"]).toBe(0);
      expect(await taMetric(ta, UNASSIGNED)).toBe(0); // the failure no gauge shows
    } else {
      const t = await waitFor(
        "the node's targets to move to the fallback",
        async () => {
          const t = await truth(demo.info);
          return nodeTargets(t, node).every((x) => x.collector && x.collector !== pod) ? t : undefined;
        },
        { timeoutMs: 6000 },
      );
      expect(t.collectors.find((c) => c.id === pod)).toMatchObject({ eligible: false, registered: false });
      const others = new Set(t.collectors.filter((c) => c.role === "per-node" && c.id !== pod && c.eligible).map((c) => c.id));
      for (const x of nodeTargets(t, node)) expect(others.has(x.collector!), `${x.job} ${x.address} -> ${x.collector}`).toBe(true);
      const map = await waitFor("the pod to leave the TA's collector keys", async () => {
        const m = await taJobTargets(ta, job);
        return pod in m ? undefined : m;
      });
      const holder = Object.entries(map).find(([, addrs]) => addrs.includes(address));
      expect(holder?.[0]).toBe(t.targets.find((x) => x.role === "per-node" && x.job === job && x.address === address)!.collector);
      expect(await taMetric(ta, UNASSIGNED)).toBe(0);
    }
  });

  it("collector-deleted-unseen", async () => {
    const ta = demo.info.targetAllocators["per-node"]!;
    const t0 = await truth(demo.info);
    const node = nodeAt(t0, 3);
    const old = perNodeCollectorOn(t0, node)!.id;
    const { job, address } = jobOn(t0, node);
    const did = await fault(demo.info, { fault: "collector-deleted-unseen", node });
    const replacement = /replaced by (\S+)/.exec(did)?.[1];
    expect(replacement, did).toBeTruthy();
    expect(replacement! > old).toBe(true);
    // the Kubernetes API no longer has the old pod, and has the replacement
    const pods = await kubeGet<{ items: { metadata: { name: string } }[] }>(demo.info, "/api/v1/namespaces/amazon-cloudwatch/pods");
    const names = pods.body.items.map((p) => p.metadata.name);
    expect(names).not.toContain(old);
    expect(names).toContain(replacement);

    // the TA's watch comes back after 3 s: the session's List registers the replacement
    const t = await waitFor(
      "the replacement to be registered",
      async () => {
        const t = await truth(demo.info);
        return t.registered["per-node"]?.includes(replacement!) ? t : undefined;
      },
      { timeoutMs: 8000 },
    );
    if (tracking === "legacy") {
      await sleep(1500); // a reconcile after the session
      const t2 = await truth(demo.info);
      expect(t2.registered["per-node"]).toContain(old); // the ghost
      expect(t2.collectors.find((c) => c.id === old)).toBeUndefined(); // absent from Kubernetes
      expect(nodeTargets(t2, node).filter((x) => x.collector !== old)).toEqual([]);
      const map = await taJobTargets(ta, job);
      expect(map[old]).toContain(address);
      expect(map[replacement!]).toEqual([]);
      expect(await taMetric(ta, UNASSIGNED)).toBe(0);
    } else {
      expect(t.registered["per-node"]).not.toContain(old);
      const t2 = await waitFor("the replacement to hold the node's targets", async () => {
        const t2 = await truth(demo.info);
        return nodeTargets(t2, node).every((x) => x.collector === replacement) ? t2 : undefined;
      });
      expect(nodeTargets(t2, node).length).toBeGreaterThan(0);
      const map = await taJobTargets(ta, job);
      expect(Object.keys(map)).not.toContain(old);
      expect(map[replacement!]).toContain(address);
    }
  });
});
