import { afterEach, describe, expect, it } from "vitest";
import { Store, type KubeObject } from "../store";
import { WorldBuilder } from "../world/generate";
import { workloadPods } from "../world/workload-status";
import { markNotReady } from "../pod-state";
import { WorkloadStatusController } from "./workload-status-controller";

const NOW = Date.parse("2026-01-01T00:00:00Z");
let controller: WorkloadStatusController | undefined;
afterEach(() => controller?.stop());

function cluster() {
  const builder = new WorldBuilder({ nodes: 4, seed: 5, flavor: "cloudwatch", nowMs: NOW });
  const w = builder.generate();
  const store = new Store();
  for (const n of w.nodes) store.upsert("nodes", n);
  for (const p of w.pods) store.upsert("pods", p);
  const [ds, dep] = builder.agentWorkloads();
  store.upsert("daemonsets", ds);
  store.upsert("deployments", dep);
  controller = new WorkloadStatusController(store, 0);
  controller.start();
  const status = () => store.get("daemonsets", ds.metadata.namespace, ds.metadata.name)!.status as Record<string, number>;
  return { builder, store, ds, dep, status };
}

describe("the DaemonSet and Deployment status controllers", () => {
  it("write the status at start, follow pods and nodes, and write nothing when nothing changed", () => {
    const { builder, store, ds, dep, status } = cluster();
    expect(status()).toMatchObject({ desiredNumberScheduled: 4, numberReady: 4, updatedNumberScheduled: 4 });
    expect(store.get("deployments", dep.metadata.namespace, dep.metadata.name)!.status).toMatchObject({ replicas: 2, readyReplicas: 2 });

    const writes: string[] = [];
    store.subscribe((e) => e.resource === "daemonsets" && writes.push(e.type));
    const pod = workloadPods(ds, store.list("pods"))[0];
    store.update("pods", pod.metadata.namespace, pod.metadata.name, (p: KubeObject) => markNotReady(p, NOW));
    expect(status()).toMatchObject({ numberReady: 3, numberAvailable: 3, numberUnavailable: 1 });
    expect(writes).toEqual(["MODIFIED"]);

    // a node joins with its agent: desired and ready follow
    const added = builder.nodeAdded(NOW);
    store.upsert("nodes", added.node);
    for (const p of added.pods) store.upsert("pods", p);
    expect(status()).toMatchObject({ desiredNumberScheduled: 5, currentNumberScheduled: 5, numberReady: 4 });

    // an unrelated pod's change writes nothing
    const before = writes.length;
    const other = store.list("pods").find((p) => !workloadPods(ds, [p]).length && p.metadata.namespace === ds.metadata.namespace);
    if (other) store.update("pods", other.metadata.namespace, other.metadata.name, (p: KubeObject) => ({ ...p, metadata: { ...p.metadata, annotations: { touched: "1" } } }));
    expect(writes.length).toBe(before);
  });

  it("puts its status back when another writer changes it (the fault engine's heal), and counts a new generation", () => {
    const { store, ds, status } = cluster();
    store.update("daemonsets", ds.metadata.namespace, ds.metadata.name, (o: KubeObject) => ({ ...o, status: { numberReady: 99 } }));
    expect(status().numberReady).toBe(4);
    store.update("daemonsets", ds.metadata.namespace, ds.metadata.name, (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, generation: 2 } }));
    expect(status()).toMatchObject({ observedGeneration: 2, updatedNumberScheduled: 0 });
  });
});
