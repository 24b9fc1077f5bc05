/**
 * The Target Allocator's service discovery over the demo world, pure: which jobs a TA has and the pre-relabel discovered
 * labels of each target, as a real TA serves them, monitors routed by annotation (docs/target-allocator.md).
 */
import type { Labels, MonitorRef, Target } from "@allocation-lens/allocation/model";
import { endpointSliceLabels, podOwner, podRoleLabels, Shapes, type FoundPort } from "./discovered-labels";
import { hashHex } from "./hash";
import { containersOf, type KubeObject } from "./kube";
import { PodIndex } from "./pod-index";
import { monitorEndpoints, monitorJobName, monitorMatchLabels, monitorNamespaces, monitorScrapeConfig, type EndpointSpec } from "./scrape-configs";
import type { StaticJob } from "./static-jobs";
import { keyWithPermutation, targetKey } from "./target-key";

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
  for (const job of input.staticJobs) {
    const targets = job.targets({ nodes: input.nodes }).map((labels) => makeTarget(job.name, labels));
    if (targets.length) jobs.set(job.name, targets);
  }
  const monitors = keptMonitors(input);
  const keys = new Set<string>();
  for (const m of monitors) for (const k of Object.keys(monitorMatchLabels(m))) keys.add(k);
  const index = new PodIndex(input.pods, keys);
  const shapes = new Shapes();
  for (const m of monitors) {
    const ns = m.metadata.namespace ?? "default";
    const service = m.metadata.name;
    const slice = `${service}-${hashHex(ns, service).slice(0, 5)}`;
    const sm = m.kind === "ServiceMonitor";
    const pods = index.select(monitorNamespaces(m), monitorMatchLabels(m));
    const endpoints = monitorEndpoints(m);
    for (let i = 0; i < endpoints.length; i++) {
      const job = monitorJobName(m.kind, ns, m.metadata.name, i);
      const targets: Target[] = [];
      for (const pod of pods) {
        const found = findPort(pod, endpoints[i]);
        if (!found) continue;
        const owner = sm ? undefined : podOwner(pod);
        const labels = sm ? endpointSliceLabels(pod, found, service, slice) : podRoleLabels(pod, found, owner);
        const podLabels = pod.metadata.labels ?? {};
        const shape = shapes.of(sm ? "endpointslice" : "pod", !!owner, podLabels);
        for (let j = 0; j < shape.from.length; j++) labels[shape.to[j]] = podLabels[shape.from[j]];
        const key = shape.perm ? keyWithPermutation(job, Object.values(labels), shape.order, shape.perm) : targetKey(job, labels);
        targets.push({ key, job, address: labels.__address__, labels });
      }
      if (targets.length) jobs.set(job, targets);
    }
  }
  return new Map([...jobs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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
      if (p.name === want || p.containerPort === want || String(p.containerPort) === want) return { container: c.name, port: p };
    }
  }
  return undefined;
}

