/**
 * How a TA is reached, as pure decisions: which pod of a Service a port-forward goes to, which of its ports, the service
 * proxy's path prefix, and the messages of the failures a laptop user can fix (a missing permission names the verb, the
 * resource, the namespace and the grant). The I/O is in server/ta/reach.
 */

/** The parts of a Kubernetes Pod these decisions read. */
export interface PodLike {
  metadata?: { name?: string; namespace?: string; deletionTimestamp?: unknown; creationTimestamp?: unknown };
  spec?: { containers?: { ports?: { name?: string; containerPort?: number }[] }[] };
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}

/** The parts of a Kubernetes Service these decisions read. */
export interface ServiceLike {
  spec?: { selector?: Record<string, string>; ports?: { name?: string; port?: number; targetPort?: number | string }[] };
}

/** `a=1,b=2`, keys sorted: a label selector for a list. */
export function selectorString(selector: Record<string, string>): string {
  return Object.keys(selector)
    .sort()
    .map((k) => `${k}=${selector[k]}`)
    .join(",");
}

/** Ready, Running and not terminating: a pod a tunnel may go to. */
export function podIsReachable(pod: PodLike): boolean {
  if (!pod.metadata?.name || pod.metadata.deletionTimestamp) return false;
  if (pod.status?.phase !== "Running") return false;
  return (pod.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

/**
 * The pod a tunnel goes to: among the reachable ones, not `avoid` (the pod a connection just failed to) unless it is the
 * only one; the newest first (a replacement rather than the pod it replaces), then by name, so the choice is stable.
 */
export function choosePod(pods: readonly PodLike[], avoid?: string): string | null {
  const ok = pods.filter(podIsReachable);
  const time = (p: PodLike) => {
    const t = p.metadata?.creationTimestamp;
    const ms = t instanceof Date ? t.getTime() : typeof t === "string" ? Date.parse(t) : NaN;
    return Number.isNaN(ms) ? 0 : ms;
  };
  ok.sort((a, b) => time(b) - time(a) || (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  const preferred = ok.find((p) => p.metadata!.name !== avoid) ?? ok[0];
  return preferred?.metadata?.name ?? null;
}

export type PortChoice = { ok: true; targetPort: number | string; servicePort: number | string } | { ok: false; message: string };

/**
 * The Service port `port` (its number or its name; with none, the Service's only port) and the target port it forwards
 * to: a number, or a container port's name to be looked up in the chosen pod (podPort).
 */
export function servicePort(service: ServiceLike, name: string, port?: number | string): PortChoice {
  const ports = service.spec?.ports ?? [];
  const found = port === undefined ? (ports.length === 1 ? ports[0] : undefined) : ports.find((p) => p.port === port || (p.name !== undefined && p.name === port));
  if (!found) {
    const listed = ports.map((p) => (p.name ? `${p.port} (${p.name})` : String(p.port))).join(", ") || "none";
    return {
      ok: false,
      message:
        port === undefined
          ? `the Service ${name} has ${ports.length} ports (${listed}): name one in reach port`
          : `the Service ${name} has no port ${JSON.stringify(port)} (it has ${listed})`,
    };
  }
  return { ok: true, servicePort: found.port ?? port!, targetPort: found.targetPort ?? found.port ?? port! };
}

/** A target port as a number: itself, or the pod's container port of that name; null when the pod has none. */
export function podPort(pod: PodLike, targetPort: number | string): number | null {
  if (typeof targetPort === "number") return targetPort;
  if (/^\d+$/.test(targetPort)) return Number(targetPort);
  for (const c of pod.spec?.containers ?? []) for (const p of c.ports ?? []) if (p.name === targetPort && p.containerPort) return p.containerPort;
  return null;
}

/** The path a request to the TA takes through the API server's service proxy: this prefix, then the TA's own path. */
export function serviceProxyPrefix(namespace: string, service: string, port?: number | string): string {
  const svc = port === undefined || port === "" ? encodeURIComponent(service) : `${encodeURIComponent(service)}:${encodeURIComponent(port)}`;
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/services/${svc}/proxy`;
}

/** The address requests to a TA behind a reach carry (their Host header): the Service's cluster DNS name. */
export function serviceUrl(scheme: "http" | "https", namespace: string, service: string, port?: number | string): string {
  return `${scheme}://${service}.${namespace}.svc${typeof port === "number" ? `:${port}` : ""}`;
}

/** `forbidden: the Kubernetes user may not VERB RESOURCE in namespace NS (grant: VERB on RESOURCE)`; no namespace: in all namespaces */
export function forbiddenMessage(verb: string, resource: string, namespace: string | undefined): string {
  return `forbidden: the Kubernetes user may not ${verb} ${resource} ${namespace ? `in namespace ${namespace}` : "in all namespaces"} (grant: ${verb} on ${resource})`;
}

/**
 * The text the port-forward error channel carried, as one printable line of bounded length (it becomes a SourceError
 * message): the kubelet writes what failed there ("error forwarding port 8443 to pod ...: connection refused").
 */
export function channelErrorText(bytes: Buffer, max = 300): string {
  return bytes
    .toString("utf8")
    .replace(/[^\x21-\x7e]+/g, " ")
    .trim()
    .slice(0, max);
}

/** A Secret reference `namespace/name`, split; null when it is not one. */
export function parseSecretRef(ref: string): { namespace: string; name: string } | null {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(ref);
  return m && m[1].length <= 63 && m[3].length <= 253 ? { namespace: m[1], name: m[3] } : null;
}

/** How a TA is reached, as data (server/ta/reach adds the I/O: tunnels, the proxy, a pod resolver). */
export type ReachSpec =
  | { kind: "direct" }
  | {
      kind: "port-forward";
      namespace: string;
      service: string;
      /** the Service's port, its number or name; default its only port */
      port?: number | string;
      /** the pod's port; default: the target port of the Service's port */
      targetPort?: number;
      /** the TLS server name over the tunnel; default tls.serverName, else `<service>.<namespace>.svc` */
      serverName?: string;
    }
  | { kind: "service-proxy"; namespace: string; service: string; port?: number | string };

type ReachTarget = { namespace: string; service: string; port?: number | string };

/** The reach a TA's configuration (`reach`) names. */
export function reachFromConfig(reach: "direct" | { portForward: ReachTarget } | { serviceProxy: ReachTarget } | undefined): ReachSpec {
  if (reach === undefined || reach === "direct") return { kind: "direct" };
  if ("portForward" in reach) return { kind: "port-forward", ...reach.portForward };
  return { kind: "service-proxy", ...reach.serviceProxy };
}

/** The name the TA's server certificate is checked against over a tunnel: configured, else the Service's DNS name. */
export function tunnelServerName(namespace: string, service: string, configured?: string): string {
  return configured || `${service}.${namespace}.svc`;
}
