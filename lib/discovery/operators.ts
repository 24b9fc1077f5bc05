/**
 * Finding Target Allocators from what their operators write into the cluster (docs/target-allocator.md, "How the
 * operators deploy a TA"): a ConfigMap with the TA's own configuration (key `targetallocator.yaml`), a Service in front of
 * its pods and a Deployment. Pure: the objects come in as plain Kubernetes JSON, what was found and what was dropped (with
 * the reason) go out.
 *
 * - OpenTelemetry Operator (`upstream`): `<collector>-targetallocator` for all three; `collector_selector` (a label
 *   selector, written `matchlabels` or `matchLabels`), `collector_namespace`, `allocation_strategy`,
 *   `allocation_fallback_strategy`, `https.enabled` (an extra HTTPS listener with required client certificates).
 * - CloudWatch agent operator (`cloudwatch`): ConfigMap and Deployment `<agent>-target-allocator`, Service
 *   `<agent>-target-allocator-service`; `label_selector` (a plain map), `allocation_strategy`, `scraper_role`. Always HTTPS
 *   with a required client certificate (TLS 1.3).
 */
import YAML from "yaml";
import type { Flavor, Role } from "@/lib/model";
import { isPlainObject } from "@/lib/ta/extract";

export const TA_CONFIG_KEY = "targetallocator.yaml";
/** The largest TA configuration read (a ConfigMap holds at most 1 MiB). */
export const MAX_TA_CONFIG_BYTES = 1024 * 1024;

export interface ObjectLike {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: unknown;
}

export interface DiscoveredTa {
  role: Role;
  flavor: Flavor;
  /** the namespace of the TA's ConfigMap, Service and pods */
  namespace: string;
  /** the ConfigMap's name (`<collector>-targetallocator`, `<agent>-target-allocator`) */
  configMap: string;
  strategy: string;
  fallbackStrategy: string | null;
  collectors: { namespace: string; selector: Record<string, string> };
  /** the TA requires TLS with a client certificate on the port used */
  mtls: boolean;
  service: {
    name: string;
    /** the Service port used */
    port: number;
    /** the pods' port behind it (a number, resolved from the Deployment's container ports when the Service names it) */
    targetPort: number;
    /** the Service's pod selector: the TA's pods */
    selector: Record<string, string>;
  };
  deployment: string;
  /** the address inside the cluster: `http(s)://<service>.<namespace>.svc:<port>` */
  url: string;
}

export interface DroppedTa {
  /** `configmap <namespace>/<name>` */
  object: string;
  reason: string;
}

export interface OperatorObjects {
  configMaps: readonly ObjectLike[];
  services: readonly ObjectLike[];
  deployments: readonly ObjectLike[];
}

export interface Discovery {
  found: DiscoveredTa[];
  dropped: DroppedTa[];
}

const UPSTREAM_SUFFIX = "-targetallocator";
const CLOUDWATCH_SUFFIX = "-target-allocator";
const UPSTREAM_MANAGER = "opentelemetry-operator";
const CLOUDWATCH_MANAGER = "amazon-cloudwatch-agent-operator";
const MANAGED_BY = "app.kubernetes.io/managed-by";

type ServicePort = { name?: string; port?: number; targetPort?: number | string; protocol?: string };
type ContainerPort = { name?: string; containerPort?: number };

/** A map of label key to string value, or null when it is anything else. */
function labelMap(v: unknown): Record<string, string> | null {
  if (!isPlainObject(v)) return null;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string" && typeof x !== "number" && typeof x !== "boolean") return null;
    out[k] = String(x);
  }
  return out;
}

/** Which operator wrote this ConfigMap: by its manager label, else by its name. */
export function flavorOf(cm: ObjectLike): Flavor | null {
  const manager = cm.metadata?.labels?.[MANAGED_BY];
  if (manager === UPSTREAM_MANAGER) return "upstream";
  if (manager === CLOUDWATCH_MANAGER) return "cloudwatch";
  const name = cm.metadata?.name ?? "";
  if (name.endsWith(UPSTREAM_SUFFIX)) return "upstream";
  if (name.endsWith(CLOUDWATCH_SUFFIX)) return "cloudwatch";
  return null;
}

