/**
 * The targets of the CloudWatch fork's Target Allocator, pure: what Prometheus's Kubernetes discovery (the version the
 * fork builds with) finds for a monitor's job, served unfiltered. The fork generates ServiceMonitor jobs with the
 * `endpoints` role and PodMonitor jobs with the `pod` role, and filters targets by the jobs' relabel rules only when its
 * configuration sets `filter_strategy: relabel-config` (off by default, and the operator writes it only when asked). So
 * its job for a monitor holds every target of every Endpoints object (endpoints role) or every pod (pod role) in the
 * monitor's namespaces, whatever the monitor's selector and port, with the discovered labels as they come:
 *
 * - endpoints role: per Endpoints object, its namespace, its Service's labels (`_service_name`, `_service_label_*`,
 *   `_service_labelpresent_*`, annotations) and its own (`_endpoints_name`, labels, annotations); per subset port and
 *   address (ready, then not-ready) the endpoint's labels (port name and protocol, ready, target kind and name, node) and,
 *   when the address's pod is known, the pod's labels and those of the container port with the endpoint's port number;
 *   then, for every pod seen, one target per container port no endpoint port covered.
 * - pod role: per pod with an IP, one target per container port (a container without ports: one target at the pod IP),
 *   with the pod's labels and the container's (name, id from its status, image, port name, number, protocol, init).
 *
 * Empty label values are kept, as the fork's targets carry the discovered label set itself.
 */
import type { Labels } from "@allocation-lens/allocation/model";
import { containersOf, hostIP, podIP, podNodeName, podPhase, sanitizeLabelName, type Container, type KubeObject } from "./kube";
import type { EndpointPort, EndpointSubset } from "./endpoints";

const nsKey = (ns: string | undefined, name: string) => `${ns ?? ""}/${name}`;

/** `_name`, `_label_*`, `_labelpresent_*`, `_annotation_*`, `_annotationpresent_*` of an object's metadata for `role`. */
function addObjectMeta(labels: Labels, o: KubeObject, role: "pod" | "service" | "endpoints"): void {
  labels[`__meta_kubernetes_${role}_name`] = o.metadata.name;
  for (const [k, v] of Object.entries(o.metadata.labels ?? {})) {
    labels[`__meta_kubernetes_${role}_label_${sanitizeLabelName(k)}`] = v;
    labels[`__meta_kubernetes_${role}_labelpresent_${sanitizeLabelName(k)}`] = "true";
  }
  for (const [k, v] of Object.entries(o.metadata.annotations ?? {})) {
    labels[`__meta_kubernetes_${role}_annotation_${sanitizeLabelName(k)}`] = v;
    labels[`__meta_kubernetes_${role}_annotationpresent_${sanitizeLabelName(k)}`] = "true";
  }
}

/** The Ready condition's status, lower-cased, or "unknown" without one. */
function podReady(pod: KubeObject): string {
  const c = (pod.status?.conditions as { type: string; status: string }[] | undefined)?.find((x) => x.type === "Ready");
  return c ? c.status.toLowerCase() : "unknown";
}

/** rawPodLabels per pod object: a pod's labels are the same in every target of a discovery pass (objects are not changed in place). */
const podLabelsCache = new WeakMap<KubeObject, Labels>();

/** What both roles take from a pod (Prometheus's podLabels); the same object for the same pod object (do not change it). */
export function rawPodLabels(pod: KubeObject): Labels {
  const cached = podLabelsCache.get(pod);
  if (cached) return cached;
  const labels = podLabelsOf(pod);
  podLabelsCache.set(pod, labels);
  return labels;
}

function podLabelsOf(pod: KubeObject): Labels {
  const labels: Labels = {
    __meta_kubernetes_pod_ip: podIP(pod),
    __meta_kubernetes_pod_ready: podReady(pod),
    __meta_kubernetes_pod_phase: podPhase(pod),
    __meta_kubernetes_pod_node_name: podNodeName(pod),
    __meta_kubernetes_pod_host_ip: hostIP(pod),
    __meta_kubernetes_pod_uid: pod.metadata.uid ?? "",
  };
  addObjectMeta(labels, pod, "pod");
  const owner = (pod.metadata.ownerReferences as { kind?: string; name?: string; controller?: boolean }[] | undefined)?.find((o) => o.controller);
  if (owner?.kind) labels.__meta_kubernetes_pod_controller_kind = owner.kind;
  if (owner?.name) labels.__meta_kubernetes_pod_controller_name = owner.name;
  return labels;
}

const initContainersOf = (pod: KubeObject): Container[] => (pod.spec?.initContainers as Container[] | undefined) ?? [];

/** Containers then init containers, with whether each is an init container. */
const allContainers = (pod: KubeObject): { c: Container; init: boolean }[] => [
  ...containersOf(pod).map((c) => ({ c, init: false })),
  ...initContainersOf(pod).map((c) => ({ c, init: true })),
];

function containerId(pod: KubeObject, name: string, init: boolean): string {
  const statuses = (pod.status?.[init ? "initContainerStatuses" : "containerStatuses"] as { name: string; containerID?: string }[] | undefined) ?? [];
  return statuses.find((s) => s.name === name)?.containerID ?? "";
}

