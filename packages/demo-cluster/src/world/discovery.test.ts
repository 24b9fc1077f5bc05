import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Role, Target } from "@allocation-lens/allocation/model";
import { discoverTargets, resolveMonitorRef, scrapeConfigsFor, targetKey, type DiscoveryInput } from "./discovery";
import { CLUSTER_SCRAPER, DEMO_SECRET_MARKER, SCRAPER_ANNOTATION, generateWorld, type World } from "./generate";
import { nodeInternalIP, type KubeObject } from "./kube";
import { makeMonitor } from "./monitors";
import { JOB_NAME, keepFor, targetNode } from "../../test/fixtures/world";

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const w = generateWorld({ nodes: 12, seed: 5, flavor: "cloudwatch", nowMs: NOW });
const input = (world: World, role: Role): DiscoveryInput => ({ ...world, staticJobs: world.staticJobs[role], keep: keepFor(role) });
const flat = (jobs: Map<string, Target[]>) => [...jobs.values()].flat();

describe("discoverTargets", () => {
  const perNode = discoverTargets(input(w, "per-node"));
  const cluster = discoverTargets(input(w, "cluster-scraper"));

  it("splits monitors by the routing annotation and keeps each TA's static jobs", () => {
    expect([...cluster.keys()]).toEqual([
      "kubernetes-apiservers",
      "serviceMonitor/kube-system/coredns/0",
      "serviceMonitor/monitoring/kube-state-metrics/0",
      "serviceMonitor/monitoring/kube-state-metrics/1",
    ]);
    expect(perNode.has("kubelet") && perNode.has("blackbox-external") && perNode.has("podMonitor/monitoring/node-exporter/0")).toBe(true);
    expect([...perNode.keys()].filter((j) => cluster.has(j))).toEqual([]);
    const all = discoverTargets({ ...w, staticJobs: [], keep: () => true });
    const monitorJobs = (m: Map<string, Target[]>) => [...m.keys()].filter((j) => j.includes("/"));
    expect([...monitorJobs(perNode), ...monitorJobs(cluster)].sort()).toEqual(monitorJobs(all));
    console.log(`12 nodes: per-node ${perNode.size} jobs / ${flat(perNode).length} targets; cluster-scraper ${cluster.size} jobs / ${flat(cluster).length} targets; ${w.pods.length} pods`);
  });

  it("names jobs as a TA does and serves only discovered labels", () => {
    for (const [job, targets] of [...perNode, ...cluster]) {
      expect(job).toMatch(JOB_NAME);
      for (const t of targets) {
        expect(t.job).toBe(job);
        expect(t.address).toBe(t.labels.__address__);
        // the node role also sets `instance` (the node's name)
        for (const k of Object.keys(t.labels)) expect(k === "__address__" || k.startsWith("__meta_") || (job === "kubelet" && k === "instance")).toBe(true);
        for (const k of ["job", "__scheme__", "__metrics_path__", "__scrape_interval__"]) expect(t.labels).not.toHaveProperty(k);
      }
    }
  });

  it("keys targets stably and uniquely, as targetKey does", () => {
    const targets = [...flat(perNode), ...flat(cluster)];
    expect(new Set(targets.map((t) => t.key)).size).toBe(targets.length);
    for (const t of targets) expect(t.key).toBe(targetKey(t.job, t.labels));
    expect(flat(discoverTargets(input(w, "per-node"))).map((t) => t.key)).toEqual(flat(perNode).map((t) => t.key));
  });

  it("has one node-exporter and one kubelet target per node, on that node", () => {
    const ip = new Map(w.nodes.map((n) => [n.metadata.name, nodeInternalIP(n)]));
    const exporters = perNode.get("podMonitor/monitoring/node-exporter/0")!;
    expect(exporters.map((t) => t.labels.__meta_kubernetes_pod_node_name).sort()).toEqual([...ip.keys()].sort());
    for (const t of exporters) expect(t.address).toBe(`${ip.get(t.labels.__meta_kubernetes_pod_node_name)}:9100`);
    const kubelet = perNode.get("kubelet")!;
    expect(kubelet.map((t) => t.labels.__meta_kubernetes_node_name).sort()).toEqual([...ip.keys()].sort());
    for (const t of kubelet) {
      expect(t.address).toBe(`${ip.get(t.labels.__meta_kubernetes_node_name)}:10250`);
      expect(t.labels.__meta_kubernetes_node_label_topology_kubernetes_io_zone).toMatch(/^us-east-1[abc]$/);
    }
  });

  it("gives a kubelet target the node role's labels: node metadata, every address type, the kubelet's port", () => {
    const node = w.nodes[0];
    const name = node.metadata.name;
    const t = perNode.get("kubelet")!.find((k) => k.labels.__meta_kubernetes_node_name === name)!;
    const ip = nodeInternalIP(node);
    expect(t.labels).toMatchObject({
      __address__: `${ip}:10250`,
      instance: name,
      __meta_kubernetes_node_provider_id: node.spec!.providerID,
      __meta_kubernetes_node_address_InternalIP: ip,
      __meta_kubernetes_node_address_InternalDNS: name,
      __meta_kubernetes_node_address_Hostname: name,
      __meta_kubernetes_node_label_kubernetes_io_hostname: name,
      __meta_kubernetes_node_labelpresent_kubernetes_io_hostname: "true",
      __meta_kubernetes_node_annotation_node_alpha_kubernetes_io_ttl: "0",
      __meta_kubernetes_node_annotationpresent_node_alpha_kubernetes_io_ttl: "true",
    });
    const labels = Object.keys(node.metadata.labels!).length;
    const annotations = Object.keys(node.metadata.annotations!).length;
    expect(Object.keys(t.labels)).toHaveLength(2 + 2 * labels + 2 * annotations + 2 + 3);
  });

  it("gives every monitor target a node and leaves static external targets node-less", () => {
    for (const t of [...flat(perNode), ...flat(cluster)]) {
      const nodeless = t.job === "blackbox-external" || t.job === "kubernetes-apiservers";
      expect(targetNode(t.labels) === "").toBe(nodeless);
    }
    expect(perNode.get("blackbox-external")).toHaveLength(2);
    expect(cluster.get("kubernetes-apiservers")).toHaveLength(2);
    const sm = flat(perNode).find((t) => t.job.startsWith("serviceMonitor/"))!;
    expect(sm.labels).toMatchObject({ __meta_kubernetes_endpointslice_address_target_kind: "Pod", __meta_kubernetes_pod_ready: "true" });
    expect(sm.labels.__meta_kubernetes_endpointslice_address_target_name).toBe(sm.labels.__meta_kubernetes_pod_name);
    expect(sm.labels.__meta_kubernetes_pod_label_app_kubernetes_io_name).toBeTruthy();
  });

  it("labels targets as Prometheus's endpointslice and pod roles do: the slice's and Service's labels, the pod's uid, labelpresent, container", () => {
    const byJob = (job: string) => perNode.get(job) ?? cluster.get(job)!;
    const ksm = byJob("serviceMonitor/monitoring/kube-state-metrics/0")[0];
    const pod = w.pods.find((p) => p.metadata.name === ksm.labels.__meta_kubernetes_pod_name)!;
    const node = w.nodes.find((n) => n.metadata.name === pod.spec?.nodeName)!;
    expect(ksm.labels).toMatchObject({
      __meta_kubernetes_endpointslice_label_kubernetes_io_service_name: "kube-state-metrics",
      __meta_kubernetes_endpointslice_labelpresent_endpointslice_kubernetes_io_managed_by: "true",
      __meta_kubernetes_service_label_app_kubernetes_io_name: "kube-state-metrics",
      __meta_kubernetes_service_labelpresent_app_kubernetes_io_part_of: "true",
      __meta_kubernetes_endpointslice_endpoint_conditions_serving: "true",
      __meta_kubernetes_endpointslice_endpoint_conditions_terminating: "false",
      __meta_kubernetes_endpointslice_endpoint_node_name: node.metadata.name,
      __meta_kubernetes_endpointslice_endpoint_zone: node.metadata.labels?.["topology.kubernetes.io/zone"],
      __meta_kubernetes_pod_uid: pod.metadata.uid,
      __meta_kubernetes_pod_labelpresent_pod_template_hash: "true",
      __meta_kubernetes_pod_controller_kind: "ReplicaSet",
      __meta_kubernetes_pod_container_image: "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.16.0",
      __meta_kubernetes_pod_container_port_number: "8080",
      __meta_kubernetes_pod_container_init: "false",
    });
    const exporter = byJob("podMonitor/monitoring/node-exporter/0")[0];
    expect(exporter.labels).toMatchObject({ __meta_kubernetes_pod_controller_kind: "DaemonSet", __meta_kubernetes_pod_labelpresent_controller_revision_hash: "true" });
    expect(exporter.labels).not.toHaveProperty("__meta_kubernetes_service_name");
    // a label with an empty value is left out, and the key still equals targetKey's
    const uidless = { ...w, pods: w.pods.map((p) => ({ ...p, metadata: { ...p.metadata, uid: undefined } })), staticJobs: [], keep: () => true };
    for (const t of [...discoverTargets(uidless).values()].flat()) {
      expect(t.labels).not.toHaveProperty("__meta_kubernetes_pod_uid");
      expect(t.key).toBe(targetKey(t.job, t.labels));
    }
  });

  it("makes one job per endpoint", () => {
    expect(cluster.get("serviceMonitor/monitoring/kube-state-metrics/0")![0].address).toMatch(/:8080$/);
    expect(cluster.get("serviceMonitor/monitoring/kube-state-metrics/1")![0].address).toMatch(/:8081$/);
  });

  it("skips IP-less pods, lists terminating ones (as the real TA does) and not-ready ones as not ready", () => {
    const job = "podMonitor/monitoring/node-exporter/0";
    const pods = w.pods.map((p) => (p.metadata.name.startsWith("node-exporter-") ? structuredClone(p) : p));
    const exporters = pods.filter((p) => p.metadata.name.startsWith("node-exporter-"));
    exporters[0].metadata.deletionTimestamp = new Date(NOW).toISOString();
    delete exporters[1].status!.podIP;
    (exporters[2].status!.conditions as { type: string; status: string }[]).find((c) => c.type === "Ready")!.status = "False";
    const targets = discoverTargets({ ...input(w, "per-node"), pods }).get(job)!;
    expect(targets).toHaveLength(11);
    expect(targets.some((t) => t.labels.__meta_kubernetes_pod_name === exporters[0].metadata.name)).toBe(true);
    expect(targets.some((t) => t.labels.__meta_kubernetes_pod_name === exporters[1].metadata.name)).toBe(false);
    expect(targets.find((t) => t.labels.__meta_kubernetes_pod_name === exporters[2].metadata.name)!.labels.__meta_kubernetes_pod_ready).toBe("false");
  });

  it("honours namespaceSelector and omits jobs without targets", () => {
    const any = makeMonitor({ kind: "ServiceMonitor", namespace: "monitoring", name: "everything-http", matchLabels: {}, endpoints: [{ port: "http-metrics" }], namespaces: "any" });
    const none = makeMonitor({ kind: "PodMonitor", namespace: "shop", name: "nothing", matchLabels: { app: "absent" }, endpoints: [{ port: "metrics" }] });
    const cross = makeMonitor({ kind: "ServiceMonitor", namespace: "monitoring", name: "dns", matchLabels: { "k8s-app": "kube-dns" }, endpoints: [{ port: "metrics" }], namespaces: ["kube-system"] });
    const extra: DiscoveryInput = { ...w, serviceMonitors: [any, cross], podMonitors: [none], staticJobs: [], keep: () => true };
    const jobs = discoverTargets(extra);
    const httpPods = w.pods.filter((p) => JSON.stringify(p.spec?.containers).includes('"http-metrics"'));
    expect(jobs.get("serviceMonitor/monitoring/everything-http/0")).toHaveLength(httpPods.length);
    expect(jobs.get("serviceMonitor/monitoring/dns/0")).toHaveLength(2);
    expect(jobs.has("podMonitor/shop/nothing/0")).toBe(false);
    expect(Object.keys(scrapeConfigsFor(extra))).toContain("podMonitor/shop/nothing/0");
  });

  it("routes every monitor to exactly one TA, whatever the annotations (property)", () => {
    const monitors = [...w.serviceMonitors, ...w.podMonitors];
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: monitors.length, maxLength: monitors.length }), (flags) => {
        const annotated = monitors.map((m, i): KubeObject => ({ ...m, metadata: { ...m.metadata, annotations: flags[i] ? { [SCRAPER_ANNOTATION]: CLUSTER_SCRAPER } : {} } }));
        const world = { ...w, serviceMonitors: annotated.filter((m) => m.kind === "ServiceMonitor"), podMonitors: annotated.filter((m) => m.kind === "PodMonitor") };
        const a = Object.keys(scrapeConfigsFor(input(world, "per-node")));
        const b = Object.keys(scrapeConfigsFor(input(world, "cluster-scraper")));
        expect(a.filter((j) => b.includes(j))).toEqual([]);
        expect(a.length + b.length).toBe(Object.keys(scrapeConfigsFor({ ...world, staticJobs: [...w.staticJobs["per-node"], ...w.staticJobs["cluster-scraper"]], keep: () => true })).length);
      }),
      { numRuns: 25 },
    );
  });
});

