/**
 * The Kubernetes objects an operator creates for each Target Allocator, as a user of a real cluster finds them in the
 * agents' namespace: the TA's ConfigMap (`targetallocator.yaml`), its Service, its Deployment and its one pod, and for the
 * cloudwatch flavor the client-certificate Secret the agents present to it. Pure functions of the flavor, the role, the
 * world's nodes and static jobs: the names follow each operator's naming (upstream `<name>-targetallocator`, cloudwatch
 * `<name>-target-allocator` with a `-service` Service).
 */
import YAML from "yaml";
import type { Flavor, Role } from "@allocation-lens/allocation/model";
import { agentInfo, agentNamespace } from "./agents";
import { K8S_ALPHABET } from "./constants";
import { hashHex } from "./hash";
import type { KubeObject } from "./kube";
import { iso } from "./naming";
import { makePod, ownerReferences, podTemplate } from "./objects";
import type { StaticJob } from "./static-jobs";

/** The port every TA Service exposes (both operators). */
export const TA_SERVICE_PORT = 80;

export interface TaNames {
  namespace: string;
  /** the agent's custom resource name */
  agent: string;
  /** ConfigMap and Deployment name, and the pods' name prefix (before the template hash) */
  base: string;
  service: string;
  servicePort: number;
  /** the TA container's port: 8080 (http, upstream) or 8443 (https, cloudwatch) */
  containerPort: number;
  containerPortName: string;
  /** the TA pods' labels (also the Service's selector and the Deployment's matchLabels) */
  podLabels: Record<string, string>;
}

/** The name of the Secret holding the cloudwatch agents' client certificate. */
export const CLIENT_CERT_SECRET = "amazon-cloudwatch-observability-agent-client-cert";

export function taNames(flavor: Flavor, role: Role): TaNames {
  const namespace = agentNamespace(flavor);
  const agent = agentInfo(flavor, role).name;
  if (flavor === "upstream") {
    const base = `${agent}-targetallocator`;
    return {
      namespace,
      agent,
      base,
      service: base,
      servicePort: TA_SERVICE_PORT,
      containerPort: 8080,
      containerPortName: "http",
      podLabels: {
        "app.kubernetes.io/component": "opentelemetry-targetallocator",
        "app.kubernetes.io/instance": `${namespace}.${agent}`,
        "app.kubernetes.io/managed-by": "opentelemetry-operator",
        "app.kubernetes.io/name": base,
        "app.kubernetes.io/part-of": "opentelemetry",
      },
    };
  }
  const base = `${agent}-target-allocator`;
  return {
    namespace,
    agent,
    base,
    service: `${base}-service`,
    servicePort: TA_SERVICE_PORT,
    containerPort: 8443,
    containerPortName: "https",
    podLabels: {
      "app.kubernetes.io/component": "amazon-cloudwatch-agent-target-allocator",
      "app.kubernetes.io/instance": `${namespace}.${agent}`,
      "app.kubernetes.io/managed-by": "amazon-cloudwatch-agent-operator",
      "app.kubernetes.io/name": base,
      "app.kubernetes.io/part-of": "amazon-cloudwatch-agent",
    },
  };
}

/** The DNS names of a TA Service inside the cluster: `<svc>`, `<svc>.<ns>`, `<svc>.<ns>.svc`, `<svc>.<ns>.svc.cluster.local`. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}

/** The ReplicaSet template hash of a TA's Deployment (10 hex characters, stable per flavor and role). */
export const taTemplateHash = (flavor: Flavor, role: Role): string => hashHex("ta-template", flavor, role).slice(0, 10);

const suffix = (flavor: Flavor, role: Role, generation: number): string => {
  const h = hashHex("ta-pod", flavor, role, String(generation));
  let s = "";
  for (let i = 0; i < 5; i++) s += K8S_ALPHABET[parseInt(h.slice(i * 2, i * 2 + 2), 16) % K8S_ALPHABET.length];
  return s;
};

function configText(flavor: Flavor, role: Role, staticJobs: readonly StaticJob[]): string {
  const selector = agentInfo(flavor, role).selector;
  const scrapeConfigs = staticJobs.map((j) => j.operatorConfig());
  const doc: Record<string, unknown> =
    flavor === "upstream"
      ? {
          allocation_strategy: "per-node",
          allocation_fallback_strategy: "consistent-hashing",
          collector_selector: { matchlabels: selector, matchexpressions: [] },
          collector_namespace: agentNamespace(flavor),
          filter_strategy: "relabel-config",
          // as the operator writes it: empty monitor selectors select every monitor (a missing one selects none)
          prometheus_cr: { enabled: true, scrape_interval: "30s", service_monitor_selector: {}, pod_monitor_selector: {} },
          config: { scrape_configs: scrapeConfigs },
        }
      : {
          allocation_strategy: role === "per-node" ? "per-node" : "consistent-hashing",
          ...(role === "per-node" ? { allocation_fallback_strategy: "consistent-hashing" } : {}),
          label_selector: selector,
          ...(role === "cluster-scraper" ? { scraper_role: "cluster-scraper" } : {}),
          prometheus_cr: { enabled: true },
          config: { scrape_configs: scrapeConfigs },
        };
  return YAML.stringify(doc);
}

