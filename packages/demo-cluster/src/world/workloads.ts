/** What runs in the demo world besides the agents: system exporters and application Deployments, each with its monitor. */
import { CLUSTER_SCRAPER, SCRAPER_ANNOTATION } from "./constants";
import type { Container, ContainerPort } from "./kube";
import type { MonitorEndpoint, MonitorSpec } from "./monitors";
import type { Rng } from "./rng";

export interface WorkloadPlan {
  namespace: string;
  name: string;
  kind: "DaemonSet" | "Deployment";
  /** Deployments only; a DaemonSet runs one pod per node */
  replicas: number;
  /** pod labels, without the template hash the builder adds */
  labels: Record<string, string>;
  containers: Container[];
  hostNetwork?: boolean;
  monitor: MonitorSpec;
}

/** App targets per node the world aims at (about 150,000 targets at 5,000 nodes with the system jobs). */
export const APP_PODS_PER_NODE = 25;

/** About 10 app monitors at 12 nodes, about 390 at 5,000. */
export const appCount = (nodes: number): number => Math.max(1, Math.round(9 + nodes * 0.0763));

const port = (name: string, containerPort: number): ContainerPort => ({ name, containerPort, protocol: "TCP" });
/** `annotationKey`: the routing annotation's key the world's monitors carry (the one the cluster's TAs read). */
export function systemWorkloads(annotationKey: string = SCRAPER_ANNOTATION): WorkloadPlan[] {
  const routed = { [annotationKey]: CLUSTER_SCRAPER };
  const nodeExporter = { "app.kubernetes.io/name": "node-exporter", "app.kubernetes.io/part-of": "monitoring" };
  const ksm = { "app.kubernetes.io/name": "kube-state-metrics", "app.kubernetes.io/part-of": "monitoring" };
  const coredns = { "k8s-app": "kube-dns", "eks.amazonaws.com/component": "coredns" };
  return [
    {
      namespace: "monitoring",
      name: "node-exporter",
      kind: "DaemonSet",
      replicas: 0,
      labels: nodeExporter,
      hostNetwork: true,
      containers: [{ name: "node-exporter", image: "quay.io/prometheus/node-exporter:v1.9.1", ports: [port("metrics", 9100)] }],
      monitor: { kind: "PodMonitor", namespace: "monitoring", name: "node-exporter", matchLabels: nodeExporter, endpoints: [{ port: "metrics", interval: "30s" }] },
    },
    {
      namespace: "monitoring",
      name: "kube-state-metrics",
      kind: "Deployment",
      replicas: 1,
      labels: ksm,
      containers: [
        {
          name: "kube-state-metrics",
          image: "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.16.0",
          ports: [port("http-metrics", 8080), port("telemetry", 8081)],
        },
      ],
      monitor: {
        kind: "ServiceMonitor",
        namespace: "monitoring",
        name: "kube-state-metrics",
        matchLabels: ksm,
        endpoints: [{ port: "http-metrics", interval: "30s" }, { port: "telemetry", interval: "60s" }],
        annotations: routed,
      },
    },
    {
      namespace: "kube-system",
      name: "coredns",
      kind: "Deployment",
      replicas: 2,
      labels: coredns,
      containers: [{ name: "coredns", image: "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/coredns:v1.11.4-eksbuild.14", ports: [port("dns", 53), port("metrics", 9153)] }],
      monitor: {
        kind: "ServiceMonitor",
        namespace: "kube-system",
        name: "coredns",
        matchLabels: { "k8s-app": "kube-dns" },
        endpoints: [{ port: "metrics", interval: "30s" }],
        annotations: routed,
      },
    },
  ];
}

const NAMESPACES = ["shop", "payments", "search", "checkout", "catalog", "inventory", "identity", "recommendations", "notifications", "analytics", "shipping", "media"];
const NOUNS = ["cart", "order", "price", "stock", "user", "session", "query", "ranker", "mailer", "event", "label", "image", "report", "ledger", "refund", "quote", "review", "promo", "token", "feed"];
const PARTS = ["api", "web", "worker", "gateway", "cache", "indexer", "scheduler", "consumer", "frontend", "backend", "sync", "router"];
const INTERVALS = ["15s", "30s", "30s", "60s"];

/**
 * Application Deployments, `appCount(nodes)` of them with about APP_PODS_PER_NODE pods per node in total, replicas skewed
 * (a few big services, many small ones). Every 8th is scraped through a PodMonitor, every 10th ServiceMonitor has 2 endpoints.
 */
export function appWorkloads(rng: Rng, nodes: number): WorkloadPlan[] {
  const count = appCount(nodes);
  const taken = new Set<string>();
  const weights = Array.from({ length: count }, () => 1 / (0.05 + rng.next()));
  const total = weights.reduce((a, b) => a + b, 0);
  const pods = nodes * APP_PODS_PER_NODE;
  return weights.map((w, i) => {
    // one namespace per service, named after its team: a TA that does not filter its targets by the jobs' relabel rules
    // (the CloudWatch fork's default) gives each monitor's job every target of its namespace
    const team = NAMESPACES[i % NAMESPACES.length];
    let name = `${rng.pick(NOUNS)}-${rng.pick(PARTS)}`;
    for (let k = 2; taken.has(`${team}/${name}`); k++) name = `${name.replace(/-\d+$/, "")}-${k}`;
    taken.add(`${team}/${name}`);
    const namespace = `${team}-${name}`;
    const podMonitor = i % 8 === 5;
    const twoEndpoints = !podMonitor && i % 10 === 3;
    const interval = rng.pick(INTERVALS);
    const ports = [port("http-metrics", 8080)];
    const endpoints: MonitorEndpoint[] = [{ port: "http-metrics", path: "/metrics", interval }];
    if (twoEndpoints) {
      ports.push(port("admin", 9901));
      endpoints.push({ port: "admin", path: "/admin/metrics", interval: "60s" });
    }
    const labels = { "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": team };
    return {
      namespace,
      name,
      kind: "Deployment",
      replicas: Math.max(1, Math.round((pods * w) / total)),
      labels,
      containers: [{ name: "app", image: `registry.example.com/${team}/${name}:1.${rng.int(40)}.${rng.int(10)}`, ports }],
      monitor: {
        kind: podMonitor ? "PodMonitor" : "ServiceMonitor",
        namespace,
        name,
        matchLabels: { "app.kubernetes.io/name": name },
        endpoints,
        tokenSecret: `${name}-metrics-token`,
      },
    };
  });
}
