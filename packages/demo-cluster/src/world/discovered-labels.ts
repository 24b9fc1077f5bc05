/**
 * The pre-relabel labels Prometheus's Kubernetes discovery gives a pod's port: endpointslice role (ServiceMonitor) and pod
 * role (PodMonitor), plus `__meta_kubernetes_pod_label_*`. Label name lists are fixed per shape, so key order is cached.
 */
import type { Labels } from "@allocation-lens/allocation/model";
import { conditionTrue, hostIP, podIP, podNodeName, podPhase, sanitizeLabelName, type ContainerPort, type KubeObject } from "./kube";
import { keyOrder, type KeyOrder } from "./target-key";

export interface FoundPort {
  container: string;
  port: ContainerPort;
}

const SLICE_KEYS = [
  "__address__", "__meta_kubernetes_namespace", "__meta_kubernetes_service_name", "__meta_kubernetes_endpointslice_name",
  "__meta_kubernetes_endpointslice_address_type", "__meta_kubernetes_endpointslice_address_target_kind",
  "__meta_kubernetes_endpointslice_address_target_name", "__meta_kubernetes_endpointslice_endpoint_conditions_ready",
  "__meta_kubernetes_endpointslice_port", "__meta_kubernetes_endpointslice_port_name", "__meta_kubernetes_endpointslice_port_protocol",
  "__meta_kubernetes_pod_name", "__meta_kubernetes_pod_ip", "__meta_kubernetes_pod_node_name", "__meta_kubernetes_pod_ready",
  "__meta_kubernetes_pod_container_name", "__meta_kubernetes_pod_container_port_name",
];
const POD_KEYS = [
  "__address__", "__meta_kubernetes_namespace", "__meta_kubernetes_pod_name", "__meta_kubernetes_pod_ip", "__meta_kubernetes_pod_host_ip",
  "__meta_kubernetes_pod_node_name", "__meta_kubernetes_pod_ready", "__meta_kubernetes_pod_phase", "__meta_kubernetes_pod_container_name",
  "__meta_kubernetes_pod_container_port_name", "__meta_kubernetes_pod_container_port_number", "__meta_kubernetes_pod_container_port_protocol",
];
const CONTROLLER_KEYS = ["__meta_kubernetes_pod_controller_kind", "__meta_kubernetes_pod_controller_name"];

const ready = (pod: KubeObject): string => (conditionTrue(pod, "Ready") ? "true" : "false");

export function endpointSliceLabels(pod: KubeObject, { container, port }: FoundPort, service: string, slice: string): Labels {
  const ip = podIP(pod);
  const isReady = ready(pod);
  const portName = port.name ?? "";
  return {
    __address__: `${ip}:${port.containerPort}`,
    __meta_kubernetes_namespace: pod.metadata.namespace ?? "default",
    __meta_kubernetes_service_name: service,
    __meta_kubernetes_endpointslice_name: slice,
    __meta_kubernetes_endpointslice_address_type: "IPv4",
    __meta_kubernetes_endpointslice_address_target_kind: "Pod",
    __meta_kubernetes_endpointslice_address_target_name: pod.metadata.name,
    __meta_kubernetes_endpointslice_endpoint_conditions_ready: isReady,
    __meta_kubernetes_endpointslice_port: String(port.containerPort),
    __meta_kubernetes_endpointslice_port_name: portName,
    __meta_kubernetes_endpointslice_port_protocol: port.protocol ?? "TCP",
    __meta_kubernetes_pod_name: pod.metadata.name,
    __meta_kubernetes_pod_ip: ip,
    __meta_kubernetes_pod_node_name: podNodeName(pod),
    __meta_kubernetes_pod_ready: isReady,
    __meta_kubernetes_pod_container_name: container,
    __meta_kubernetes_pod_container_port_name: portName,
  };
}

export function podRoleLabels(pod: KubeObject, { container, port }: FoundPort, owner: { kind: string; name: string } | undefined): Labels {
  const ip = podIP(pod);
  const labels: Labels = {
    __address__: `${ip}:${port.containerPort}`,
    __meta_kubernetes_namespace: pod.metadata.namespace ?? "default",
    __meta_kubernetes_pod_name: pod.metadata.name,
    __meta_kubernetes_pod_ip: ip,
    __meta_kubernetes_pod_host_ip: hostIP(pod),
    __meta_kubernetes_pod_node_name: podNodeName(pod),
    __meta_kubernetes_pod_ready: ready(pod),
    __meta_kubernetes_pod_phase: podPhase(pod),
    __meta_kubernetes_pod_container_name: container,
    __meta_kubernetes_pod_container_port_name: port.name ?? "",
    __meta_kubernetes_pod_container_port_number: String(port.containerPort),
    __meta_kubernetes_pod_container_port_protocol: port.protocol ?? "TCP",
  };
  if (owner) {
    labels.__meta_kubernetes_pod_controller_kind = owner.kind;
    labels.__meta_kubernetes_pod_controller_name = owner.name;
  }
  return labels;
}

export const podOwner = (pod: KubeObject): { kind: string; name: string } | undefined =>
  (pod.metadata.ownerReferences as { kind: string; name: string }[] | undefined)?.[0];

export interface Shape {
  /** pod label names and the meta label each becomes */
  from: string[];
  to: string[];
  order: KeyOrder;
  /** insertion index (fixed names, then `to`) of each sorted name; null when names collide after sanitizing */
  perm: number[] | null;
}

/** Key orders per label shape (role, controller present, pod label names), for one discovery pass. */
export class Shapes {
  private readonly cache = new Map<string, Shape>();
  /** by identity of the pod's labels object too: the generated world shares one per workload revision */
  private readonly byObject = [new Map<object, Shape>(), new Map<object, Shape>(), new Map<object, Shape>()];

  of(role: "endpointslice" | "pod", hasController: boolean, podLabels: Record<string, string>): Shape {
    const objects = this.byObject[role === "endpointslice" ? 0 : hasController ? 1 : 2];
    let shape = objects.get(podLabels);
    if (!shape) objects.set(podLabels, (shape = this.bySignature(role, hasController, podLabels)));
    return shape;
  }

  private bySignature(role: "endpointslice" | "pod", hasController: boolean, podLabels: Record<string, string>): Shape {
    const from = Object.keys(podLabels);
    const id = `${role}${hasController ? "+" : "-"}${from.join("\u0000")}`;
    let shape = this.cache.get(id);
    if (!shape) {
      const to = from.map((k) => `__meta_kubernetes_pod_label_${sanitizeLabelName(k)}`);
      const fixed = role === "endpointslice" ? SLICE_KEYS : hasController ? [...POD_KEYS, ...CONTROLLER_KEYS] : POD_KEYS;
      const inserted = [...fixed, ...to];
      const order = keyOrder(inserted);
      const perm = order.keys.length === inserted.length ? order.keys.map((k) => inserted.indexOf(k)) : null;
      shape = { from, to, order, perm };
      this.cache.set(id, shape);
    }
    return shape;
  }
}
