/**
 * The simulated TA has the real allocators' ring limit: with more than 1,061 collectors, a TA whose strategy builds the
 * consistent-hashing ring dies as theirs do ("not enough room to distribute partitions"): its listener is gone, its pod
 * shows CrashLoopBackOff with a growing restart count, and it runs again at the restart after the collectors fit.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoCluster, type DemoCluster } from "./cluster";
import { taNames } from "./world/target-allocators";
import { waitFor } from "@allocation-lens/test-support/wait";

/** Whether a TCP connection to `url` gets an HTTP answer (a crashed TA resets every connection). */
async function answers(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect(Number(u.port), u.hostname, () => s.write("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n"));
    s.once("data", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
    s.once("close", () => resolve(false));
    s.setTimeout(3000, () => (s.destroy(), resolve(false)));
  });
}

describe("the simulated TA above the ring's limit (1,062 collectors, consistent-hashing)", () => {
  let demo: DemoCluster;
  beforeAll(async () => {
    demo = await startDemoCluster({ flavor: "upstream", nodes: 1062, seed: 3, strategy: "consistent-hashing", restartBackoffMs: 500, reconcileMs: 200 });
  }, 120_000);
  afterAll(async () => demo?.close());

  it("crash-loops: no listener, CrashLoopBackOff on its pod with the panic, a growing restart count", async () => {
    const a = demo.allocators["per-node"]!;
    expect(a.crashed?.reason).toMatch(/not enough room to distribute partitions: a consistent-hashing ring of 1062 collectors/);
    expect(await answers(demo.info.targetAllocators["per-node"]!.url)).toBe(false);
    const n = taNames("upstream", "per-node");
    const pod = () => demo.store.get("pods", n.namespace, demo.taPods.podName("per-node")!)!;
    await waitFor("a second restart", async () => ((pod().status?.containerStatuses as { restartCount: number }[])[0].restartCount ?? 0) >= 2, { timeoutMs: 20_000, intervalMs: 100 });
    const status = (pod().status?.containerStatuses as { state: { waiting?: { reason: string; message: string } } }[])[0];
    expect(status.state.waiting?.reason).toBe("CrashLoopBackOff");
    expect(status.state.waiting?.message).toMatch(/panic: not enough room to distribute partitions/);
    expect((pod().status?.conditions as { type: string; status: string }[]).find((c) => c.type === "Ready")?.status).toBe("False");
  }, 60_000);

  it("runs again at the restart after the collectors fit (a node removed: 1,061)", async () => {
    const node = demo.store.list("nodes")[0].metadata.name;
    demo.faults.apply({ fault: "node-remove", node });
    await waitFor("the TA to answer again", async () => demo.allocators["per-node"]!.crashed === null && (await answers(demo.info.targetAllocators["per-node"]!.url)), { timeoutMs: 60_000, intervalMs: 200 });
    const n = taNames("upstream", "per-node");
    const pod = demo.store.get("pods", n.namespace, demo.taPods.podName("per-node")!)!;
    expect((pod.status?.conditions as { type: string; status: string }[]).find((c) => c.type === "Ready")?.status).toBe("True");
    await waitFor("its targets assigned over 1,061 collectors", async () => demo.allocators["per-node"]!.state.ready && demo.allocators["per-node"]!.registeredCollectors().length === 1061, { timeoutMs: 30_000, intervalMs: 200 });
  }, 90_000);
});
