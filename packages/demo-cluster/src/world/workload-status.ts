/**
 * The status a DaemonSet's or a Deployment's controller writes, from the pods the workload selects and the nodes: the part
 * of kube-controller-manager that makes `kubectl get daemonsets,deployments` tell the truth about the agents. Pure.
 * - DaemonSet: desiredNumberScheduled (every node: the demo's nodes have no taints), currentNumberScheduled (nodes with a
 *   pod of it), numberReady and numberAvailable (nodes with a Ready one; minReadySeconds is 0), updatedNumberScheduled
 *   (nodes whose pod carries the DaemonSet's generation in `pod-template-generation`), numberUnavailable.
 * - Deployment: replicas, readyReplicas, availableReplicas, updatedReplicas (pods of the newest template: the
 *   `pod-template-hash` of the most recently created pod), unavailableReplicas; the conditions are kept as they are.
 * Terminating pods count for nothing, as the controllers do.
 */
import type { KubeObject } from "../store";

type Dict = Record<string, unknown>;
const dict = (v: unknown): Dict => (v && typeof v === "object" && !Array.isArray(v) ? (v as Dict) : {});

/** Whether `pod` has every label of `selector` (a matchLabels map). */
function selects(selector: Record<string, string>, pod: KubeObject): boolean {
  const labels = pod.metadata.labels ?? {};
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

function isReady(pod: KubeObject): boolean {
  const conditions = (dict(pod.status).conditions as { type: string; status: string }[] | undefined) ?? [];
  return conditions.some((c) => c.type === "Ready" && c.status === "True");
}

/** The live pods of a workload: in its namespace, selected by its spec.selector.matchLabels, not terminating. */
export function workloadPods(workload: KubeObject, pods: Iterable<KubeObject>): KubeObject[] {
  const selector = dict(dict(workload.spec).selector).matchLabels as Record<string, string> | undefined;
  if (!selector || !Object.keys(selector).length) return [];
  const out: KubeObject[] = [];
  for (const p of pods) if (p.metadata.namespace === workload.metadata.namespace && !p.metadata.deletionTimestamp && selects(selector, p)) out.push(p);
  return out;
}

export function daemonSetStatus(ds: KubeObject, pods: readonly KubeObject[], nodeNames: readonly string[]): Dict {
  const generation = Number(ds.metadata.generation ?? 1);
  const byNode = new Map<string, KubeObject[]>();
  for (const p of pods) {
    const node = dict(p.spec).nodeName as string | undefined;
    if (node) byNode.set(node, [...(byNode.get(node) ?? []), p]);
  }
  const nodes = new Set(nodeNames);
  let current = 0;
  let ready = 0;
  let updated = 0;
  for (const [node, onNode] of byNode) {
    if (!nodes.has(node)) continue;
    current++;
    if (onNode.some(isReady)) ready++;
    if (onNode.some((p) => p.metadata.labels?.["pod-template-generation"] === String(generation))) updated++;
  }
  const desired = nodes.size;
  return {
    currentNumberScheduled: current,
    desiredNumberScheduled: desired,
    numberAvailable: ready,
    numberMisscheduled: 0,
    numberReady: ready,
    ...(desired - ready > 0 ? { numberUnavailable: desired - ready } : {}),
    observedGeneration: generation,
    updatedNumberScheduled: updated,
  };
}

export function deploymentStatus(dep: KubeObject, pods: readonly KubeObject[]): Dict {
  const generation = Number(dep.metadata.generation ?? 1);
  const desired = Number(dict(dep.spec).replicas ?? 1);
  const newest = [...pods].sort((a, b) => String(b.metadata.creationTimestamp ?? "").localeCompare(String(a.metadata.creationTimestamp ?? "")))[0];
  const hash = newest?.metadata.labels?.["pod-template-hash"];
  const ready = pods.filter(isReady).length;
  const updated = hash === undefined ? pods.length : pods.filter((p) => p.metadata.labels?.["pod-template-hash"] === hash).length;
  const { conditions } = dict(dep.status);
  return {
    observedGeneration: generation,
    ...(pods.length ? { replicas: pods.length } : {}),
    ...(updated ? { updatedReplicas: updated } : {}),
    ...(ready ? { readyReplicas: ready, availableReplicas: ready } : {}),
    ...(desired - ready > 0 ? { unavailableReplicas: desired - ready } : {}),
    ...(conditions ? { conditions } : {}),
  };
}

/** The status `workload` (a DaemonSet or a Deployment) should have now. */
export function workloadStatus(workload: KubeObject, pods: Iterable<KubeObject>, nodeNames: readonly string[]): Dict {
  const own = workloadPods(workload, pods);
  return workload.kind === "DaemonSet" ? daemonSetStatus(workload, own, nodeNames) : deploymentStatus(workload, own);
}
