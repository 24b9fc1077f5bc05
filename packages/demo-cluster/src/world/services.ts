/**
 * The Services and token Secrets the demo world's monitors name: every ServiceMonitor selects a Service named like the
 * monitor (labels and selector = the monitor's matchLabels, one port per monitor endpoint, named like it, targeting the
 * container port of that name), and every monitor with `tokenSecret` reads its bearer token from that Secret's `token`.
 */
import { DEMO_SECRET_MARKER } from "./constants";
import { hashHex } from "./hash";
import type { Container, KubeObject } from "./kube";
import type { MonitorSpec } from "./monitors";
import { fakeUid } from "./objects";
import { iso } from "./naming";

/** A ClusterIP in 172.20.0.0/16 (EKS's service range) that depends only on the Service's namespace and name. */
export function clusterIpOf(namespace: string, name: string): string {
  const h = hashHex("svc-ip", namespace, name);
  return `172.20.${parseInt(h.slice(0, 4), 16) % 256}.${(parseInt(h.slice(4, 8), 16) % 253) + 2}`;
}

/** The Service a ServiceMonitor selects, for pods of `containers`; undefined for a PodMonitor. */
export function monitorService(m: MonitorSpec, containers: readonly Container[], createdMs: number): KubeObject | undefined {
  if (m.kind !== "ServiceMonitor") return undefined;
  const ports = m.endpoints.map((e) => {
    const found = containers.flatMap((c) => c.ports ?? []).find((p) => p.name === e.port);
    return { name: e.port, protocol: found?.protocol ?? "TCP", port: found?.containerPort ?? 80, targetPort: e.port };
  });
  const ip = clusterIpOf(m.namespace, m.name);
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: fakeUid("Service", m.namespace, m.name),
      labels: { ...m.matchLabels },
      creationTimestamp: iso(createdMs),
    },
    spec: {
      type: "ClusterIP",
      clusterIP: ip,
      clusterIPs: [ip],
      selector: { ...m.matchLabels },
      ports,
      sessionAffinity: "None",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
    },
    status: { loadBalancer: {} },
  };
}

/** The Secret holding a monitor's bearer token (a fake one, with DEMO_SECRET_MARKER inside its base64). */
export function tokenSecret(m: MonitorSpec, createdMs: number): KubeObject | undefined {
  if (!m.tokenSecret) return undefined;
  const token = `${DEMO_SECRET_MARKER}-${hashHex("token", m.namespace, m.tokenSecret)}`;
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: m.tokenSecret, namespace: m.namespace, labels: { "app.kubernetes.io/name": m.name }, creationTimestamp: iso(createdMs) },
    type: "Opaque",
    data: { token: Buffer.from(token).toString("base64") },
  };
}