const joinHostPort = (host: string, port: number | string) => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`);

/** Labels `b` over `a` (Go's LabelSet.Merge: the argument wins). */
const merge = (a: Labels, b: Labels): Labels => Object.assign({}, a, b);

/** The pod role's targets of one pod (none without an IP). */
export function podRoleTargets(pod: KubeObject): Labels[] {
  const ip = podIP(pod);
  if (!ip) return [];
  const group = { ...rawPodLabels(pod), __meta_kubernetes_namespace: pod.metadata.namespace ?? "default" };
  const out: Labels[] = [];
  for (const { c, init } of allContainers(pod)) {
    const id = containerId(pod, c.name, init);
    if (!c.ports?.length) {
      out.push(
        merge(
          {
            __address__: ip,
            __meta_kubernetes_pod_container_name: c.name,
            __meta_kubernetes_pod_container_id: id,
            __meta_kubernetes_pod_container_image: c.image ?? "",
            __meta_kubernetes_pod_container_init: String(init),
          },
          group,
        ),
      );
      continue;
    }
    for (const p of c.ports) {
      out.push(
        merge(
          {
            __address__: joinHostPort(ip, p.containerPort),
            __meta_kubernetes_pod_container_name: c.name,
            __meta_kubernetes_pod_container_id: id,
            __meta_kubernetes_pod_container_image: c.image ?? "",
            __meta_kubernetes_pod_container_port_number: String(p.containerPort),
            __meta_kubernetes_pod_container_port_name: p.name ?? "",
            __meta_kubernetes_pod_container_port_protocol: p.protocol ?? "",
            __meta_kubernetes_pod_container_init: String(init),
          },
          group,
        ),
      );
    }
  }
  return out;
}

interface RawAddress {
  ip: string;
  nodeName?: string;
  hostname?: string;
  targetRef?: { kind?: string; namespace?: string; name?: string };
}

/**
 * The endpoints role's targets of one Endpoints object: `services` and `pods` are the discovery's caches (by
 * `namespace/name`), from which the Service's labels and each address's pod are resolved.
 */
export function endpointsRoleTargets(eps: KubeObject, services: ReadonlyMap<string, KubeObject>, pods: ReadonlyMap<string, KubeObject>): Labels[] {
  const ns = eps.metadata.namespace ?? "default";
  const group: Labels = { __meta_kubernetes_namespace: ns };
  const svc = services.get(nsKey(ns, eps.metadata.name));
  if (svc) addObjectMeta(group, svc, "service");
  addObjectMeta(group, eps, "endpoints");
  const out: Labels[] = [];
  const seen = new Map<string, { pod: KubeObject; ports: number[] }>();
  const add = (addr: RawAddress, port: EndpointPort, ready: string) => {
    const target: Labels = {
      __address__: joinHostPort(addr.ip, port.port),
      __meta_kubernetes_endpoint_port_name: port.name ?? "",
      __meta_kubernetes_endpoint_port_protocol: port.protocol ?? "",
      __meta_kubernetes_endpoint_ready: ready,
    };
    if (addr.targetRef) {
      target.__meta_kubernetes_endpoint_address_target_kind = addr.targetRef.kind ?? "";
      target.__meta_kubernetes_endpoint_address_target_name = addr.targetRef.name ?? "";
    }
    if (addr.nodeName !== undefined) target.__meta_kubernetes_endpoint_node_name = addr.nodeName;
    if (addr.hostname) target.__meta_kubernetes_endpoint_hostname = addr.hostname;
    const pod = addr.targetRef?.kind === "Pod" ? pods.get(nsKey(addr.targetRef.namespace, addr.targetRef.name ?? "")) : undefined;
    if (!pod) {
      out.push(merge(target, group));
      return;
    }
    const key = nsKey(pod.metadata.namespace, pod.metadata.name);
    let entry = seen.get(key);
    if (!entry) seen.set(key, (entry = { pod, ports: [] }));
    const withPod = merge(target, rawPodLabels(pod));
    found: for (const { c, init } of allContainers(pod)) {
      for (const cp of c.ports ?? []) {
        if (cp.containerPort !== port.port) continue;
        withPod.__meta_kubernetes_pod_container_name = c.name;
        withPod.__meta_kubernetes_pod_container_image = c.image ?? "";
        withPod.__meta_kubernetes_pod_container_port_name = cp.name ?? "";
        withPod.__meta_kubernetes_pod_container_port_number = String(port.port);
        withPod.__meta_kubernetes_pod_container_port_protocol = port.protocol ?? "";
        withPod.__meta_kubernetes_pod_container_init = String(init);
        break found;
      }
    }
    entry.ports.push(port.port);
    out.push(merge(withPod, group));
  };
  for (const ss of (eps.subsets as (EndpointSubset & { addresses?: RawAddress[]; notReadyAddresses?: RawAddress[] })[] | undefined) ?? []) {
    for (const port of ss.ports ?? []) {
      for (const addr of ss.addresses ?? []) add(addr, port, "true");
      for (const addr of ss.notReadyAddresses ?? []) add(addr, port, "false");
    }
  }
  for (const { pod, ports } of seen.values()) {
    const ip = podIP(pod);
    if (!ip) continue;
    for (const { c, init } of allContainers(pod)) {
      for (const cp of c.ports ?? []) {
        if (ports.includes(cp.containerPort)) continue;
        const t: Labels = {
          __address__: joinHostPort(ip, cp.containerPort),
          __meta_kubernetes_pod_container_name: c.name,
          __meta_kubernetes_pod_container_image: c.image ?? "",
          __meta_kubernetes_pod_container_port_name: cp.name ?? "",
          __meta_kubernetes_pod_container_port_number: String(cp.containerPort),
          __meta_kubernetes_pod_container_port_protocol: cp.protocol ?? "",
          __meta_kubernetes_pod_container_init: String(init),
        };
        out.push(merge(merge(t, rawPodLabels(pod)), group));
      }
    }
  }
  return out;
}
