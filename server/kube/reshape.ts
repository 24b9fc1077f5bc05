import "server-only";
/** Kubernetes objects (as informers deliver them) reshaped into the analysis' input types. */
import type { MonitorRef } from "@/lib/model";
import type { AgentPod, NodeInfo } from "@/lib/analysis/types";
import { podViewFromObject } from "@allocation-lens/allocation/eligibility";
import type { KubeObj } from "@/server/kube/informers";

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A JSON object's own string-valued entries; anything else (an array, a string, values of other types) gives none. */
function stringMap(v: unknown): Record<string, string> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === "string"));
}

export function agentPodFromObject(pod: KubeObj): AgentPod {
  const p = pod as Loose;
  const statuses: Loose[] = Array.isArray(p.status?.containerStatuses) ? p.status.containerStatuses : [];
  const start = typeof p.status?.startTime === "string" ? Date.parse(p.status.startTime) : NaN;
  const restarts = (c: Loose | null | undefined) => {
    const n = Number(c?.restartCount);
    return Number.isFinite(n) && n > 0 ? n : 0;
  };
  return {
    ...podViewFromObject(pod),
    restarts: statuses.reduce((s, c) => s + restarts(c), 0),
    startTime: Number.isFinite(start) ? start : undefined,
  };
}

export function nodeInfoFromObject(node: KubeObj): NodeInfo {
  const n = node as Loose;
  const labels = stringMap(n.metadata?.labels);
  const conditions: Loose[] = Array.isArray(n.status?.conditions) ? n.status.conditions : [];
  return {
    name: String(n.metadata?.name ?? ""),
    zone: labels["topology.kubernetes.io/zone"] ?? labels["failure-domain.beta.kubernetes.io/zone"] ?? null,
    instanceType: labels["node.kubernetes.io/instance-type"] ?? null,
    ready: conditions.some((c) => c?.type === "Ready" && c?.status === "True"),
  };
}

/** `kind` comes from the informer it was read from: list items of a custom resource may lack it. */
export function monitorFromObject(m: KubeObj, kind: MonitorRef["kind"]): MonitorRef {
  const o = m as Loose;
  const endpoints = kind === "PodMonitor" ? o.spec?.podMetricsEndpoints : o.spec?.endpoints;
  return {
    kind,
    namespace: String(o.metadata?.namespace ?? ""),
    name: String(o.metadata?.name ?? ""),
    annotations: stringMap(o.metadata?.annotations),
    endpoints: Array.isArray(endpoints) ? endpoints.length : 0,
  };
}
