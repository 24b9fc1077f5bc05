/**
 * The Target Allocator's service discovery over the demo world, pure: which jobs a TA has and the pre-relabel discovered
 * labels of each target, as a real TA serves them, monitors routed by annotation (docs/target-allocator.md). Upstream's TA
 * (`flavor: "upstream"`) keeps what the jobs' relabel rules keep: a ServiceMonitor's targets through the Service named
 * like it and its one EndpointSlice (discovered-labels.ts, world/services.ts, world/endpoint-slices.ts). The CloudWatch
 * fork's (`flavor: "cloudwatch"`) keeps everything its discovery finds in the monitors' namespaces (raw-discovery.ts).
 */
import type { Flavor, Labels, MonitorRef, Target } from "@allocation-lens/allocation/model";
import { addPodMetadataLabels, dropEmpty, endpointSliceLabels, podOwner, podRoleLabels, Shapes, sliceGroupLabels, type FoundPort } from "./discovered-labels";
import { endpointSliceName, ZONE_LABEL } from "./endpoint-slices";
import { containersOf, podNodeName, type KubeObject } from "./kube";
import { PodIndex } from "./pod-index";
import { monitorEndpoints, monitorJobName, monitorMatchLabels, monitorNamespaces, monitorScrapeConfig, type EndpointSpec } from "./scrape-configs";
import type { StaticJob } from "./static-jobs";
import { keyOrder, keyWithOrder, keyWithPermutation, targetKey, type KeyOrder } from "./target-key";
import { endpointsFor } from "./endpoints";
import { endpointsRoleTargets, podRoleTargets } from "./raw-discovery";

export { monitorJobName } from "./scrape-configs";
export { targetKey } from "./target-key";

export interface DiscoveryInput {
  nodes: readonly KubeObject[];
  pods: readonly KubeObject[];
  serviceMonitors: readonly KubeObject[];
  podMonitors: readonly KubeObject[];
  /** the static jobs of this TA, never filtered */
  staticJobs: readonly StaticJob[];
  /** the routing filter: which monitors this TA keeps */
  keep: (m: MonitorRef) => boolean;
  /** whose discovery: upstream's (filtered, endpointslice role; the default) or the CloudWatch fork's (unfiltered, endpoints role) */
  flavor?: Flavor;
  /** the fork's endpoints role reads Services and Endpoints (default: none, and Endpoints computed from `services`) */
  services?: readonly KubeObject[];
  endpoints?: readonly KubeObject[];
}

export type ScrapeConfigInput = Pick<DiscoveryInput, "serviceMonitors" | "podMonitors" | "staticJobs" | "keep">;

export function resolveMonitorRef(obj: KubeObject): MonitorRef {
  return {
    kind: obj.kind === "PodMonitor" ? "PodMonitor" : "ServiceMonitor",
    namespace: obj.metadata.namespace ?? "default",
    name: obj.metadata.name,
    annotations: { ...(obj.metadata.annotations ?? {}) },
    endpoints: monitorEndpoints(obj).length,
  };
}

const makeTarget = (job: string, labels: Labels): Target => ({ key: targetKey(job, labels), job, address: labels.__address__, labels });

const keptMonitors = (input: ScrapeConfigInput): KubeObject[] =>
  [...input.serviceMonitors, ...input.podMonitors].filter((m) => input.keep(resolveMonitorRef(m)));