/** The collector selector of a TA configuration: `collector_selector` (match labels only) or `label_selector`. */
function selectorOf(conf: Record<string, unknown>): { selector: Record<string, string> } | { problem: string } {
  const cs = conf.collector_selector;
  if (cs !== undefined && cs !== null) {
    if (!isPlainObject(cs)) return { problem: "collector_selector is not a label selector" };
    const lower = Object.fromEntries(Object.entries(cs).map(([k, v]) => [k.toLowerCase(), v]));
    const expressions = lower.matchexpressions;
    if (Array.isArray(expressions) && expressions.length > 0) {
      return { problem: "collector_selector has matchExpressions, which the dashboard's collector selector cannot express: configure collectors.selector for this TA" };
    }
    const labels = labelMap(lower.matchlabels ?? {});
    if (!labels) return { problem: "collector_selector.matchLabels is not a map of label to value" };
    if (Object.keys(labels).length) return { selector: labels };
  }
  if (conf.label_selector !== undefined && conf.label_selector !== null) {
    const labels = labelMap(conf.label_selector);
    if (!labels) return { problem: "label_selector is not a map of label to value" };
    if (Object.keys(labels).length) return { selector: labels };
  }
  return { problem: "no collector selector (collector_selector or label_selector): the TA would select every pod" };
}

function servicePorts(svc: ObjectLike): ServicePort[] {
  const spec = isPlainObject(svc.spec) ? svc.spec : {};
  return Array.isArray(spec.ports) ? (spec.ports.filter(isPlainObject) as ServicePort[]) : [];
}

function containerPorts(dep: ObjectLike): ContainerPort[] {
  const spec = isPlainObject(dep.spec) ? dep.spec : {};
  const template = isPlainObject(spec.template) ? spec.template : {};
  const podSpec = isPlainObject(template.spec) ? template.spec : {};
  const containers = Array.isArray(podSpec.containers) ? podSpec.containers.filter(isPlainObject) : [];
  return containers.flatMap((c) => (Array.isArray(c.ports) ? (c.ports.filter(isPlainObject) as ContainerPort[]) : []));
}

/** The pods' port number behind a Service port: a number as it is, a name through the Deployment's container ports. */
function resolveTargetPort(p: ServicePort, dep: ObjectLike): number | null {
  const t = p.targetPort ?? p.port;
  if (typeof t === "number") return t;
  if (typeof t === "string" && /^\d+$/.test(t)) return Number(t);
  const named = containerPorts(dep).find((c) => c.name === t);
  return typeof named?.containerPort === "number" ? named.containerPort : null;
}

/**
 * The Service port to read the TA on. upstream: the plain HTTP port (named `targetallocation`, else 80), or the port in
 * front of the HTTPS listener (8443 or named https) when the configuration enables HTTPS and the Service has one.
 * cloudwatch: the Service's one port (80 -> 8443, HTTPS).
 */
function pickPort(flavor: Flavor, httpsEnabled: boolean, svc: ObjectLike, dep: ObjectLike): { port: number; targetPort: number; mtls: boolean } | { problem: string } {
  const ports = servicePorts(svc).filter((p) => typeof p.port === "number" && (p.protocol ?? "TCP") === "TCP");
  if (!ports.length) return { problem: `Service ${svc.metadata?.namespace}/${svc.metadata?.name} has no TCP port` };
  const resolved = ports.map((p) => ({ p, target: resolveTargetPort(p, dep) }));
  if (flavor === "cloudwatch") {
    const r = resolved.find((x) => x.p.name === "targetallocation") ?? resolved.find((x) => x.p.port === 80) ?? resolved[0];
    if (r.target === null) return { problem: `Service port ${r.p.port} names a target port the Deployment does not declare` };
    return { port: r.p.port!, targetPort: r.target, mtls: true };
  }
  if (httpsEnabled) {
    const https = resolved.find((x) => x.target === 8443 || x.p.name === "https" || x.p.targetPort === "https");
    if (https && https.target !== null) return { port: https.p.port!, targetPort: https.target, mtls: true };
  }
  const http = resolved.find((x) => x.p.name === "targetallocation") ?? resolved.find((x) => x.p.port === 80) ?? resolved.find((x) => x.target === 8080);
  if (!http) return { problem: `Service ${svc.metadata?.namespace}/${svc.metadata?.name} has no port 80 or port named targetallocation` };
  if (http.target === null) return { problem: `Service port ${http.p.port} names a target port the Deployment does not declare` };
  return { port: http.p.port!, targetPort: http.target, mtls: false };
}

/** The role a TA serves: cloudwatch's `scraper_role`; upstream has none, its per-node TA is per-node, any other the second. */
function roleOf(flavor: Flavor, conf: Record<string, unknown>, strategy: string): Role | { problem: string } {
  if (flavor === "cloudwatch") {
    const r = conf.scraper_role;
    if (r === undefined || r === null || r === "") return "per-node";
    if (r === "cluster-scraper") return "cluster-scraper";
    return { problem: `unknown scraper_role ${JSON.stringify(String(r).slice(0, 40))} (expected cluster-scraper or none)` };
  }
  return strategy === "per-node" ? "per-node" : "cluster-scraper";
}

