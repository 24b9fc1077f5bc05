/**
 * The core/v1 Endpoints object kube-controller-manager's endpoints controller keeps for a Service with a selector, as a
 * pure function of the Service and the pods of its namespace: named like the Service, with the Service's labels, and one
 * subset per set of resolved ports. A selected pod with an IP that is neither Succeeded, Failed nor terminating is an
 * address (Ready) or a not-ready address (not Ready), with its node and a `targetRef`; a terminating pod is left out (the
 * controller drops it unless the Service publishes not-ready addresses, which the world's Services never do). A pod
 * without a Service port's target (a named port it does not have) is in no subset for that port. Addresses are sorted by
 * IP, as the controller's repacking sorts them.
 *
 * Prometheus's `endpoints` role reads these (with the Services and pods): the CloudWatch fork's Target Allocator generates
 * its ServiceMonitor jobs with that role, where upstream's uses `endpointslice` (world/endpoint-slices.ts).
 */
import { conditionTrue, isTerminating, podIP, podNodeName, podPhase, type KubeObject } from "./kube";
import { resolvePort, serviceSelects, type ServicePort } from "./endpoint-slices";

export interface EndpointAddress {
  ip: string;
  nodeName?: string;
  targetRef: { kind: "Pod"; namespace: string; name: string; uid: string };
}

export interface EndpointPort {
  name: string;
  port: number;
  protocol: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports: EndpointPort[];
}

/** Whether the endpoints controller lists `pod` at all (ShouldPodBeInEndpoints, without publishNotReadyAddresses). */
export function podInEndpoints(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return !!podIP(pod) && phase !== "Succeeded" && phase !== "Failed" && !isTerminating(pod);
}

const byIp = (a: EndpointAddress, b: EndpointAddress) => {
  const x = a.ip.split(".").map(Number);
  const y = b.ip.split(".").map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return a.targetRef.uid < b.targetRef.uid ? -1 : a.targetRef.uid > b.targetRef.uid ? 1 : 0;
};

/** The Endpoints of `service` over the pods of its namespace; undefined for a Service without a selector (not the controller's). */
export function endpointsFor(service: KubeObject, pods: readonly KubeObject[]): KubeObject | undefined {
  const selector = service.spec?.selector as Record<string, string> | undefined;
  if (!selector || !Object.keys(selector).length) return undefined;
  const ns = service.metadata.namespace ?? "default";
  const servicePorts = (service.spec?.ports as ServicePort[] | undefined) ?? [];
  // one subset per distinct port set (RepackSubsets): key = the ports, in the Service's order
  const subsets = new Map<string, EndpointSubset>();
  for (const pod of pods) {
    if (!serviceSelects(service, pod) || !podInEndpoints(pod)) continue;
    const ports = servicePorts.flatMap((p) => {
      const port = resolvePort(pod, p);
      return port === undefined ? [] : [{ name: p.name ?? "", port, protocol: p.protocol ?? "TCP" }];
    });
    if (!ports.length) continue;
    const key = ports.map((p) => `${p.name}/${p.port}/${p.protocol}`).join(",");
    let subset = subsets.get(key);
    if (!subset) subsets.set(key, (subset = { ports }));
    const node = podNodeName(pod);
    const address: EndpointAddress = {
      ip: podIP(pod),
      ...(node ? { nodeName: node } : {}),
      targetRef: { kind: "Pod", namespace: ns, name: pod.metadata.name, uid: pod.metadata.uid ?? "" },
    };
    const list = conditionTrue(pod, "Ready") ? (subset.addresses ??= []) : (subset.notReadyAddresses ??= []);
    list.push(address);
  }
  for (const s of subsets.values()) {
    s.addresses?.sort(byIp);
    s.notReadyAddresses?.sort(byIp);
  }
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: {
      name: service.metadata.name,
      namespace: ns,
      ...(service.metadata.labels && Object.keys(service.metadata.labels).length ? { labels: { ...service.metadata.labels } } : {}),
    },
    ...(subsets.size ? { subsets: [...subsets.values()] } : {}),
  };
}
