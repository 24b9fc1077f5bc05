/**
 * What the demo cluster tells its users, declared once: the JSON line its CLI prints when ready (`DemoInfo`) and the ground
 * truth its control API serves at GET /truth (`Truth`). docs/ARCHITECTURE.md, "The demo cluster's CLI" and "Fault
 * injection".
 */
import type { Flavor, Role, StrategyName, Tracking } from "@allocation-lens/allocation/model";
import type { Fault } from "./faults";

export const SCENARIOS = ["calm", "demo"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/**
 * One TA of the demo: its URL and flavor, plus the CA and client certificate files when the flavor needs mTLS; and where
 * the Kubernetes API finds it: its namespace, Service and Service port, its pod and the pod's container port (for
 * port-forward and the service proxy).
 */
export interface TaInfo {
  url: string;
  flavor: Flavor;
  ca?: string;
  cert?: string;
  key?: string;
  namespace: string;
  service: string;
  /** the Service's port (80) */
  servicePort: number;
  /** the TA pod's name at start; it changes when the pod is replaced (Truth.taPods has the current one) */
  pod: string;
  /** the TA container's port: 8080 (upstream, HTTP) or 8443 (cloudwatch, HTTPS) */
  containerPort: number;
}

/** The one line of JSON `npm run demo-cluster` prints on stdout when it is ready. */
export interface DemoInfo {
  kubeconfig: string;
  kubeApi: string;
  targetAllocators: Partial<Record<Role, TaInfo>>;
  /** a dashboard configuration file for this cluster */
  dashboardConfig: string;
  /** the same configuration with `targetAllocators: auto` (found through the Kubernetes API) and its own history file */
  discoverConfig: string;
  /** the control API's URL */
  control: string;
  /** the control API's per-run token: send `Authorization: Bearer <controlToken>` */
  controlToken: string;
  /** the same token in a file (mode 0600), named by the generated dashboard configuration */
  controlTokenFile: string;
  nodes: number;
  flavor: Flavor;
  tracking: Tracking;
  seed: number;
  scenario: ScenarioName;
  /** which Target Allocator serves: the demo's simulated one, or upstream's own otel-allocator (`--ta real`) */
  ta: "simulated" | "real";
  /** the real allocator's version (`--ta real` only) */
  taVersion?: string;
  /** the per-node role's allocation strategy and its fallback (null: none) */
  strategy: StrategyName;
  fallback: "consistent-hashing" | null;
}

export interface TruthTarget {
  role: Role;
  job: string;
  address: string;
  node: string | null;
  /** the collector its TA assigned, null when unassigned */
  collector: string | null;
}

export interface TruthCollector {
  role: Role;
  /** the pod name */
  id: string;
  node: string;
  eligible: boolean;
  /** whether its TA registered it */
  registered: boolean;
}

/** GET /truth: every target with the collector its TA assigned, every agent pod with its eligibility. */
export interface Truth {
  at: number;
  targets: TruthTarget[];
  unassigned: Partial<Record<Role, number>>;
  collectors: TruthCollector[];
  registered: Partial<Record<Role, string[]>>;
  /** the current TA pod of each role */
  taPods: Partial<Record<Role, string>>;
}

/** POST /faults -> 200 */
export interface FaultApplied {
  fault: Fault["fault"];
  did: string;
}

/** GET /faults -> 200 */
export interface ActiveFaults {
  active: Fault[];
}

/** DELETE /faults -> 200 */
export interface Healed {
  healed: number;
}
