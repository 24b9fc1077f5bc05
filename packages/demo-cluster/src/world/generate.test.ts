import { describe, expect, it } from "vitest";
import { FLAVORS, ROLES } from "@allocation-lens/allocation/model";
import { K8S_ALPHABET } from "./constants";
import { CLUSTER_SCRAPER, DEMO_SECRET_MARKER, SCRAPER_ANNOTATION, WorldBuilder, ZONES, generateWorld, type World } from "./generate";
import { conditionTrue, nodeInternalIP, podIP, podNodeName, type KubeObject } from "./kube";

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const S = `[${K8S_ALPHABET}]`;
const world = (flavor: (typeof FLAVORS)[number] = "cloudwatch", seed = 42, nodes = 12) => generateWorld({ nodes, seed, flavor, nowMs: NOW });

const matches = (pod: KubeObject, selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => pod.metadata.labels?.[k] === v);
const agentPods = (w: World, role: (typeof ROLES)[number]) =>
  w.pods.filter((p) => p.metadata.namespace === w.namespace && matches(p, w.agents[role].selector));

describe("generateWorld", () => {
  it("is a pure function of its options", () => {
    expect(JSON.stringify(world())).toBe(JSON.stringify(world()));
    const names = (w: World) => w.pods.map((p) => p.metadata.name).join();
    expect(names(world("cloudwatch", 43))).not.toBe(names(world()));
    expect(world("cloudwatch", 43).nodes.map((n) => n.metadata.name)).not.toEqual(world().nodes.map((n) => n.metadata.name));
  });

  it("rejects node counts outside 1..5000", () => {
    expect(() => world("cloudwatch", 1, 0)).toThrow(RangeError);
    expect(() => world("cloudwatch", 1, 5001)).toThrow(RangeError);
    expect(generateWorld({ seed: 1, flavor: "upstream", nowMs: NOW }).nodes).toHaveLength(12);
  });

  it("has 3 zones and Ready EC2-named nodes spread over them", () => {
    const w = world();
    expect(w.zones).toEqual(["us-east-1a", "us-east-1b", "us-east-1c"]);
    for (const n of w.nodes) {
      const ip = nodeInternalIP(n);
      expect(n.metadata.name).toBe(`ip-${ip.replaceAll(".", "-")}.ec2.internal`);
      expect(n.metadata.labels?.["kubernetes.io/hostname"]).toBe(n.metadata.name);
      expect(ZONES).toContain(n.metadata.labels?.["topology.kubernetes.io/zone"]);
      expect(n.metadata.labels?.["node.kubernetes.io/instance-type"]).toBeTruthy();
      expect(conditionTrue(n, "Ready")).toBe(true);
      expect((n.status?.nodeInfo as { kubeletVersion: string }).kubeletVersion).toMatch(/^v1\.32\.\d+/);
    }
    for (const z of ZONES) expect(w.nodes.filter((n) => n.metadata.labels?.["topology.kubernetes.io/zone"] === z)).toHaveLength(4);
  });

  it.each(FLAVORS)("runs one Ready per-node agent pod per node and 2 cluster-scraper pods (%s)", (flavor) => {
    const w = world(flavor);
    const prefix = flavor === "cloudwatch" ? "cloudwatch-agent" : "otel-agent-collector";
    const scraper = flavor === "cloudwatch" ? "cloudwatch-agent-cluster-scraper" : "otel-cluster-scraper-collector";
    expect(w.namespace).toBe(flavor === "cloudwatch" ? "amazon-cloudwatch" : "opentelemetry");
    expect(w.agents["per-node"].kind).toBe("DaemonSet");
    expect(w.agents["cluster-scraper"].kind).toBe("Deployment");
    expect(w.agents["per-node"].selector["app.kubernetes.io/instance"]).toBe(`${w.namespace}.${w.agents["per-node"].name}`);
    expect(w.agents["cluster-scraper"].selector["app.kubernetes.io/instance"]).not.toBe(w.agents["per-node"].selector["app.kubernetes.io/instance"]);
    const perNode = agentPods(w, "per-node");
    expect(perNode).toHaveLength(12);
    expect(new Set(perNode.map(podNodeName))).toEqual(new Set(w.nodes.map((n) => n.metadata.name)));
    for (const p of perNode) {
      expect(p.metadata.name).toMatch(new RegExp(`^${prefix}-${S}{5}$`));
      expect((p.metadata.ownerReferences as { kind: string }[])[0].kind).toBe("DaemonSet");
    }
    const cluster = agentPods(w, "cluster-scraper");
    expect(cluster).toHaveLength(2);
    for (const p of cluster) {
      expect(p.metadata.name).toMatch(new RegExp(`^${scraper}-${S}{10}-${S}{5}$`));
      expect((p.metadata.ownerReferences as { kind: string }[])[0].kind).toBe("ReplicaSet");
    }
    for (const p of [...perNode, ...cluster]) {
      expect(p.status?.phase).toBe("Running");
      expect(conditionTrue(p, "Ready")).toBe(true);
      const conditions = p.status?.conditions as { type: string; lastTransitionTime: string }[];
      expect(conditions.map((c) => c.type)).toEqual(["PodScheduled", "Initialized", "ContainersReady", "Ready"]);
      for (const c of conditions) expect(Date.parse(c.lastTransitionTime)).toBeLessThanOrEqual(NOW);
      expect(p.status?.startTime).toBeTruthy();
      expect((p.status?.containerStatuses as { restartCount: number }[])[0].restartCount).toBe(0);
      expect((p.spec?.containers as unknown[]).length).toBe(1);
    }
  });

  it("gives pods unique names and IPs, host IPs of their node, and node IPs to hostNetwork pods only", () => {
    const w = world();
    const nodeIp = new Map(w.nodes.map((n) => [n.metadata.name, nodeInternalIP(n)]));
    expect(new Set(w.pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).size).toBe(w.pods.length);
    const own = w.pods.filter((p) => !p.spec?.hostNetwork);
    expect(new Set(own.map(podIP)).size).toBe(own.length);
    for (const p of w.pods) {
      expect(p.status?.hostIP).toBe(nodeIp.get(podNodeName(p)));
      if (p.spec?.hostNetwork) expect(podIP(p)).toBe(nodeIp.get(podNodeName(p)));
      else expect(podIP(p)).toMatch(/^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.\d+\.\d+$/);
    }
    const exporters = w.pods.filter((p) => p.metadata.namespace === "monitoring" && p.metadata.name.startsWith("node-exporter-"));
    expect(new Set(exporters.map(podNodeName)).size).toBe(12);
  });

  it("declares the monitors: node-exporter, two annotated cluster monitors, about 10 app monitors", () => {
    const w = world();
    const all = [...w.serviceMonitors, ...w.podMonitors];
    for (const m of all) expect(m.apiVersion).toBe("monitoring.coreos.com/v1");
    const annotated = all.filter((m) => m.metadata.annotations?.[SCRAPER_ANNOTATION] === CLUSTER_SCRAPER).map((m) => `${m.kind}/${m.metadata.namespace}/${m.metadata.name}`);
    expect(annotated.sort()).toEqual(["ServiceMonitor/kube-system/coredns", "ServiceMonitor/monitoring/kube-state-metrics"]);
    expect(w.podMonitors.some((m) => m.metadata.namespace === "monitoring" && m.metadata.name === "node-exporter")).toBe(true);
    const apps = all.filter((m) => !["monitoring", "kube-system"].includes(m.metadata.namespace!));
    expect(apps).toHaveLength(10);
    expect(apps.some((m) => m.kind === "PodMonitor")).toBe(true);
    expect(apps.some((m) => (m.spec?.endpoints as unknown[] | undefined)?.length === 2)).toBe(true);
    // Kubernetes objects reference Secrets by name; only the TAs' scrape configs carry (fake) secret values.
    const objects = JSON.stringify([w.nodes, w.pods, w.serviceMonitors, w.podMonitors]);
    expect(objects.includes(DEMO_SECRET_MARKER)).toBe(false);
  });

  it("has the Service every ServiceMonitor selects and the Secret every monitor's token names", () => {
    const w = world();
    for (const m of w.serviceMonitors) {
      const svc = w.services.find((s) => s.metadata.namespace === m.metadata.namespace && s.metadata.name === m.metadata.name)!;
      const match = (m.spec?.selector as { matchLabels: Record<string, string> }).matchLabels;
      expect(svc.metadata.labels).toMatchObject(match);
      expect(svc.spec?.selector).toEqual(match);
      const ports = (svc.spec?.ports as { name: string; targetPort: string }[]).map((p) => p.name);
      expect(ports).toEqual((m.spec?.endpoints as { port: string }[]).map((e) => e.port));
    }
    expect(w.services).toHaveLength(w.serviceMonitors.length);
    for (const m of [...w.serviceMonitors, ...w.podMonitors]) {
      const eps = (m.spec?.endpoints ?? m.spec?.podMetricsEndpoints) as { authorization?: { credentials: { name: string } } }[];
      const name = eps[0].authorization?.credentials.name;
      if (name) expect(w.secrets.some((s) => s.metadata.namespace === m.metadata.namespace && s.metadata.name === name && typeof (s.data as Record<string, string>).token === "string")).toBe(true);
    }
  });

  it("keeps static jobs per role", () => {
    const w = world();
    expect(w.staticJobs["per-node"].map((j) => j.name)).toEqual(["kubelet", "blackbox-external"]);
    expect(w.staticJobs["cluster-scraper"].map((j) => j.name)).toEqual(["kubernetes-apiservers"]);
  });
});

