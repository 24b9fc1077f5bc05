/**
 * The shared vocabulary of Allocation Lens (see docs/ARCHITECTURE.md, "Vocabulary").
 * Pure types and the value lists they come from: the allocation strategies, the embedded demo cluster, the analysis and
 * the API's schemas (lib/api/schemas.ts, `z.enum(ROLES)`...) all speak these. Each list is declared here only, and this
 * module imports nothing: the demo and the allocation rules share it.
 */

/** Which agent a Target Allocator serves: the DaemonSet agent (one collector per node) or the Deployment agent. */
export const ROLES = ["per-node", "cluster-scraper"] as const;
export type Role = (typeof ROLES)[number];

/** Which Target Allocator implementation: the OpenTelemetry Operator's or the CloudWatch fork (docs/target-allocator.md). */
export const FLAVORS = ["upstream", "cloudwatch"] as const;
export type Flavor = (typeof FLAVORS)[number];

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
export const TARGET_CLASSES = ["ghost", "nodeless", "local", "cross_zone", "cross_node"] as const;
export type TargetClass = (typeof TARGET_CLASSES)[number];

/** A monitor's ownership between the two TAs (docs/ARCHITECTURE.md, "monitor ownership"). */
export const OWNERSHIPS = ["ok", "double", "orphaned", "misrouted"] as const;
export type Ownership = (typeof OWNERSHIPS)[number];

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

/**
 * A monitor object (ServiceMonitor or PodMonitor) as the routing sees it. The API's MonitorRow starts with these fields:
 * its schema (lib/api/schemas.ts) is checked against this type both ways.
 */
export interface MonitorRef {
  kind: "ServiceMonitor" | "PodMonitor";
  namespace: string;
  name: string;
  annotations: Record<string, string>;
  endpoints: number;
}
