/**
 * The pre-relabel labels Prometheus's Kubernetes discovery gives a pod's port, as a real Target Allocator serves them:
 * endpointslice role (ServiceMonitor: the slice's and its Service's labels, the endpoint's conditions, node and zone,
 * then the pod's) and pod role (PodMonitor), both with the pod's own labels: IP, Ready, phase, node, host IP, uid,
 * `_label_*` and `_labelpresent_*` of its labels (and annotations), controller kind and name, and the container's name,
 * image, port name, number, protocol and init flag. A label whose value is empty is left out, as the TA's label builder
 * drops it. Label name lists are fixed per shape, so key order is cached.
 */
import type { Flavor, Labels } from "@allocation-lens/allocation/model";
import { conditionTrue, hostIP, isTerminating, podIP, podNodeName, podPhase, sanitizeLabelName, type ContainerPort, type KubeObject } from "./kube";
import { MANAGED_BY, MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from "./endpoint-slices";
import { keyOrder, type KeyOrder } from "./target-key";

export interface FoundPort {
  container: string;
  image?: string;
  port: ContainerPort;
}

/** The endpointslice role's labels of one endpoint and port, before the pod's common labels. */
const SLICE_TARGET_KEYS = [
  "__address__", "__meta_kubernetes_namespace", "__meta_kubernetes_endpointslice_port_name", "__meta_kubernetes_endpointslice_port_protocol",
  "__meta_kubernetes_endpointslice_port", "__meta_kubernetes_endpointslice_endpoint_conditions_ready",
  "__meta_kubernetes_endpointslice_endpoint_conditions_serving", "__meta_kubernetes_endpointslice_endpoint_conditions_terminating",
  "__meta_kubernetes_endpointslice_address_target_kind", "__meta_kubernetes_endpointslice_address_target_name",
  "__meta_kubernetes_endpointslice_endpoint_node_name", "__meta_kubernetes_endpointslice_endpoint_zone",
];
const POD_TARGET_KEYS = ["__address__", "__meta_kubernetes_namespace"];
/** What both roles take from the pod (Prometheus's podLabels), the controller's two aside. */
const POD_COMMON_KEYS = [
  "__meta_kubernetes_pod_ip", "__meta_kubernetes_pod_ready", "__meta_kubernetes_pod_phase", "__meta_kubernetes_pod_node_name",
  "__meta_kubernetes_pod_host_ip", "__meta_kubernetes_pod_uid", "__meta_kubernetes_pod_name",
];
const CONTROLLER_KEYS = ["__meta_kubernetes_pod_controller_kind", "__meta_kubernetes_pod_controller_name"];
const CONTAINER_KEYS = [
  "__meta_kubernetes_pod_container_name", "__meta_kubernetes_pod_container_image", "__meta_kubernetes_pod_container_port_name",
  "__meta_kubernetes_pod_container_port_number", "__meta_kubernetes_pod_container_port_protocol", "__meta_kubernetes_pod_container_init",
];

const bool = (b: boolean): string => (b ? "true" : "false");

function addPodCommon(labels: Labels, pod: KubeObject, owner: { kind: string; name: string } | undefined): void {
  labels.__meta_kubernetes_pod_ip = podIP(pod);
  labels.__meta_kubernetes_pod_ready = bool(conditionTrue(pod, "Ready"));
  labels.__meta_kubernetes_pod_phase = podPhase(pod);
  labels.__meta_kubernetes_pod_node_name = podNodeName(pod);
  labels.__meta_kubernetes_pod_host_ip = hostIP(pod);
  labels.__meta_kubernetes_pod_uid = pod.metadata.uid ?? "";
  labels.__meta_kubernetes_pod_name = pod.metadata.name;
  if (owner) {
    labels.__meta_kubernetes_pod_controller_kind = owner.kind;
    labels.__meta_kubernetes_pod_controller_name = owner.name;
  }
}

function addContainer(labels: Labels, { container, image, port }: FoundPort): void {
  labels.__meta_kubernetes_pod_container_name = container;
  labels.__meta_kubernetes_pod_container_image = image ?? "";
  labels.__meta_kubernetes_pod_container_port_name = port.name ?? "";
  labels.__meta_kubernetes_pod_container_port_number = String(port.containerPort);
  labels.__meta_kubernetes_pod_container_port_protocol = port.protocol ?? "TCP";
  labels.__meta_kubernetes_pod_container_init = "false";
}

/**
 * The labels every target of one ServiceMonitor's slice shares: the slice's name, address type and labels (the Service's
 * plus the controller's two), and the Service's name and labels.
 */
export function sliceGroupLabels(service: string, slice: string, serviceLabels: Record<string, string>): Labels {
  const labels: Labels = {
    __meta_kubernetes_endpointslice_address_type: "IPv4",
    __meta_kubernetes_endpointslice_name: slice,
    __meta_kubernetes_service_name: service,
  };
  const sliceLabels = { ...serviceLabels, [MANAGED_BY_LABEL]: MANAGED_BY, [SERVICE_NAME_LABEL]: service };
  for (const [k, v] of Object.entries(sliceLabels)) {
    labels[`__meta_kubernetes_endpointslice_label_${sanitizeLabelName(k)}`] = v;
    labels[`__meta_kubernetes_endpointslice_labelpresent_${sanitizeLabelName(k)}`] = "true";
  }
  for (const [k, v] of Object.entries(serviceLabels)) {
    labels[`__meta_kubernetes_service_label_${sanitizeLabelName(k)}`] = v;
    labels[`__meta_kubernetes_service_labelpresent_${sanitizeLabelName(k)}`] = "true";
  }
  return labels;
}

/** The endpointslice role's labels of a pod's port (without the slice's group labels and the pod's own labels). */
export function endpointSliceLabels(pod: KubeObject, found: FoundPort, owner: { kind: string; name: string } | undefined, zone: string): Labels {
  const ip = podIP(pod);
  const ready = conditionTrue(pod, "Ready");
  const terminating = isTerminating(pod);
  const labels: Labels = {
    __address__: `${ip}:${found.port.containerPort}`,
    __meta_kubernetes_namespace: pod.metadata.namespace ?? "default",
    __meta_kubernetes_endpointslice_port_name: found.port.name ?? "",
    __meta_kubernetes_endpointslice_port_protocol: found.port.protocol ?? "TCP",
    __meta_kubernetes_endpointslice_port: String(found.port.containerPort),
    __meta_kubernetes_endpointslice_endpoint_conditions_ready: bool(ready && !terminating),
    __meta_kubernetes_endpointslice_endpoint_conditions_serving: bool(ready),
    __meta_kubernetes_endpointslice_endpoint_conditions_terminating: bool(terminating),
    __meta_kubernetes_endpointslice_address_target_kind: "Pod",
    __meta_kubernetes_endpointslice_address_target_name: pod.metadata.name,
    __meta_kubernetes_endpointslice_endpoint_node_name: podNodeName(pod),
    __meta_kubernetes_endpointslice_endpoint_zone: zone,
  };
  addPodCommon(labels, pod, owner);
  addContainer(labels, found);
  return labels;
}

/** The pod role's labels of a pod's port (without the pod's own labels). */
export function podRoleLabels(pod: KubeObject, found: FoundPort, owner: { kind: string; name: string } | undefined): Labels {
  const labels: Labels = {
    __address__: `${podIP(pod)}:${found.port.containerPort}`,
    __meta_kubernetes_namespace: pod.metadata.namespace ?? "default",
  };
  addPodCommon(labels, pod, owner);
  addContainer(labels, found);
  return labels;
}

/** `_label_`, `_labelpresent_`, `_annotation_`, `_annotationpresent_` of a pod's metadata, as Prometheus names them. */
export function addPodMetadataLabels(labels: Labels, pod: KubeObject): void {
  for (const [k, v] of Object.entries(pod.metadata.labels ?? {})) {
    labels[`__meta_kubernetes_pod_label_${sanitizeLabelName(k)}`] = v;
    labels[`__meta_kubernetes_pod_labelpresent_${sanitizeLabelName(k)}`] = "true";
  }
  for (const [k, v] of Object.entries(pod.metadata.annotations ?? {})) {
    labels[`__meta_kubernetes_pod_annotation_${sanitizeLabelName(k)}`] = v;
    labels[`__meta_kubernetes_pod_annotationpresent_${sanitizeLabelName(k)}`] = "true";
  }
}

/** Drops the labels with an empty value (Prometheus's label builder does); true when it dropped any. */
export function dropEmpty(labels: Labels): boolean {
  let dropped = false;
  for (const k in labels) {
    if (labels[k] === "") {
      delete labels[k];
      dropped = true;
    }
  }
  return dropped;
}

export const podOwner = (pod: KubeObject): { kind: string; name: string } | undefined =>
  (pod.metadata.ownerReferences as { kind: string; name: string; controller?: boolean }[] | undefined)?.find((o) => o.controller);

export interface Shape {
  /** pod label names and the two meta labels each becomes (`_label_`, `_labelpresent_`) */
  from: string[];
  to: string[];
  present: string[];
  order: KeyOrder;
  /** insertion index (fixed names, group names, then `to`, then `present`) of each sorted name; null when names collide */
  perm: number[] | null;
}

/**
 * Key orders per label shape (role, controller present, the group labels' names, pod label names), for one discovery pass.
 * A pod with annotations has no cached shape (the generated world's pods have none).
 */
export class Shapes {
  private readonly cache = new Map<string, Shape>();
  /** by identity of the pod's labels object too (the generated world shares one per workload revision), per group */
  private readonly byObject = new Map<string, Map<object, Shape>>();

  /** `group`: the names of the group labels (in insertion order) and an id that stands for them. */
  of(role: "endpointslice" | "pod", hasController: boolean, group: { id: string; names: readonly string[] }, podLabels: Record<string, string>): Shape {
    const kind = `${role}${hasController ? "+" : "-"}${group.id}`;
    let objects = this.byObject.get(kind);
    if (!objects) this.byObject.set(kind, (objects = new Map()));
    let shape = objects.get(podLabels);
    if (!shape) objects.set(podLabels, (shape = this.bySignature(role, hasController, kind, group.names, podLabels)));
    return shape;
  }

  private bySignature(role: "endpointslice" | "pod", hasController: boolean, kind: string, groupNames: readonly string[], podLabels: Record<string, string>): Shape {
    const from = Object.keys(podLabels);
    const id = `${kind}\u0001${from.join("\u0000")}`;
    let shape = this.cache.get(id);
    if (!shape) {
      const to = from.map((k) => `__meta_kubernetes_pod_label_${sanitizeLabelName(k)}`);
      const present = from.map((k) => `__meta_kubernetes_pod_labelpresent_${sanitizeLabelName(k)}`);
      const fixed = [...(role === "endpointslice" ? SLICE_TARGET_KEYS : POD_TARGET_KEYS), ...POD_COMMON_KEYS, ...(hasController ? CONTROLLER_KEYS : []), ...CONTAINER_KEYS];
      const inserted = [...fixed, ...groupNames, ...to, ...present];
      const order = keyOrder(inserted);
      const perm = order.keys.length === inserted.length ? order.keys.map((k) => inserted.indexOf(k)) : null;
      shape = { from, to, present, order, perm };
      this.cache.set(id, shape);
    }
    return shape;
  }
}

interface NodeAddress {
  type: string;
  address: string;
}

/** The address types in the order Prometheus's node discovery picks the target's host from. */
const NODE_ADDRESS_PRIORITY = ["InternalIP", "InternalDNS", "ExternalIP", "ExternalDNS", "LegacyHostIP", "Hostname"];

/**
 * The node role's labels of a node's kubelet, as a real TA serves them: the node's name, provider ID, `_label_*` and
 * `_labelpresent_*` of its labels, `_annotation_*` and `_annotationpresent_*` of its annotations, `instance` (the node's
 * name), `_address_<type>` (the first address of each type) and `__address__`: the first InternalIP (else InternalDNS,
 * ExternalIP, ExternalDNS, LegacyHostIP, Hostname) with the kubelet's port from `status.daemonEndpoints`. Upstream's TA
 * leaves empty values out; the CloudWatch fork's newer discovery also gives each node condition
 * (`_condition_<type>`: its status, lower-cased) and keeps empty values. Undefined for a node without an address (the
 * discovery skips it).
 */
export function nodeRoleLabels(node: KubeObject, flavor: Flavor = "upstream"): Labels | undefined {
  const addresses = (node.status?.addresses as NodeAddress[] | undefined) ?? [];
  const byType = new Map<string, string>();
  for (const a of addresses) if (!byType.has(a.type)) byType.set(a.type, a.address);
  const host = NODE_ADDRESS_PRIORITY.map((t) => byType.get(t)).find((a) => a !== undefined);
  if (host === undefined) return undefined;
  const endpoints = node.status?.daemonEndpoints as { kubeletEndpoint?: { Port?: number } } | undefined;
  const port = endpoints?.kubeletEndpoint?.Port ?? 0;
  const labels: Labels = {
    __meta_kubernetes_node_provider_id: (node.spec?.providerID as string | undefined) ?? "",
    __meta_kubernetes_node_name: node.metadata.name,
  };
  if (flavor === "cloudwatch") {
    for (const c of (node.status?.conditions as { type: string; status: string }[] | undefined) ?? []) {
      labels[`__meta_kubernetes_node_condition_${sanitizeLabelName(c.type.toLowerCase())}`] = c.status.toLowerCase();
    }
  }
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    labels[`__meta_kubernetes_node_label_${sanitizeLabelName(k)}`] = v;
    labels[`__meta_kubernetes_node_labelpresent_${sanitizeLabelName(k)}`] = "true";
  }
  for (const [k, v] of Object.entries(node.metadata.annotations ?? {})) {
    labels[`__meta_kubernetes_node_annotation_${sanitizeLabelName(k)}`] = v;
    labels[`__meta_kubernetes_node_annotationpresent_${sanitizeLabelName(k)}`] = "true";
  }
  labels.__address__ = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  labels.instance = node.metadata.name;
  for (const [type, address] of byType) labels[`__meta_kubernetes_node_address_${sanitizeLabelName(type)}`] = address;
  if (flavor !== "cloudwatch") dropEmpty(labels);
  return labels;
}
