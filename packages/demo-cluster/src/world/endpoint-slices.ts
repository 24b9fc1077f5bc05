/**
 * The EndpointSlice kube-controller-manager keeps for a Service with a selector, as a pure function of the Service, the
 * pods of its namespace and the nodes' zones: one slice per Service, named `<service>-<5 hex of hashHex(ns, service)>`
 * (the name world/discovery.ts gives its targets), the Service's labels plus the controller's two, its ports resolved
 * against the pods' container ports, and one endpoint per selected pod with an IP that is neither Succeeded nor Failed
 * (terminating pods included: ready=false, serving=<pod Ready>, terminating=true), sorted by pod name.
 */
import { hashHex } from "./hash";
import { conditionTrue, containersOf, podIP, podNodeName, type KubeObject } from "./kube";

export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
export const MANAGED_BY = "endpointslice-controller.k8s.io";
export const ZONE_LABEL = "topology.kubernetes.io/zone";

export const endpointSliceName = (namespace: string, service: string): string => `${service}-${hashHex(namespace, service).slice(0, 5)}`;

export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: string | number;
}

const selectorOf = (service: KubeObject): Record<string, string> | undefined => {
  const sel = service.spec?.selector as Record<string, string> | undefined;
  return sel && Object.keys(sel).length ? sel : undefined;
};

/** Whether the Service's selector selects `pod` (same namespace, every selector label equal). */
export function serviceSelects(service: KubeObject, pod: KubeObject): boolean {
  const sel = selectorOf(service);
  if (!sel || pod.metadata.namespace !== service.metadata.namespace) return false;
  const labels = pod.metadata.labels ?? {};
  for (const k in sel) if (labels[k] !== sel[k]) return false;
  return true;
}

/** The pods an endpoint is made for: selected, with an IP, on a node, and not finished. */
function endpointPod(pod: KubeObject): boolean {
  const phase = pod.status?.phase;
  return !!podIP(pod) && phase !== "Succeeded" && phase !== "Failed";
}

/** The container port number a Service port targets on `pod` (by name or number); undefined when the pod has none. */
export function resolvePort(pod: KubeObject, p: ServicePort): number | undefined {
  const target = p.targetPort ?? p.port;
  if (typeof target === "number") return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of containersOf(pod)) for (const cp of c.ports ?? []) if (cp.name === target && (cp.protocol ?? "TCP") === (p.protocol ?? "TCP")) return cp.containerPort;
  return undefined;
}

/** The EndpointSlice of `service` over the pods of its namespace; undefined for a Service without a selector. */
export function endpointSliceFor(service: KubeObject, pods: readonly KubeObject[], zoneOf: (node: string) => string | undefined): KubeObject | undefined {
  if (!selectorOf(service)) return undefined;
  const ns = service.metadata.namespace ?? "default";
  const name = service.metadata.name;
  const selected = pods.filter((p) => serviceSelects(service, p) && endpointPod(p)).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  const servicePorts = (service.spec?.ports as ServicePort[] | undefined) ?? [];
  const first = selected[0];
  const ports = first
    ? servicePorts.flatMap((p) => {
        const port = resolvePort(first, p);
        return port === undefined ? [] : [{ name: p.name ?? "", protocol: p.protocol ?? "TCP", port }];
      })
    : [];
  const endpoints = selected.map((pod) => {
    const terminating = !!pod.metadata.deletionTimestamp;
    const ready = conditionTrue(pod, "Ready");
    const node = podNodeName(pod);
    const zone = node ? zoneOf(node) : undefined;
    return {
      addresses: [podIP(pod)],
      conditions: { ready: ready && !terminating, serving: ready, terminating },
      targetRef: { kind: "Pod", namespace: ns, name: pod.metadata.name, uid: pod.metadata.uid ?? "" },
      ...(node ? { nodeName: node } : {}),
      ...(zone ? { zone } : {}),
    };
  });
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: endpointSliceName(ns, name),
      generateName: `${name}-`,
      namespace: ns,
      labels: { ...(service.metadata.labels ?? {}), [MANAGED_BY_LABEL]: MANAGED_BY, [SERVICE_NAME_LABEL]: name },
      ownerReferences: [{ apiVersion: "v1", kind: "Service", name, uid: service.metadata.uid ?? "", controller: true, blockOwnerDeletion: true }],
    },
    addressType: "IPv4",
    endpoints,
    ports,
  };
}
