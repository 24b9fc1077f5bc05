import { describe, expect, it } from "vitest";
import { WorldBuilder } from "./generate";
import { markNotReady, markTerminating } from "../pod-state";
import { agentInfo } from "./agents";
import { workloadPods, workloadStatus } from "./workload-status";
import type { KubeObject } from "./kube";

const NOW = Date.parse("2026-01-01T00:00:00Z");

function world(flavor: "cloudwatch" | "upstream" = "cloudwatch") {
  const builder = new WorldBuilder({ nodes: 5, seed: 11, flavor, nowMs: NOW });
  const w = builder.generate();
  const [ds, dep] = builder.agentWorkloads();
  return { builder, w, ds, dep, nodes: w.nodes.map((n) => n.metadata.name) };
}

describe("the agents' workloads and their controllers' status", () => {
  it("a DaemonSet and a Deployment selecting exactly the agent pods, owning them by the uid their references name", () => {
    for (const flavor of ["cloudwatch", "upstream"] as const) {
      const { w, ds, dep } = world(flavor);
      expect(ds).toMatchObject({ apiVersion: "apps/v1", kind: "DaemonSet", metadata: { namespace: w.namespace, generation: 1 }, spec: { selector: { matchLabels: agentInfo(flavor, "per-node").selector } } });
      expect(dep).toMatchObject({ kind: "Deployment", spec: { replicas: 2, selector: { matchLabels: agentInfo(flavor, "cluster-scraper").selector } } });
      const perNode = workloadPods(ds, w.pods);
      expect(perNode).toHaveLength(5);
      for (const p of perNode) expect((p.metadata.ownerReferences as { kind: string }[] | undefined)?.[0]).toMatchObject({ kind: "DaemonSet", name: ds.metadata.name, uid: ds.metadata.uid });
      expect(workloadPods(dep, w.pods)).toHaveLength(2);
      // the pod template's labels are what the selector asks for
      expect((ds.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels).toMatchObject(agentInfo(flavor, "per-node").selector);
    }
  });

  it("counts what kube-controller-manager counts: nodes, Ready pods, the current generation; terminating pods count for nothing", () => {
    const { w, ds, dep, nodes, builder } = world();
    expect(workloadStatus(ds, w.pods, nodes)).toEqual({
      currentNumberScheduled: 5,
      desiredNumberScheduled: 5,
      numberAvailable: 5,
      numberMisscheduled: 0,
      numberReady: 5,
      observedGeneration: 1,
      updatedNumberScheduled: 5,
    });
    expect(workloadStatus(dep, w.pods, nodes)).toEqual({ observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 });

    // one agent not Ready, one terminating (its node without a pod), a node more without any: what `kubectl get ds` shows
    const agents = workloadPods(ds, w.pods);
    const [notReady, leaving] = agents;
    // (the pod-state helpers edit in place: each edits a copy)
    const pods: KubeObject[] = w.pods.map((p) => (p === notReady ? markNotReady(structuredClone(p), NOW) : p === leaving ? markTerminating(structuredClone(p), NOW) : p));
    const added = builder.nodeAdded(NOW).node.metadata.name;
    const s = workloadStatus(ds, pods, [...nodes, added]);
    expect(s).toMatchObject({ desiredNumberScheduled: 6, currentNumberScheduled: 4, numberReady: 3, numberAvailable: 3, numberUnavailable: 3, updatedNumberScheduled: 4 });

    // a rollout: the DaemonSet at generation 2, one node's pod of the new template
    const next = { ...ds, metadata: { ...ds.metadata, generation: 2 } };
    const fresh = builder.agentPod("per-node", agents[2].spec!.nodeName as string, NOW, { revision: 1 });
    expect(fresh.metadata.labels?.["pod-template-generation"]).toBe("2");
    expect(workloadStatus(next, [...w.pods, fresh], nodes)).toMatchObject({ observedGeneration: 2, updatedNumberScheduled: 1, currentNumberScheduled: 5 });

    // the Deployment: a pod of its new template (created last) is the only updated one
    const scraper = builder.agentPod("cluster-scraper", nodes[0], NOW + 60_000, { revision: 1, ready: false });
    expect(workloadStatus(dep, [...w.pods, scraper], nodes)).toMatchObject({ replicas: 3, updatedReplicas: 1, readyReplicas: 2 });
  });
});
