import type { Resource } from "../store";
import { NAMESPACE_RESOURCE } from "./namespaces";

/**
 * Static discovery documents of the embedded demo cluster's Kubernetes API, shaped as a real apiserver (v1.32) shapes
 * them: /version, /api, /api/v1, /apis, /apis/apps/v1, /apis/authorization.k8s.io/v1 (selfsubjectaccessreviews),
 * /apis/discovery.k8s.io/v1 (endpointslices), /apis/monitoring.coreos.com/v1 (coordination.k8s.io is in leases.ts). Only
 * the legacy (non-aggregated) format is served; kubectl asks for aggregated discovery first and falls back when the
 * answer's Content-Type is plain JSON.
 */

export const MONITORING_GROUP = "monitoring.coreos.com";
export const MONITORING_VERSION = "v1";
export const APPS_GROUP = "apps";
export const APPS_VERSION = "v1";
export const DISCOVERY_GROUP = "discovery.k8s.io";
export const DISCOVERY_VERSION = "v1";
export const AUTHORIZATION_GROUP = "authorization.k8s.io";
export const AUTHORIZATION_VERSION = "v1";

export interface ResourceInfo {
  resource: Resource;
  /** "" for the core group */
  group: string;
  version: string;
  /** apiVersion of the objects: "v1" or "monitoring.coreos.com/v1" */
  apiVersion: string;
  kind: string;
  listKind: string;
  singularName: string;
  namespaced: boolean;
  shortNames: string[];
  categories?: string[];
}

export const RESOURCE_INFO: Record<Resource, ResourceInfo> = {
  pods: {
    resource: "pods",
    group: "",
    version: "v1",
    apiVersion: "v1",
    kind: "Pod",
    listKind: "PodList",
    singularName: "pod",
    namespaced: true,
    shortNames: ["po"],
    categories: ["all"],
  },
  nodes: {
    resource: "nodes",
    group: "",
    version: "v1",
    apiVersion: "v1",
    kind: "Node",
    listKind: "NodeList",
    singularName: "node",
    namespaced: false,
    shortNames: ["no"],
  },
  servicemonitors: {
    resource: "servicemonitors",
    group: MONITORING_GROUP,
    version: MONITORING_VERSION,
    apiVersion: `${MONITORING_GROUP}/${MONITORING_VERSION}`,
    kind: "ServiceMonitor",
    listKind: "ServiceMonitorList",
    singularName: "servicemonitor",
    namespaced: true,
    shortNames: ["smon"],
    categories: ["prometheus-operator"],
  },
  podmonitors: {
    resource: "podmonitors",
    group: MONITORING_GROUP,
    version: MONITORING_VERSION,
    apiVersion: `${MONITORING_GROUP}/${MONITORING_VERSION}`,
    kind: "PodMonitor",
    listKind: "PodMonitorList",
    singularName: "podmonitor",
    namespaced: true,
    shortNames: ["pmon"],
    categories: ["prometheus-operator"],
  },
  configmaps: {
    resource: "configmaps",
    group: "",
    version: "v1",
    apiVersion: "v1",
    kind: "ConfigMap",
    listKind: "ConfigMapList",
    singularName: "configmap",
    namespaced: true,
    shortNames: ["cm"],
  },
  services: {
    resource: "services",
    group: "",
    version: "v1",
    apiVersion: "v1",
    kind: "Service",
    listKind: "ServiceList",
    singularName: "service",
    namespaced: true,
    shortNames: ["svc"],
    categories: ["all"],
  },
  secrets: {
    resource: "secrets",
    group: "",
    version: "v1",
    apiVersion: "v1",
    kind: "Secret",
    listKind: "SecretList",
    singularName: "secret",
    namespaced: true,
    shortNames: [],
  },
  deployments: {
    resource: "deployments",
    group: APPS_GROUP,
    version: APPS_VERSION,
    apiVersion: `${APPS_GROUP}/${APPS_VERSION}`,
    kind: "Deployment",
    listKind: "DeploymentList",
    singularName: "deployment",
    namespaced: true,
    shortNames: ["deploy"],
    categories: ["all"],
  },
  daemonsets: {
    resource: "daemonsets",
    group: APPS_GROUP,
    version: APPS_VERSION,
    apiVersion: `${APPS_GROUP}/${APPS_VERSION}`,
    kind: "DaemonSet",
    listKind: "DaemonSetList",
    singularName: "daemonset",
    namespaced: true,
    shortNames: ["ds"],
    categories: ["all"],
  },
  endpoints: {
    resource: "endpoints",
    group: "",
    version: "v1",
    apiVersion: "v1",
    kind: "Endpoints",
    listKind: "EndpointsList",
    singularName: "endpoints",
    namespaced: true,
    shortNames: ["ep"],
  },
  endpointslices: {
    resource: "endpointslices",
    group: DISCOVERY_GROUP,
    version: DISCOVERY_VERSION,
    apiVersion: `${DISCOVERY_GROUP}/${DISCOVERY_VERSION}`,
    kind: "EndpointSlice",
    listKind: "EndpointSliceList",
    singularName: "endpointslice",
    namespaced: true,
    shortNames: [],
  },
};

