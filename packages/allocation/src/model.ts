/**
 * The shared vocabulary of Allocation Lens (see docs/ARCHITECTURE.md, "Vocabulary").
 * Pure types only: the allocation strategies, the embedded demo cluster and the analysis all speak these.
 */

/** Which agent a Target Allocator serves. */
export type Role = "per-node" | "cluster-scraper";
export const ROLES: readonly Role[] = ["per-node", "cluster-scraper"] as const;

/** Which Target Allocator implementation: the OpenTelemetry Operator's or the CloudWatch fork (docs/target-allocator.md). */
export type Flavor = "upstream" | "cloudwatch";
export const FLAVORS: readonly Flavor[] = ["upstream", "cloudwatch"] as const;

/**
 * How a TA tracks its collector pods.
 * - `ready-only`: the flavor's current rule (cloudwatch: scheduled, not terminating, Running and Ready, fresh List per watch
 *   session; upstream: scheduled, dropped after `collector_not_ready_grace_period` not Running/Ready, informer with resync).
 * - `legacy`: the fork before the per-node change: registers on ADDED, removes only on DELETED, never checks readiness,
 *   no re-list between watch sessions (the silent "ghost" failure: a dead collector keeps its node's targets).
 */
export type Tracking = "ready-only" | "legacy";

export type StrategyName = "consistent-hashing" | "least-weighted" | "per-node";

/** Exactly one per assigned target, checked in this order. */
export type TargetClass = "ghost" | "nodeless" | "local" | "cross_zone" | "cross_node";
export const TARGET_CLASSES: readonly TargetClass[] = ["ghost", "nodeless", "local", "cross_zone", "cross_node"] as const;

export type Ownership = "ok" | "double" | "orphaned" | "misrouted";

export type Labels = Record<string, string>;

/** One Prometheus HTTP service-discovery item exactly as a TA serves it: one address, pre-relabel discovered labels. */
export interface SdItem {
  targets: string[];
  labels: Labels;
}

/** A target known to a TA. `key` is stable for the same job and discovered labels (upstream's target hash). */
export interface Target {
  key: string;
  job: string;
  address: string;
  labels: Labels;
}

/** A collector that allocation may use: id is the pod name, node its spec.nodeName ("" when unscheduled). */
export interface Collector {
  id: string;
  node: string;
}

/** What a TA needs to know about an agent pod, reduced from a Kubernetes Pod object. */
export interface PodView {
  name: string;
  namespace: string;
  /** spec.nodeName, "" when unscheduled */
  nodeName: string;
  /** metadata.deletionTimestamp is set */
  terminating: boolean;
  /** status.phase ("" when the pod has no status yet) */
  phase: string;
  /** condition Ready=True */
  ready: boolean;
  /** ms epoch of the Ready condition's lastTransitionTime, when known */
  readySince?: number;
  /** ms epoch since when the pod has been not Running or not Ready, when known (upstream grace period) */
  notReadySince?: number;
}

/** A monitor object (ServiceMonitor or PodMonitor) as the routing sees it. */
export interface MonitorRef {
  kind: "ServiceMonitor" | "PodMonitor";
  namespace: string;
  name: string;
  annotations: Record<string, string>;
  endpoints: number;
}