const IMAGES: Record<Flavor, string> = {
  upstream: "ghcr.io/open-telemetry/opentelemetry-operator/target-allocator:0.128.0",
  cloudwatch: "public.ecr.aws/cloudwatch-agent/cloudwatch-agent-target-allocator:1.300052.0",
};

export interface TaWorld {
  nodes: readonly KubeObject[];
  staticJobs: Record<Role, readonly StaticJob[]>;
}

/** The ConfigMap, Service and Deployment of one TA (created once; the pod is `taPod`). */
export function taObjects(flavor: Flavor, role: Role, world: TaWorld, createdMs: number): { configMap: KubeObject; service: KubeObject; deployment: KubeObject } {
  const n = taNames(flavor, role);
  const created = iso(createdMs);
  const labels = { ...n.podLabels };
  const container = {
    name: "ta-container",
    image: IMAGES[flavor],
    ports: [{ name: n.containerPortName, containerPort: n.containerPort, protocol: "TCP" }],
  };
  const configMap: KubeObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: n.base, namespace: n.namespace, labels, creationTimestamp: created },
    data: { "targetallocator.yaml": configText(flavor, role, world.staticJobs[role]) },
  };
  const clusterIP = `172.20.${(parseInt(hashHex("ta-svc", flavor, role).slice(0, 4), 16) % 250) + 1}.${(parseInt(hashHex("ta-svc", flavor, role).slice(4, 8), 16) % 250) + 2}`;
  const service: KubeObject = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: n.service, namespace: n.namespace, labels, creationTimestamp: created },
    spec: {
      type: "ClusterIP",
      clusterIP,
      clusterIPs: [clusterIP],
      selector: n.podLabels,
      ports: [{ name: "targetallocation", port: n.servicePort, targetPort: flavor === "upstream" ? n.containerPortName : n.containerPort, protocol: "TCP" }],
      sessionAffinity: "None",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
    },
    status: { loadBalancer: {} },
  };
  const deployment: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: n.base, namespace: n.namespace, labels, generation: 1, creationTimestamp: created },
    spec: {
      replicas: 1,
      selector: { matchLabels: n.podLabels },
      template: { metadata: { labels: n.podLabels }, spec: { containers: [container] } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
    },
    status: {
      observedGeneration: 1,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      conditions: [
        { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability.", lastTransitionTime: created },
        { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: `ReplicaSet "${n.base}-${taTemplateHash(flavor, role)}" has successfully progressed.`, lastTransitionTime: created },
      ],
    },
  };
  return { configMap, service, deployment };
}

/**
 * The TA's pod of `generation` (0 = the first; a replacement takes the next): `<base>-<10 hex>-<5 chars>`, Running and
 * Ready on one of `nodes` (picked by the generation), owned by the Deployment's ReplicaSet.
 */
export function taPod(flavor: Flavor, role: Role, generation: number, nodes: readonly KubeObject[], startedMs: number): KubeObject {
  const n = taNames(flavor, role);
  const hash = taTemplateHash(flavor, role);
  const node = nodes[parseInt(hashHex("ta-node", flavor, role, String(generation)).slice(0, 6), 16) % Math.max(1, nodes.length)];
  const hostIP = ((node?.status?.addresses as { type: string; address: string }[] | undefined) ?? []).find((a) => a.type === "InternalIP")?.address ?? "10.0.0.10";
  const template = podTemplate({
    namespace: n.namespace,
    labels: { ...n.podLabels, "pod-template-hash": hash },
    ownerReferences: ownerReferences("ReplicaSet", n.namespace, `${n.base}-${hash}`),
    containers: [{ name: "ta-container", image: IMAGES[flavor], ports: [{ name: n.containerPortName, containerPort: n.containerPort, protocol: "TCP" }] }],
  });
  const podIP = `100.127.${role === "per-node" ? 1 : 2}.${(generation % 250) + 2}`;
  return makePod(template, `${n.base}-${hash}-${suffix(flavor, role, generation)}`, { nodeName: node?.metadata.name ?? "", hostIP, podIP }, startedMs);
}

/** True for a TA pod (of either flavor): the agents' selectors never match it. */
export const isTaPod = (o: KubeObject): boolean => /-target-?allocator$/.test(o.metadata.labels?.["app.kubernetes.io/component"] ?? "");

/** The cloudwatch agents' client certificate as the operator stores it (`kubernetes.io/tls`, base64 PEM). */
export function clientCertSecret(pem: { caPem: string; certPem: string; keyPem: string }, createdMs: number): KubeObject {
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: CLIENT_CERT_SECRET,
      namespace: agentNamespace("cloudwatch"),
      labels: { "app.kubernetes.io/managed-by": "amazon-cloudwatch-agent-operator" },
      creationTimestamp: iso(createdMs),
    },
    type: "kubernetes.io/tls",
    data: { "ca.crt": b64(pem.caPem), "tls.crt": b64(pem.certPem), "tls.key": b64(pem.keyPem) },
  };
}