export const CORE_RESOURCES: readonly Resource[] = ["configmaps", "endpoints", "nodes", "pods", "secrets", "services"];
export const APPS_RESOURCES: readonly Resource[] = ["daemonsets", "deployments"];
export const DISCOVERY_RESOURCES: readonly Resource[] = ["endpointslices"];
export const MONITORING_RESOURCES: readonly Resource[] = ["podmonitors", "servicemonitors"];

const VERBS = ["get", "list", "watch"];

export function versionInfo(): Record<string, string> {
  return {
    major: "1",
    minor: "32",
    gitVersion: "v1.32.4",
    gitCommit: "59526cd4867447956156ae3a602fcbac10a2c335",
    gitTreeState: "clean",
    buildDate: "2025-04-22T16:02:27Z",
    goVersion: "go1.23.6",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

export function apiVersions(serverAddress: string): unknown {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

/** The subresources the demo serves: pods/portforward (create) and services/proxy (get). */
const SUBRESOURCES: Partial<Record<Resource, unknown[]>> = {
  pods: [{ name: "pods/portforward", singularName: "", namespaced: true, kind: "PodPortForwardOptions", verbs: ["create", "get"] }],
  services: [{ name: "services/proxy", singularName: "", namespaced: true, kind: "ServiceProxyOptions", verbs: ["create", "delete", "get", "patch", "update"] }],
};

function apiResources(r: ResourceInfo): unknown[] {
  return [apiResource(r), ...(SUBRESOURCES[r.resource] ?? [])];
}

function apiResource(r: ResourceInfo): unknown {
  return {
    name: r.resource,
    singularName: r.singularName,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: VERBS,
    ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
    ...(r.categories ? { categories: r.categories } : {}),
    storageVersionHash: Buffer.from(`${r.apiVersion}/${r.kind}`).toString("base64").slice(0, 11),
  };
}

export function coreResourceList(): unknown {
  return {
    kind: "APIResourceList",
    groupVersion: "v1",
    resources: [NAMESPACE_RESOURCE, ...CORE_RESOURCES.flatMap((r) => apiResources(RESOURCE_INFO[r]))].sort((a, b) =>
      String((a as { name: string }).name).localeCompare(String((b as { name: string }).name)),
    ),
  };
}

/** True when at least one monitor kind is "installed" (its CRD exists). */
export function monitoringGroupPresent(missing: ReadonlySet<Resource>): boolean {
  return MONITORING_RESOURCES.some((r) => !missing.has(r));
}

/** The groups: the built-in ones given (coordination.k8s.io), then monitoring.coreos.com when a monitor CRD is installed. */
export function apiGroupList(missing: ReadonlySet<Resource>, builtIn: readonly unknown[] = []): unknown {
  const gv = { groupVersion: `${MONITORING_GROUP}/${MONITORING_VERSION}`, version: MONITORING_VERSION };
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [...builtIn, ...(monitoringGroupPresent(missing) ? [{ name: MONITORING_GROUP, versions: [gv], preferredVersion: gv }] : [])],
  };
}

/** One built-in group with a single version, as /apis lists it. */
export function builtInGroup(name: string, version: string): { name: string; versions: unknown[]; preferredVersion: unknown } {
  const gv = { groupVersion: `${name}/${version}`, version };
  return { name, versions: [gv], preferredVersion: gv };
}

export function appsGroup(): unknown {
  return builtInGroup(APPS_GROUP, APPS_VERSION);
}

export function discoveryGroup(): unknown {
  return builtInGroup(DISCOVERY_GROUP, DISCOVERY_VERSION);
}

export function authorizationGroup(): unknown {
  return builtInGroup(AUTHORIZATION_GROUP, AUTHORIZATION_VERSION);
}

export function discoveryResourceList(): unknown {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: `${DISCOVERY_GROUP}/${DISCOVERY_VERSION}`,
    resources: DISCOVERY_RESOURCES.map((r) => apiResource(RESOURCE_INFO[r])),
  };
}

/** authorization.k8s.io/v1 as kube-apiserver lists it; the demo serves the self-subject access review (create). */
export function authorizationResourceList(): unknown {
  const review = (name: string, kind: string, namespaced = false) => ({ name, singularName: name.replace(/s$/, ""), namespaced, kind, verbs: ["create"] });
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: `${AUTHORIZATION_GROUP}/${AUTHORIZATION_VERSION}`,
    resources: [review("selfsubjectaccessreviews", "SelfSubjectAccessReview")],
  };
}

export function appsResourceList(): unknown {
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: `${APPS_GROUP}/${APPS_VERSION}`, resources: APPS_RESOURCES.map((r) => apiResource(RESOURCE_INFO[r])) };
}

export function monitoringGroup(): unknown {
  const gv = { groupVersion: `${MONITORING_GROUP}/${MONITORING_VERSION}`, version: MONITORING_VERSION };
  return { kind: "APIGroup", apiVersion: "v1", name: MONITORING_GROUP, versions: [gv], preferredVersion: gv };
}

/** APIResourceList of monitoring.coreos.com/v1 without the missing kinds; undefined when both are missing. */
export function monitoringResourceList(missing: ReadonlySet<Resource>): unknown | undefined {
  if (!monitoringGroupPresent(missing)) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: `${MONITORING_GROUP}/${MONITORING_VERSION}`,
    resources: MONITORING_RESOURCES.filter((r) => !missing.has(r)).map((r) => apiResource(RESOURCE_INFO[r])),
  };
}
