import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoCluster, type DemoCluster } from "./cluster";
import { FaultError } from "./faults";
import { waitFor } from "@allocation-lens/test-support/wait";

describe("ta-killed on the simulated allocator", () => {
  let demo: DemoCluster;
  beforeAll(async () => {
    demo = await startDemoCluster({ flavor: "upstream", nodes: 3, seed: 5, reconcileMs: 200 });
  });
  afterAll(async () => demo?.close());

  it("refuses connections for downSeconds and allocates anew, as a restarted process", async () => {
    const url = demo.info.targetAllocators["per-node"]!.url;
    expect((await fetch(`${url}/jobs`)).status).toBe(200);
    const before = demo.allocators["per-node"]!.state;
    const did = demo.faults.apply({ fault: "ta-killed", role: "per-node", downSeconds: 2 });
    expect(did.did).toMatch(/refuses connections for 2 s and allocates anew/);
    await expect(fetch(`${url}/jobs`)).rejects.toThrow();
    // its state was dropped and rebuilt: a new state object, ready again, with the same targets
    await waitFor("the allocator ready again", () => demo.allocators["per-node"]!.state !== before && demo.allocators["per-node"]!.state.ready, { timeoutMs: 5000 });
    await waitFor("the TA answering again", async () => (await fetch(`${url}/jobs`)).status === 200, { timeoutMs: 6000 });
    expect(demo.allocators["per-node"]!.allTargets().length).toBeGreaterThan(0);
  });

  it("needs a role this demo has", () => {
    expect(() => demo.faults.apply({ fault: "ta-killed", role: "cluster-scraper", downSeconds: 0 })).toThrow(FaultError);
  });
});
