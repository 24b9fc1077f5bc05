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
  /** a kubeconfig of the Kubernetes API its clients use: the demo's own, or (`--kube real`) the real kube-apiserver's */
  kubeconfig: string;
  kubeApi: string;
  /** `--kube real`: etcd's client URL (plain HTTP on loopback) */
  etcd?: string;
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
  /** how each real allocator came up (`--ta real` only) */
  realTaStartup?: Partial<Record<Role, RealTaStartup>>;
}

/**
 * How a real allocator came up before the demo printed its JSON line: ready, then every job the world gives it listed
 * (it lists a job once its Kubernetes discovery has found the job's first target), and what each side spent meanwhile.
 */
export interface RealTaStartup {
  /** from starting the process to its /readyz answering 200 (its scrape configuration loaded) */
  readyMs: number;
  /** from ready to the first read of /jobs that listed every expected job */
  jobsListedMs: number;
  jobs: number;
  /** each new count of listed jobs: [ms after ready, jobs listed] */
  progress: [number, number][];
  /** the allocator's CPU (user + system) from its start to every job listed, and its RSS then; null where /proc cannot say */
  allocatorCpuMs: number | null;
  allocatorRssBytes: number | null;
  /** the demo process's own CPU over the same span: its Kubernetes API, the simulated allocator beside the real one, ... */
  demoCpuMs: number;
  /** the demo's Kubernetes API over the same span: requests, and ms spent answering them, per kind and per verb:resource */
  kubeRequests: Record<string, number>;
  kubeServeMs: Record<string, number>;
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