describe("scrapeConfigsFor", () => {
  it("lists every kept job, sorted, each with a marked credential and its own job_name", () => {
    for (const role of ["per-node", "cluster-scraper"] as const) {
      const configs = scrapeConfigsFor(input(w, role));
      const jobs = Object.keys(configs);
      expect(jobs).toEqual([...jobs].sort());
      expect(jobs).toEqual(expect.arrayContaining([...discoverTargets(input(w, role)).keys()]));
      for (const [job, config] of Object.entries(configs)) {
        expect(job).toMatch(JOB_NAME);
        expect(config.job_name).toBe(job);
        expect(JSON.stringify(config)).toContain(DEMO_SECRET_MARKER);
      }
    }
  });

  it("hands out copies", () => {
    const a = scrapeConfigsFor(input(w, "per-node"));
    (a.kubelet as Record<string, unknown>).scheme = "gopher";
    expect(scrapeConfigsFor(input(w, "per-node")).kubelet.scheme).toBe("https");
  });
});

describe("resolveMonitorRef", () => {
  it("reduces a monitor to what routing needs", () => {
    const ksm = w.serviceMonitors.find((m: KubeObject) => m.metadata.name === "kube-state-metrics")!;
    expect(resolveMonitorRef(ksm)).toEqual({
      kind: "ServiceMonitor",
      namespace: "monitoring",
      name: "kube-state-metrics",
      annotations: { [SCRAPER_ANNOTATION]: CLUSTER_SCRAPER },
      endpoints: 2,
    });
    expect(resolveMonitorRef(w.podMonitors[0])).toMatchObject({ kind: "PodMonitor", annotations: {}, endpoints: 1 });
  });
});
