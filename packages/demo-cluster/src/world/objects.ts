/** Builders of lean, valid Kubernetes JSON for the demo world's nodes and pods. */
import { KUBELET_PORT, REGION } from "./constants";
import { hashHex } from "./hash";
import { deepFreeze, type Container, type KubeObject } from "./kube";
import { iso } from "./naming";

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: boolean;
  blockOwnerDeletion: boolean;
}

/** A deterministic uid for an owner that is not itself an object of the store (DaemonSet, ReplicaSet). */
export function fakeUid(...parts: string[]): string {
  const a = hashHex("uid", ...parts);
  const b = hashHex("uid2", ...parts);
  return `${a.slice(0, 8)}-${a.slice(8, 12)}-4${b.slice(0, 3)}-8${b.slice(3, 6)}-${b.slice(6, 14)}${a.slice(12, 14)}${b.slice(0, 2)}`;
}

export function ownerReferences(kind: "DaemonSet" | "ReplicaSet", namespace: string, name: string): OwnerReference[] {
  return deepFreeze([
    { apiVersion: "apps/v1", kind, name, uid: fakeUid(kind, namespace, name), controller: true, blockOwnerDeletion: true },
  ]);
}

/** What all pods of one workload revision share. Shared parts are frozen: copy a pod (structuredClone) before editing it. */
export interface PodTemplate {
  namespace: string;
  labels: Record<string, string>;
  ownerReferences: OwnerReference[];
  containers: Container[];
  hostNetwork?: boolean;
}

export function podTemplate(t: PodTemplate): PodTemplate {
  return { ...t, labels: deepFreeze(t.labels), containers: deepFreeze(t.containers) };
}

export interface Placement {
  nodeName: string;
  hostIP: string;
  /** the pod's address; equal to hostIP for hostNetwork pods */
  podIP: string;
}

/** A scheduled, Running pod (Ready unless `ready` is false) started at `startedMs`, with a uid of its namespace and name. */
export function makePod(t: PodTemplate, name: string, at: Placement, startedMs: number, ready = true): KubeObject {
  const started = iso(startedMs);
  const readySince = iso(startedMs + 4000);
  const readyStatus = ready ? "True" : "False";
  const notReady = ready ? {} : { reason: "ContainersNotReady", message: `containers with unready status: [${t.containers[0].name}]` };
  const spec: Record<string, unknown> = { nodeName: at.nodeName, containers: t.containers };
  if (t.hostNetwork) spec.hostNetwork = true;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: t.namespace, uid: fakeUid("Pod", t.namespace, name), labels: t.labels, ownerReferences: t.ownerReferences, creationTimestamp: started },
    spec,
    status: {
      phase: "Running",
      conditions: [
        { type: "PodScheduled", status: "True", lastTransitionTime: started },
        { type: "Initialized", status: "True", lastTransitionTime: started },
        { type: "ContainersReady", status: readyStatus, lastTransitionTime: readySince, ...notReady },
        { type: "Ready", status: readyStatus, lastTransitionTime: readySince, ...notReady },
      ],
      hostIP: at.hostIP,
      podIP: at.podIP,
      podIPs: [{ ip: at.podIP }],
      startTime: started,
      containerStatuses: t.containers.map((c) => ({
        name: c.name,
        image: c.image,
        ready,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: started } },
      })),
    },
  };
}

export interface NodeSpec {
  name: string;
  ip: string;
  zone: string;
  instanceType: string;
  kubeletVersion: string;
  instanceId: string;
  createdMs: number;
}

export function makeNode(n: NodeSpec): KubeObject {
  const created = iso(n.createdMs);
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: n.name,
      labels: {
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "linux",
        "kubernetes.io/hostname": n.name,
        "topology.kubernetes.io/region": REGION,
        "topology.kubernetes.io/zone": n.zone,
        "node.kubernetes.io/instance-type": n.instanceType,
        "eks.amazonaws.com/nodegroup": "general",
      },
      annotations: {
        "alpha.kubernetes.io/provided-node-ip": n.ip,
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
      },
      creationTimestamp: created,
    },
    spec: { providerID: `aws:///${n.zone}/${n.instanceId}` },
    status: {
      conditions: [
        { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: created, lastTransitionTime: iso(n.createdMs + 30_000) },
      ],
      addresses: [
        { type: "InternalIP", address: n.ip },
        { type: "InternalDNS", address: n.name },
        { type: "Hostname", address: n.name },
      ],
      // where the kubelet listens: Prometheus's node discovery scrapes this port
      daemonEndpoints: { kubeletEndpoint: { Port: KUBELET_PORT } },
      nodeInfo: {
        kubeletVersion: n.kubeletVersion,
        kubeProxyVersion: n.kubeletVersion,
        containerRuntimeVersion: "containerd://1.7.27",
        osImage: "Amazon Linux 2023.7.20250512",
        operatingSystem: "linux",
        architecture: "amd64",
      },
    },
  };
}