describe("WorldBuilder", () => {
  const builder = () => {
    const b = new WorldBuilder({ nodes: 12, seed: 9, flavor: "cloudwatch", nowMs: NOW });
    return { b, w: b.generate() };
  };

  it("grows the world deterministically with new, unique nodes and their DaemonSet pods", () => {
    const { b, w } = builder();
    const added = b.nodeAdded(NOW + 1000, "us-east-1b");
    expect(added.node.metadata.labels?.["topology.kubernetes.io/zone"]).toBe("us-east-1b");
    expect(w.nodes.map((n) => n.metadata.name)).not.toContain(added.node.metadata.name);
    expect(added.pods).toHaveLength(2);
    for (const p of added.pods) expect(podNodeName(p)).toBe(added.node.metadata.name);
    expect(added.pods.filter((p) => matches(p, w.agents["per-node"].selector))).toHaveLength(1);
    expect(w.pods.map((p) => p.metadata.name)).not.toContain(added.pods[0].metadata.name);
    const again = builder().b.nodeAdded(NOW + 1000, "us-east-1b");
    expect(JSON.stringify(again)).toBe(JSON.stringify(added));
    expect(() => b.nodeAdded(NOW, "eu-west-1a")).toThrow(RangeError);
    expect(b.generate.bind(b)).toThrow();
  });

  it("makes surge agent pods on a node with a fresh name and the next revision", () => {
    const { b, w } = builder();
    const node = w.nodes[3].metadata.name;
    const old = agentPods(w, "per-node").find((p) => podNodeName(p) === node)!;
    const surge = b.agentPod("per-node", node, NOW, { revision: 1, ready: false });
    expect(surge.metadata.name).not.toBe(old.metadata.name);
    expect(surge.metadata.name).toMatch(new RegExp(`^cloudwatch-agent-${S}{5}$`));
    expect(podNodeName(surge)).toBe(node);
    expect(matches(surge, w.agents["per-node"].selector)).toBe(true);
    expect(surge.metadata.labels?.["controller-revision-hash"]).not.toBe(old.metadata.labels?.["controller-revision-hash"]);
    expect(conditionTrue(surge, "Ready")).toBe(false);
    const next = b.agentPod("cluster-scraper", node, NOW, { revision: 1 });
    expect(next.metadata.labels?.["pod-template-hash"]).not.toBe(agentPods(w, "cluster-scraper")[0].metadata.labels?.["pod-template-hash"]);
    expect(() => b.agentPod("per-node", "ip-1-2-3-4.ec2.internal", NOW)).toThrow(RangeError);
  });

  it("shares frozen template parts, so editing a generated pod in place fails loudly", () => {
    const { w } = builder();
    expect(() => {
      w.pods[0].metadata.labels!.x = "y";
    }).toThrow(TypeError);
    const copy = structuredClone(w.pods[0]);
    copy.metadata.labels!.x = "y";
    expect(copy.metadata.labels!.x).toBe("y");
  });
});