/** Every job of this TA with at least one target -> its targets; jobs sorted by name, targets in pod order. */
export function discoverTargets(input: DiscoveryInput): Map<string, Target[]> {
  const jobs = new Map<string, Target[]>();
  const flavor = input.flavor ?? "upstream";
  for (const job of input.staticJobs) {
    const targets = job.targets({ nodes: input.nodes, flavor }).map((labels) => makeTarget(job.name, labels));
    if (targets.length) jobs.set(job.name, targets);
  }
  if (flavor === "cloudwatch") discoverUnfiltered(input, jobs);
  else discoverFiltered(input, jobs);
  return new Map([...jobs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const byNamespace = (objects: readonly KubeObject[]): Map<string, KubeObject[]> => {
  const out = new Map<string, KubeObject[]>();
  for (const o of objects) {
    const ns = o.metadata.namespace ?? "default";
    let list = out.get(ns);
    if (!list) out.set(ns, (list = []));
    list.push(o);
  }
  return out;
};

/**
 * The fork's jobs: every target its endpoints role (ServiceMonitor) or pod role (PodMonitor) discovers in the monitor's
 * namespaces. A namespace's targets are computed once per role and shared by the jobs that read it.
 */
function discoverUnfiltered(input: DiscoveryInput, jobs: Map<string, Target[]>): void {
  const services = input.services ?? [];
  const podsByNs = byNamespace(input.pods);
  const endpoints = input.endpoints ?? services.flatMap((svc) => endpointsFor(svc, podsByNs.get(svc.metadata.namespace ?? "default") ?? []) ?? []);
  const key = (o: KubeObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
  const serviceMap = new Map(services.map((s) => [key(s), s]));
  const podMap = new Map(input.pods.map((p) => [key(p), p]));
  const epsByNs = byNamespace(endpoints);
  const cache = new Map<string, Labels[]>();
  const inNamespace = (role: "endpoints" | "pod", ns: string): Labels[] => {
    let labels = cache.get(`${role}/${ns}`);
    if (!labels) {
      labels = role === "pod" ? (podsByNs.get(ns) ?? []).flatMap(podRoleTargets) : (epsByNs.get(ns) ?? []).flatMap((e) => endpointsRoleTargets(e, serviceMap, podMap));
      cache.set(`${role}/${ns}`, labels);
    }
    return labels;
  };
  const allNamespaces = [...new Set([...podsByNs.keys(), ...epsByNs.keys()])].sort();
  // the key order of each label-name set (targets of one kind share one): sorting and hashing names once per set
  const orders = new Map<string, KeyOrder>();
  const orderOf = (labels: Labels): KeyOrder => {
    const names = Object.keys(labels);
    const id = names.join("\u0000");
    let order = orders.get(id);
    if (!order) orders.set(id, (order = keyOrder(names)));
    return order;
  };
  for (const m of keptMonitors(input)) {
    const ns = m.metadata.namespace ?? "default";
    const role = m.kind === "ServiceMonitor" ? "endpoints" : "pod";
    const selected = monitorNamespaces(m);
    const found = (selected === "any" ? allNamespaces : selected).flatMap((n) => inNamespace(role, n));
    monitorEndpoints(m).forEach((_, i) => {
      const job = monitorJobName(m.kind, ns, m.metadata.name, i);
      // one target per distinct (address, labels), as the fork keys them; jobs of one namespace share the label objects
      const targets = new Map<string, Target>();
      for (const labels of found) {
        const key = keyWithOrder(job, labels, orderOf(labels));
        targets.set(key, { key, job, address: labels.__address__, labels });
      }
      if (targets.size) jobs.set(job, [...targets.values()]);
    });
  }
}

/** Upstream's jobs: the targets its relabel-config filter keeps (the monitor's Service or pods, its port). */
function discoverFiltered(input: DiscoveryInput, jobs: Map<string, Target[]>): void {
  const monitors = keptMonitors(input);
  const keys = new Set<string>();
  for (const m of monitors) for (const k of Object.keys(monitorMatchLabels(m))) keys.add(k);
  const index = new PodIndex(input.pods, keys);
  const shapes = new Shapes();
  const zones = new Map(input.nodes.map((n) => [n.metadata.name, n.metadata.labels?.[ZONE_LABEL] ?? ""]));
  const noGroup = { id: "", names: [] as string[] };
  for (const m of monitors) {
    const ns = m.metadata.namespace ?? "default";
    const service = m.metadata.name;
    const sm = m.kind === "ServiceMonitor";
    // the Service is labelled with the monitor's matchLabels (world/services.ts); its slice's labels follow
    const groupLabels = sm ? sliceGroupLabels(service, endpointSliceName(ns, service), monitorMatchLabels(m)) : {};
    const group = sm ? { id: `${ns}/${service}`, names: Object.keys(groupLabels) } : noGroup;
    const pods = index.select(monitorNamespaces(m), monitorMatchLabels(m));
    const endpoints = monitorEndpoints(m);
    for (let i = 0; i < endpoints.length; i++) {
      const job = monitorJobName(m.kind, ns, m.metadata.name, i);
      const targets: Target[] = [];
      for (const pod of pods) {
        const found = findPort(pod, endpoints[i]);
        if (!found) continue;
        const owner = podOwner(pod);
        const labels = sm ? endpointSliceLabels(pod, found, owner, zones.get(podNodeName(pod)) ?? "") : podRoleLabels(pod, found, owner);
        for (const k in groupLabels) labels[k] = groupLabels[k];
        const podLabels = pod.metadata.labels ?? {};
        const shape = shapes.of(sm ? "endpointslice" : "pod", !!owner, group, podLabels);
        // in the shape's insertion order: every `_label_`, then every `_labelpresent_`
        for (let j = 0; j < shape.from.length; j++) labels[shape.to[j]] = podLabels[shape.from[j]];
        for (let j = 0; j < shape.from.length; j++) labels[shape.present[j]] = "true";
        const annotated = !!pod.metadata.annotations && Object.keys(pod.metadata.annotations).length > 0;
        if (annotated) addPodMetadataLabels(labels, pod);
        // the fast key needs the shape's exact names: not with an empty value dropped, annotations or colliding names
        const values = Object.values(labels);
        const exact = !annotated && shape.perm && !values.includes("");
        if (!exact) dropEmpty(labels);
        const key = exact ? keyWithPermutation(job, values, shape.order, shape.perm!) : targetKey(job, labels);
        targets.push({ key, job, address: labels.__address__, labels });
      }
      if (targets.length) jobs.set(job, targets);
    }
  }
}

/** The scrape config of every job this TA keeps (also jobs without targets), keys sorted, as `/scrape_configs` serves it. */
export function scrapeConfigsFor(input: ScrapeConfigInput): Record<string, Record<string, unknown>> {
  const configs: Record<string, Record<string, unknown>> = {};
  for (const job of input.staticJobs) configs[job.name] = structuredClone(job.config);
  for (const m of keptMonitors(input)) {
    const ns = m.metadata.namespace ?? "default";
    monitorEndpoints(m).forEach((_, i) => (configs[monitorJobName(m.kind, ns, m.metadata.name, i)] = monitorScrapeConfig(m, i)));
  }
  return Object.fromEntries(Object.entries(configs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The container port an endpoint scrapes: by `port` name, else by `targetPort` (name or number). */
function findPort(pod: KubeObject, ep: EndpointSpec): FoundPort | undefined {
  const want = ep.port ?? ep.targetPort;
  if (want === undefined) return undefined;
  for (const c of containersOf(pod)) {
    for (const p of c.ports ?? []) {
      if (p.name === want || p.containerPort === want || String(p.containerPort) === want) return { container: c.name, image: c.image, port: p };
    }
  }
  return undefined;
}

