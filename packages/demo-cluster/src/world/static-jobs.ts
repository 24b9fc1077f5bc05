/**
 * The scrape_configs each TA keeps whatever the routing (no monitor behind them): the kubelets, found by node discovery,
 * and an external probe (per-node), the API servers (cluster-scraper).
 */
import type { Flavor, Labels, Role } from "@allocation-lens/allocation/model";
import { DEMO_SECRET_MARKER } from "./constants";
import { nodeRoleLabels } from "./discovered-labels";
import type { KubeObject } from "./kube";

/** What a static job's discovery sees, and whose discovery it is (the fork's newer one adds labels and keeps empty ones). */
export interface StaticInput {
  nodes: readonly KubeObject[];
  flavor?: Flavor;
}

export interface StaticJob {
  name: string;
  /** the Prometheus scrape config (YAML field names), with a fake credential containing DEMO_SECRET_MARKER */
  config: Record<string, unknown>;
  /** the job as the operator's ConfigMap writes it (no credentials; kubernetes_sd_configs use in-cluster config) */
  operatorConfig(): Record<string, unknown>;
  /** discovered labels (pre-relabel, `__address__` included) of each target */
  targets(input: StaticInput): Labels[];
}

const LABELMAP_NODE_LABELS = { action: "labelmap", regex: "__meta_kubernetes_node_label_(.+)", replacement: "$1", separator: ";" };

/** The kubelet of every node, found by Prometheus's node discovery through the Kubernetes API (nodeRoleLabels). */
const kubelet: StaticJob = {
  name: "kubelet",
  config: {
    job_name: "kubelet",
    honor_timestamps: true,
    scrape_interval: "30s",
    scrape_timeout: "10s",
    metrics_path: "/metrics",
    scheme: "https",
    authorization: { type: "Bearer", credentials: `${DEMO_SECRET_MARKER}-kubelet-token` },
    tls_config: { insecure_skip_verify: true },
    follow_redirects: true,
    enable_http2: true,
    relabel_configs: [LABELMAP_NODE_LABELS],
    kubernetes_sd_configs: [{ role: "node", kubeconfig_file: "", follow_redirects: true, enable_http2: true }],
  },
  operatorConfig: () => ({ job_name: "kubelet", kubernetes_sd_configs: [{ role: "node" }], relabel_configs: [LABELMAP_NODE_LABELS] }),
  targets: ({ nodes, flavor }) =>
    nodes.flatMap((node) => {
      const labels = nodeRoleLabels(node, flavor);
      return labels ? [labels] : [];
    }),
};

const EXTERNAL = ["status.example.com:443", "api.example.com:443"];

const blackboxExternal: StaticJob = {
  name: "blackbox-external",
  config: {
    job_name: "blackbox-external",
    honor_timestamps: true,
    params: { module: ["http_2xx"] },
    scrape_interval: "60s",
    scrape_timeout: "10s",
    metrics_path: "/probe",
    scheme: "http",
    basic_auth: { username: "prober", password: `${DEMO_SECRET_MARKER}-prober-password` },
    follow_redirects: true,
    enable_http2: true,
    relabel_configs: [
      { source_labels: ["__address__"], target_label: "__param_target", action: "replace", regex: "(.*)", replacement: "$1", separator: ";" },
      { source_labels: ["__param_target"], target_label: "instance", action: "replace", regex: "(.*)", replacement: "$1", separator: ";" },
      { target_label: "__address__", replacement: "blackbox-exporter.monitoring.svc:9115", action: "replace", regex: "(.*)", separator: ";" },
    ],
    static_configs: [{ targets: EXTERNAL }],
  },
  operatorConfig: () => ({ job_name: "blackbox-external", static_configs: [{ targets: EXTERNAL }] }),
  // static_configs targets: the TA's target merge gives them only `__address__`
  targets: () => EXTERNAL.map((address) => ({ __address__: address })),
};

const API_SERVERS = ["10.0.250.17", "10.0.251.42"];

const apiServers: StaticJob = {
  name: "kubernetes-apiservers",
  config: {
    job_name: "kubernetes-apiservers",
    honor_timestamps: true,
    scrape_interval: "30s",
    scrape_timeout: "10s",
    metrics_path: "/metrics",
    scheme: "https",
    authorization: { type: "Bearer", credentials: `${DEMO_SECRET_MARKER}-apiserver-token` },
    tls_config: { ca_file: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt", insecure_skip_verify: false },
    follow_redirects: true,
    enable_http2: true,
    static_configs: [{ targets: API_SERVERS.map((ip) => `${ip}:443`) }],
  },
  // the demo serves no `default/kubernetes` endpoints: the ConfigMap lists the API servers' addresses
  operatorConfig: () => ({ job_name: "kubernetes-apiservers", static_configs: [{ targets: API_SERVERS.map((ip) => `${ip}:443`) }] }),
  // static_configs targets: the TA's target merge gives them only `__address__`
  targets: () => API_SERVERS.map((ip) => ({ __address__: `${ip}:443` })),
};

/** The static jobs of one role's TA. Configs are shared: copy before editing. */
export function staticJobsFor(role: Role): StaticJob[] {
  return role === "per-node" ? [kubelet, blackboxExternal] : [apiServers];
}
