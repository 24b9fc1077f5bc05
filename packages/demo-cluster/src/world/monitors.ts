/** ServiceMonitor and PodMonitor objects (monitoring.coreos.com/v1) as the demo world declares them. */
import type { KubeObject } from "./kube";

export interface MonitorEndpoint {
  /** the port name (of the Service for a ServiceMonitor, of the container for a PodMonitor) */
  port: string;
  path?: string;
  interval?: string;
  scheme?: "http" | "https";
}

export interface MonitorSpec {
  kind: "ServiceMonitor" | "PodMonitor";
  namespace: string;
  name: string;
  matchLabels: Record<string, string>;
  endpoints: MonitorEndpoint[];
  /** namespaces whose pods it selects; default its own namespace */
  namespaces?: string[] | "any";
  annotations?: Record<string, string>;
  /** name of the Secret with the bearer token the endpoints use (a reference: the monitor never holds the secret) */
  tokenSecret?: string;
}

export function makeMonitor(m: MonitorSpec): KubeObject {
  const endpoints = m.endpoints.map((e) => ({
    port: e.port,
    path: e.path ?? "/metrics",
    interval: e.interval ?? "30s",
    ...(e.scheme ? { scheme: e.scheme } : {}),
    ...(m.tokenSecret ? { authorization: { type: "Bearer", credentials: { name: m.tokenSecret, key: "token" } } } : {}),
  }));
  const spec: Record<string, unknown> = { selector: { matchLabels: m.matchLabels } };
  spec.namespaceSelector = m.namespaces === "any" ? { any: true } : { matchNames: m.namespaces ?? [m.namespace] };
  spec[m.kind === "ServiceMonitor" ? "endpoints" : "podMetricsEndpoints"] = endpoints;
  const metadata: KubeObject["metadata"] = {
    name: m.name,
    namespace: m.namespace,
    labels: { "app.kubernetes.io/name": m.name, release: "monitoring" },
  };
  if (m.annotations && Object.keys(m.annotations).length) metadata.annotations = { ...m.annotations };
  return { apiVersion: "monitoring.coreos.com/v1", kind: m.kind, metadata, spec };
}
