/** The Prometheus scrape config a TA serves for one monitor endpoint (the shape prometheus-operator generates, trimmed). */
import { DEMO_SECRET_MARKER } from "./constants";
import { hashHex } from "./hash";
import { sanitizeLabelName, type KubeObject } from "./kube";

export interface EndpointSpec {
  port?: string;
  targetPort?: string | number;
  path?: string;
  interval?: string;
  scheme?: string;
}

export const monitorJobName = (kind: string, namespace: string, name: string, index: number): string =>
  `${kind === "ServiceMonitor" ? "serviceMonitor" : "podMonitor"}/${namespace}/${name}/${index}`;

export function monitorEndpoints(monitor: KubeObject): EndpointSpec[] {
  const spec = monitor.spec ?? {};
  const list = monitor.kind === "ServiceMonitor" ? spec.endpoints : spec.podMetricsEndpoints;
  return Array.isArray(list) ? (list as EndpointSpec[]) : [];
}

/** The namespaces a monitor selects pods in: its namespaceSelector, else its own namespace. */
export function monitorNamespaces(monitor: KubeObject): string[] | "any" {
  const sel = monitor.spec?.namespaceSelector as { any?: boolean; matchNames?: string[] } | undefined;
  if (sel?.any) return "any";
  if (sel?.matchNames?.length) return sel.matchNames;
  return [monitor.metadata.namespace ?? "default"];
}

export function monitorMatchLabels(monitor: KubeObject): Record<string, string> {
  const sel = monitor.spec?.selector as { matchLabels?: Record<string, string> } | undefined;
  return sel?.matchLabels ?? {};
}

const replace = (source: string, target: string) => ({ source_labels: [source], separator: ";", regex: "(.*)", target_label: target, replacement: "$1", action: "replace" });

export function monitorScrapeConfig(monitor: KubeObject, index: number): Record<string, unknown> {
  const ep = monitorEndpoints(monitor)[index] ?? {};
  const sm = monitor.kind === "ServiceMonitor";
  const ns = monitor.metadata.namespace ?? "default";
  const job = monitorJobName(monitor.kind, ns, monitor.metadata.name, index);
  const namespaces = monitorNamespaces(monitor);
  const portLabel = sm ? "__meta_kubernetes_endpointslice_port_name" : "__meta_kubernetes_pod_container_port_name";
  const relabel: Record<string, unknown>[] = [replace("job", "__tmp_prometheus_job_name")];
  for (const [k, v] of Object.entries(monitorMatchLabels(monitor))) {
    relabel.push({ source_labels: [`__meta_kubernetes_pod_label_${sanitizeLabelName(k)}`], separator: ";", regex: `(${v})`, action: "keep" });
  }
  if (ep.port) relabel.push({ source_labels: [portLabel], separator: ";", regex: ep.port, action: "keep" });
  relabel.push(replace("__meta_kubernetes_namespace", "namespace"));
  if (sm) relabel.push(replace("__meta_kubernetes_service_name", "service"));
  relabel.push(replace("__meta_kubernetes_pod_name", "pod"), replace("__meta_kubernetes_pod_container_name", "container"));
  relabel.push({ separator: ";", regex: "(.*)", target_label: "job", replacement: sm ? monitor.metadata.name : `${ns}/${monitor.metadata.name}`, action: "replace" });
  if (ep.port) relabel.push({ separator: ";", regex: "(.*)", target_label: "endpoint", replacement: ep.port, action: "replace" });
  return {
    job_name: job,
    honor_labels: false,
    honor_timestamps: true,
    scrape_interval: ep.interval ?? "30s",
    scrape_timeout: "10s",
    metrics_path: ep.path ?? "/metrics",
    scheme: ep.scheme ?? "http",
    enable_compression: true,
    authorization: { type: "Bearer", credentials: `${DEMO_SECRET_MARKER}-${hashHex(job)}` },
    follow_redirects: true,
    enable_http2: true,
    relabel_configs: relabel,
    kubernetes_sd_configs: [
      {
        role: sm ? "endpointslice" : "pod",
        kubeconfig_file: "",
        follow_redirects: true,
        enable_http2: true,
        namespaces: namespaces === "any" ? { own_namespace: false } : { own_namespace: false, names: namespaces },
      },
    ],
  };
}
