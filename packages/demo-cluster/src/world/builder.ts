/**
 * The deterministic world generator. One WorldBuilder holds the seeded generator and every name and address given so far,
 * so the fault engine can keep growing the same world (new nodes, rollout pods) without collisions.
 */
import type { Flavor, Role } from "@allocation-lens/allocation/model";
import { agentInfo, agentNamespace, agentTemplate, agentWorkloadObject, type AgentInfo } from "./agents";
import { DEFAULT_NODES, K8S_ALPHABET, MAX_NODES, ZONES } from "./constants";
import type { KubeObject } from "./kube";
import { makeMonitor } from "./monitors";
import { NameRegistry, NodeAddresses, PodAddresses, ec2NodeName } from "./naming";
import { makeNode, makePod, ownerReferences, podTemplate, type PodTemplate } from "./objects";
import { Rng } from "./rng";
import { monitorService, tokenSecret } from "./services";
import { staticJobsFor, type StaticJob } from "./static-jobs";
import { appWorkloads, systemWorkloads, type WorkloadPlan } from "./workloads";

/** The cluster-scraper agent's Deployment runs two replicas. */
const CLUSTER_SCRAPER_REPLICAS = 2;

export interface World {
  /** the agents' namespace: "amazon-cloudwatch" (cloudwatch) or "opentelemetry" (upstream) */
  namespace: string;
  agents: Record<Role, AgentInfo>;
  zones: string[];
  nodes: KubeObject[];
  pods: KubeObject[];
  serviceMonitors: KubeObject[];
  podMonitors: KubeObject[];
  /** the Service each ServiceMonitor selects (named like it); their EndpointSlices are the cluster's to keep */
  services: KubeObject[];
  /** the bearer-token Secrets the monitors reference */
  secrets: KubeObject[];
  /** static scrape_configs each TA keeps regardless of routing */
  staticJobs: Record<Role, StaticJob[]>;
}

export interface WorldOptions {
  /** default 12, at most 5,000 */
  nodes?: number;
  seed: number;
  flavor: Flavor;
  nowMs: number;
  /** the key of the routing annotation on the monitors routed to the cluster-scraper (default: the merged operator's) */
  annotationKey?: string;
}

/** A node the world grew, with the DaemonSet pods that land on it (per-node agent, node-exporter). */
export interface AddedNode {
  node: KubeObject;
  pods: KubeObject[];
}

const DAY = 86_400_000;
const INSTANCE_TYPES = ["m5.xlarge", "m5.2xlarge", "m6i.2xlarge", "c5.2xlarge", "r5.xlarge"];
const KUBELET_VERSIONS = ["v1.32.3-eks-473151a", "v1.32.9-eks-113cf36"];

interface NodeRecord {
  ip: string;
  createdMs: number;
}

export class WorldBuilder {
  readonly flavor: Flavor;
  readonly annotationKey: string | undefined;
  readonly nodeCount: number;
  private readonly nowMs: number;
  private readonly rng: Rng;
  private readonly names: NameRegistry;
  private readonly nodeIps: NodeAddresses;
  private readonly podIps: PodAddresses;
  private readonly nodes = new Map<string, NodeRecord>();
  private readonly revisions: Record<Role, string[]> = { "per-node": [], "cluster-scraper": [] };
  private readonly templates = new Map<string, { template: PodTemplate; prefix: string }>();
  private zoneCursor = 0;
  private generated = false;

  constructor(opts: WorldOptions) {
    const nodes = opts.nodes ?? DEFAULT_NODES;
    if (!Number.isInteger(nodes) || nodes < 1 || nodes > MAX_NODES) throw new RangeError(`nodes must be 1..${MAX_NODES}, got ${nodes}`);
    this.flavor = opts.flavor;
    this.annotationKey = opts.annotationKey;
    this.nodeCount = nodes;
    this.nowMs = opts.nowMs;
    this.rng = new Rng(opts.seed);
    this.names = new NameRegistry(this.rng.fork(1));
    this.nodeIps = new NodeAddresses(this.rng.fork(2));
    this.podIps = new PodAddresses(this.rng.fork(3));
  }

  /** The whole initial world. Call once per builder. */
  generate(): World {
    if (this.generated) throw new Error("WorldBuilder.generate() was already called");
    this.generated = true;
    const nodes: KubeObject[] = [];
    for (let i = 0; i < this.nodeCount; i++) nodes.push(this.newNode(this.nowMs - this.rng.between(2 * DAY, 60 * DAY)));
    const nodeNames = nodes.map((n) => n.metadata.name);
    const pods: KubeObject[] = [];
    for (const name of nodeNames) pods.push(this.agentPod("per-node", name, this.startAfter(name)));
    for (let i = 0; i < CLUSTER_SCRAPER_REPLICAS; i++) pods.push(this.agentPod("cluster-scraper", this.rng.pick(nodeNames), this.nowMs - this.rng.int(3 * DAY)));
    const plans = [...systemWorkloads(this.annotationKey), ...appWorkloads(this.rng.fork(4), this.nodeCount)];
    for (const plan of plans) {
      if (plan.kind === "DaemonSet") {
        for (const name of nodeNames) pods.push(this.workloadPod(plan, name, this.startAfter(name)));
      } else {
        for (let r = 0; r < plan.replicas; r++) pods.push(this.workloadPod(plan, this.rng.pick(nodeNames), this.nowMs - this.rng.int(7 * DAY)));
      }
    }
    const monitors = plans.map((p) => makeMonitor(p.monitor));
    const createdMs = this.nowMs - 30 * DAY;
    const services = plans.flatMap((p) => monitorService(p.monitor, p.containers, createdMs) ?? []);
    const secrets = plans.flatMap((p) => tokenSecret(p.monitor, createdMs) ?? []);
    return {
      namespace: agentNamespace(this.flavor),
      agents: { "per-node": agentInfo(this.flavor, "per-node"), "cluster-scraper": agentInfo(this.flavor, "cluster-scraper") },
      zones: [...ZONES],
      nodes,
      pods,
      serviceMonitors: monitors.filter((m) => m.kind === "ServiceMonitor"),
      podMonitors: monitors.filter((m) => m.kind === "PodMonitor"),
      services,
      secrets,
      staticJobs: { "per-node": staticJobsFor("per-node"), "cluster-scraper": staticJobsFor("cluster-scraper") },
    };
  }

