/** The two agents of each flavor: namespace, names and the pod labels their operator sets (docs/target-allocator.md). */
import type { Flavor, Role } from "@allocation-lens/allocation/model";
import type { Container } from "./kube";
import type { KubeObject } from "./kube";
import { iso } from "./naming";
import { fakeUid, ownerReferences, podTemplate, type PodTemplate } from "./objects";

export interface AgentInfo {
  /** the custom resource's name, as in the instance label `<namespace>.<name>` */
  name: string;
  /** the labels the TA selects its collector pods by */
  selector: Record<string, string>;
  kind: "DaemonSet" | "Deployment";
}

interface FlavorFacts {
  namespace: string;
  names: Record<Role, string>;
  /** the workload the operator creates for a custom resource */
  workload: (name: string) => string;
  managedBy: string;
  partOf: string;
  component: string;
  container: Container;
}

const FACTS: Record<Flavor, FlavorFacts> = {
  cloudwatch: {
    namespace: "amazon-cloudwatch",
    names: { "per-node": "cloudwatch-agent", "cluster-scraper": "cloudwatch-agent-cluster-scraper" },
    workload: (name) => name,
    managedBy: "amazon-cloudwatch-agent-operator",
    partOf: "amazon-cloudwatch-agent",
    component: "amazon-cloudwatch-agent",
    container: {
      name: "cloudwatch-agent",
      image: "public.ecr.aws/cloudwatch-agent/cloudwatch-agent:1.300052.0b1024",
      ports: [{ name: "metrics", containerPort: 8888, protocol: "TCP" }],
    },
  },
  upstream: {
    namespace: "opentelemetry",
    names: { "per-node": "otel-agent", "cluster-scraper": "otel-cluster-scraper" },
    workload: (name) => `${name}-collector`,
    managedBy: "opentelemetry-operator",
    partOf: "opentelemetry",
    component: "opentelemetry-collector",
    container: {
      name: "otc-container",
      image: "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-k8s:0.128.0",
      ports: [{ name: "metrics", containerPort: 8888, protocol: "TCP" }],
    },
  },
};

const KIND: Record<Role, AgentInfo["kind"]> = { "per-node": "DaemonSet", "cluster-scraper": "Deployment" };

export const agentNamespace = (flavor: Flavor): string => FACTS[flavor].namespace;

export function agentInfo(flavor: Flavor, role: Role): AgentInfo {
  const f = FACTS[flavor];
  const name = f.names[role];
  return {
    name,
    kind: KIND[role],
    selector: {
      "app.kubernetes.io/managed-by": f.managedBy,
      "app.kubernetes.io/instance": `${f.namespace}.${name}`,
      "app.kubernetes.io/part-of": f.partOf,
      "app.kubernetes.io/component": f.component,
    },
  };
}

/** The DaemonSet or Deployment the operator runs for the agent. */
export const agentWorkload = (flavor: Flavor, role: Role): string => FACTS[flavor].workload(FACTS[flavor].names[role]);

/**
 * The pod template of one revision of an agent, and the prefix its pod names take:
 * DaemonSet pods `<workload>-xxxxx`, Deployment pods `<workload>-<template hash>-xxxxx`.
 */
export function agentTemplate(flavor: Flavor, role: Role, revisionHash: string, generation = 1): { template: PodTemplate; prefix: string } {
  const f = FACTS[flavor];
  const workload = agentWorkload(flavor, role);
  const info = agentInfo(flavor, role);
  const labels: Record<string, string> = { ...info.selector, "app.kubernetes.io/name": workload };
  if (role === "per-node") {
    labels["controller-revision-hash"] = revisionHash;
    labels["pod-template-generation"] = String(generation);
  } else {
    labels["pod-template-hash"] = revisionHash;
  }
  const owner = role === "per-node" ? ownerReferences("DaemonSet", f.namespace, workload) : ownerReferences("ReplicaSet", f.namespace, `${workload}-${revisionHash}`);
  return {
    template: podTemplate({ namespace: f.namespace, labels, ownerReferences: owner, containers: [f.container] }),
    prefix: role === "per-node" ? workload : `${workload}-${revisionHash}`,
  };
}

/**
 * The agent's own workload object as its operator creates it: the per-node agent's DaemonSet (rolling one node at a time,
 * no surge) or the cluster-scraper's Deployment of `replicas`, at generation `generation`, selecting the agent's pods. Its
 * uid is the one the pods' owner references name. The status is the controller's (workload-status.ts), left empty here.
 */
export function agentWorkloadObject(flavor: Flavor, role: Role, opts: { generation: number; replicas: number; createdMs: number }): KubeObject {
  const f = FACTS[flavor];
  const name = agentWorkload(flavor, role);
  const info = agentInfo(flavor, role);
  const kind = KIND[role];
  const labels = { ...info.selector, "app.kubernetes.io/name": name };
  const template = { metadata: { labels }, spec: { containers: [f.container], ...(role === "per-node" ? { nodeSelector: { "kubernetes.io/os": "linux" } } : {}) } };
  return {
    apiVersion: "apps/v1",
    kind,
    metadata: { name, namespace: f.namespace, uid: fakeUid(kind, f.namespace, name), labels: { ...info.selector }, generation: opts.generation, creationTimestamp: iso(opts.createdMs) },
    spec:
      kind === "DaemonSet"
        ? { selector: { matchLabels: info.selector }, template, updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 }
        : { replicas: opts.replicas, selector: { matchLabels: info.selector }, template, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } }, revisionHistoryLimit: 10 },
    status: {},
  };
}