const key = (o: ObjectLike) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/**
 * Every TA the objects describe, at most one per role: a second TA for a role already taken (in namespace/name order) is
 * dropped with the name of the first. Everything dropped says why.
 */
export function discoverTargetAllocators(objects: OperatorObjects): Discovery {
  const services = new Map(objects.services.map((s) => [key(s), s]));
  const deployments = new Map(objects.deployments.map((d) => [key(d), d]));
  const found: DiscoveredTa[] = [];
  const dropped: DroppedTa[] = [];
  const candidates = objects.configMaps.filter((cm) => cm.data && Object.prototype.hasOwnProperty.call(cm.data, TA_CONFIG_KEY)).sort((a, b) => key(a).localeCompare(key(b)));
  for (const cm of candidates) {
    const namespace = cm.metadata?.namespace ?? "";
    const name = cm.metadata?.name ?? "";
    const object = `configmap ${namespace}/${name}`;
    const drop = (reason: string) => dropped.push({ object, reason });
    const flavor = flavorOf(cm);
    if (!flavor) {
      drop(`has ${TA_CONFIG_KEY} but is named as neither operator names a TA's ConfigMap (<collector>${UPSTREAM_SUFFIX}, <agent>${CLOUDWATCH_SUFFIX})`);
      continue;
    }
    const text = cm.data![TA_CONFIG_KEY];
    if (typeof text !== "string" || text.length > MAX_TA_CONFIG_BYTES) {
      drop(`${TA_CONFIG_KEY} is not a text of at most ${MAX_TA_CONFIG_BYTES} bytes`);
      continue;
    }
    let conf: unknown;
    try {
      // never echo the text: the TA's configuration may carry scrape credentials
      conf = YAML.parse(text, { maxAliasCount: 100 });
    } catch (e) {
      const at = /at line \d+, column \d+/.exec((e as Error).message)?.[0];
      drop(`${TA_CONFIG_KEY} is not valid YAML${at ? ` (${at})` : ""}`);
      continue;
    }
    if (!isPlainObject(conf)) {
      drop(`${TA_CONFIG_KEY} is not a map`);
      continue;
    }
    const strategy = typeof conf.allocation_strategy === "string" && conf.allocation_strategy ? conf.allocation_strategy : "consistent-hashing";
    const fallbackStrategy = typeof conf.allocation_fallback_strategy === "string" && conf.allocation_fallback_strategy ? conf.allocation_fallback_strategy : null;
    const role = roleOf(flavor, conf, strategy);
    if (typeof role !== "string") {
      drop(role.problem);
      continue;
    }
    const sel = selectorOf(conf);
    if ("problem" in sel) {
      drop(sel.problem);
      continue;
    }
    const serviceName = flavor === "upstream" ? name : `${name}-service`;
    const svc = services.get(`${namespace}/${serviceName}`);
    if (!svc) {
      drop(`no Service ${namespace}/${serviceName} in front of its pods`);
      continue;
    }
    const dep = deployments.get(`${namespace}/${name}`);
    if (!dep) {
      drop(`no Deployment ${namespace}/${name}: the TA is not running`);
      continue;
    }
    const https = isPlainObject(conf.https) && conf.https.enabled === true;
    const port = pickPort(flavor, https, svc, dep);
    if ("problem" in port) {
      drop(port.problem);
      continue;
    }
    const svcSpec = isPlainObject(svc.spec) ? svc.spec : {};
    const podSelector = labelMap(svcSpec.selector);
    if (!podSelector || !Object.keys(podSelector).length) {
      drop(`Service ${namespace}/${serviceName} has no pod selector (a port-forward needs the TA's pods)`);
      continue;
    }
    const taken = found.find((f) => f.role === role);
    if (taken) {
      drop(`a second TA for the ${role} role (${taken.namespace}/${taken.configMap} has it): name the one to read in the configuration, or narrow discover.namespaces`);
      continue;
    }
    const collectorNamespace = typeof conf.collector_namespace === "string" && conf.collector_namespace ? conf.collector_namespace : namespace;
    found.push({
      role,
      flavor,
      namespace,
      configMap: name,
      strategy,
      fallbackStrategy,
      collectors: { namespace: collectorNamespace, selector: sel.selector },
      mtls: port.mtls,
      service: { name: serviceName, port: port.port, targetPort: port.targetPort, selector: podSelector },
      deployment: name,
      url: `${port.mtls ? "https" : "http"}://${serviceName}.${namespace}.svc:${port.port}`,
    });
  }
  return { found, dropped };
}