  /**
   * A node that joined just before `nowMs` (in `zone`, else the next zone round-robin), Ready, with its per-node agent and
   * node-exporter pods already Running and Ready. App pods stay where they are, as in a real scale-up.
   */
  nodeAdded(nowMs: number, zone?: string): AddedNode {
    if (zone !== undefined && !ZONES.includes(zone)) throw new RangeError(`unknown zone ${zone}; zones: ${ZONES.join(", ")}`);
    const node = this.newNode(nowMs - 60_000, zone);
    const name = node.metadata.name;
    const exporter = systemWorkloads(this.annotationKey).find((p) => p.name === "node-exporter")!;
    return { node, pods: [this.agentPod("per-node", name, nowMs - 15_000), this.workloadPod(exporter, name, nowMs - 15_000)] };
  }

  /**
   * A new agent pod on `nodeName` (a node of this builder), Running and Ready unless `ready` is false. `revision` 0 is the
   * world's current template; a higher one is a later template (different controller-revision-hash / pod-template-hash),
   * as a rollout creates: the surge pod gets a fresh name.
   */
  agentPod(role: Role, nodeName: string, startedMs: number, opts: { revision?: number; ready?: boolean } = {}): KubeObject {
    const node = this.nodes.get(nodeName);
    if (!node) throw new RangeError(`unknown node ${nodeName}`);
    const revision = opts.revision ?? 0;
    const hashes = this.revisions[role];
    while (hashes.length <= revision) hashes.push(this.rng.chars(K8S_ALPHABET, 10));
    const key = `${role}/${revision}`;
    let t = this.templates.get(key);
    if (!t) this.templates.set(key, (t = agentTemplate(this.flavor, role, hashes[revision], revision + 1)));
    const placement = { nodeName, hostIP: node.ip, podIP: this.podIps.allocate() };
    return makePod(t.template, this.names.suffixed(t.prefix), placement, startedMs, opts.ready ?? true);
  }

  /**
   * The agents' own workloads (the per-node DaemonSet, the cluster-scraper Deployment of the pods generate() made) at the
   * world's current template (generation 1), status empty: their controller fills it.
   */
  agentWorkloads(): KubeObject[] {
    const createdMs = this.nowMs - 30 * DAY;
    return (["per-node", "cluster-scraper"] as const).map((role) => agentWorkloadObject(this.flavor, role, { generation: 1, replicas: CLUSTER_SCRAPER_REPLICAS, createdMs }));
  }

  /** The names of the nodes this builder made, in creation order (removed ones included). */
  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  private newNode(createdMs: number, zone?: string): KubeObject {
    const zoneIndex = zone !== undefined ? ZONES.indexOf(zone) : this.zoneCursor++ % ZONES.length;
    const ip = this.nodeIps.allocate(zoneIndex);
    const name = ec2NodeName(ip);
    this.nodes.set(name, { ip, createdMs });
    return makeNode({
      name,
      ip,
      zone: ZONES[zoneIndex],
      instanceType: this.rng.pick(INSTANCE_TYPES),
      kubeletVersion: this.rng.pick(KUBELET_VERSIONS),
      instanceId: `i-0${this.rng.chars("0123456789abcdef", 16)}`,
      createdMs,
    });
  }

  /** A start time for a DaemonSet pod: shortly after its node came up, or within the last two weeks. */
  private startAfter(nodeName: string): number {
    const created = this.nodes.get(nodeName)!.createdMs;
    return Math.max(created + 45_000, this.nowMs - this.rng.int(14 * DAY));
  }

  private workloadPod(plan: WorkloadPlan, nodeName: string, startedMs: number): KubeObject {
    const key = `${plan.namespace}/${plan.name}`;
    let t = this.templates.get(key);
    if (!t) {
      const hash = this.names.templateHash();
      const ds = plan.kind === "DaemonSet";
      const labels = { ...plan.labels, ...(ds ? { "controller-revision-hash": hash } : { "pod-template-hash": hash }) };
      const owner = ds ? ownerReferences("DaemonSet", plan.namespace, plan.name) : ownerReferences("ReplicaSet", plan.namespace, `${plan.name}-${hash}`);
      const template = podTemplate({ namespace: plan.namespace, labels, ownerReferences: owner, containers: plan.containers, hostNetwork: plan.hostNetwork });
      this.templates.set(key, (t = { template, prefix: ds ? plan.name : `${plan.name}-${hash}` }));
    }
    const node = this.nodes.get(nodeName)!;
    const podIP = plan.hostNetwork ? node.ip : this.podIps.allocate();
    return makePod(t.template, this.names.suffixed(t.prefix), { nodeName, hostIP: node.ip, podIP }, startedMs);
  }
}
