/**
 * Kubernetes JSON as the demo store keeps it (../store.ts re-exports this type), plus small read-only accessors
 * the world and the discovery share.
 */

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface Container {
  name: string;
  image?: string;
  ports?: ContainerPort[];
}

interface Condition {
  type: string;
  status: string;
}

export const podIP = (pod: KubeObject): string => (pod.status?.podIP as string | undefined) ?? "";
export const hostIP = (pod: KubeObject): string => (pod.status?.hostIP as string | undefined) ?? "";
export const podNodeName = (pod: KubeObject): string => (pod.spec?.nodeName as string | undefined) ?? "";
export const podPhase = (pod: KubeObject): string => (pod.status?.phase as string | undefined) ?? "";
export const isTerminating = (o: KubeObject): boolean => !!o.metadata.deletionTimestamp;
export const containersOf = (pod: KubeObject): Container[] => (pod.spec?.containers as Container[] | undefined) ?? [];

export function conditionTrue(o: KubeObject, type: string): boolean {
  const conditions = o.status?.conditions as Condition[] | undefined;
  return !!conditions?.some((c) => c.type === type && c.status === "True");
}

export function nodeInternalIP(node: KubeObject): string {
  const addresses = node.status?.addresses as { type: string; address: string }[] | undefined;
  return addresses?.find((a) => a.type === "InternalIP")?.address ?? "";
}

const sanitized = new Map<string, string>();
/** A Kubernetes label name as Prometheus writes it inside a meta label name: every invalid character becomes `_`. */
export function sanitizeLabelName(name: string): string {
  let s = sanitized.get(name);
  if (s === undefined) {
    s = name.replace(/[^a-zA-Z0-9_]/g, "_");
    sanitized.set(name, s);
  }
  return s;
}

/** Deep-freeze a value shared by many objects (labels, containers, owner references), so an in-place edit fails loudly. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
