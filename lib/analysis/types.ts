/** Inputs and view-shaped outputs of the allocation analysis. Pure data: routes return these as JSON. */
import type { Flavor, MonitorRef, Ownership, PodView, Role, TargetClass } from "@/lib/model";
import type { JobAssignment } from "@/lib/ta/extract";

export interface NodeInfo {
  name: string;
  zone: string | null;
  instanceType: string | null;
  ready: boolean;
}

export interface AgentPod extends PodView {
  restarts: number;
  startTime?: number;
}

/** What the TA served at its last good read. */
export interface TaView {
  ready: boolean;
  /** job -> its targets with their collectors, as the TA lists them (unassigned targets appear nowhere) */
  jobs: ReadonlyMap<string, JobAssignment>;
  collectors: readonly string[];
  unassignedLive: number | null;
  unassignedReported: number | null;
  strategy: string | null;
  scrapeConfigJobs: readonly string[] | null;
}

export interface RoleInput {
  flavor: Flavor;
  pods: readonly AgentPod[];
  ta: TaView | null;
}

export interface AnalysisInput {
  cluster: string;
  nowMs: number;
  annotationKey: string;
  nodes: readonly NodeInfo[];
  roles: Partial<Record<Role, RoleInput>>;
  /** null when neither monitor CRD could be read */
  monitors: readonly MonitorRef[] | null;
}

export interface TargetRow {
  role: Role;
  job: string;
  address: string;
  node: string | null;
  zone: string | null;
  collector: string;
  collectorNode: string | null;
  collectorZone: string | null;
  class: TargetClass;
  /** why the collector is not eligible, for ghosts */
  reason: string | null;
  /** per-node role only: the collector the strategy would pick from the Kubernetes view, when it differs */
  expected: string | null;
}

export type ClassCounts = Record<TargetClass, number>;

export interface CollectorRow {
  role: Role;
  id: string;
  node: string | null;
  zone: string | null;
  /** known to Kubernetes (a pod matching the selector) */
  inKubernetes: boolean;
  /** listed by the TA */
  inTa: boolean;
  eligible: boolean;
  reason: string | null;
  phase: string | null;
  ready: boolean;
  restarts: number;
  targets: number;
  share: number;
}

export interface RoleSummary {
  role: Role;
  flavor: Flavor;
  strategy: string | null;
  taReady: boolean | null;
  collectorsTotal: number;
  collectorsEligible: number;
  targets: number;
  classes: ClassCounts;
  unassigned: number | null;
  unassignedReported: number | null;
  localityRatio: number | null;
  imbalance: { maxOverMean: number | null; cv: number | null };
  jobs: number;
  staticJobs: string[];
  /** collectors the TA lists that Kubernetes does not know */
  taOnlyCollectors: string[];
  /** eligible pods the TA does not list (yet) */
  missingFromTa: string[];
  drift: number;
  /** job names of /scrape_configs without any target in /jobs; null when /scrape_configs could not be read */
  jobsWithoutTargets: string[] | null;
}

export type NodeState = "healthy" | "degraded" | "no_collector" | "ghosts" | "idle";

export interface NodeRow {
  name: string;
  zone: string | null;
  instanceType: string | null;
  ready: boolean;
  state: NodeState;
  /** agent pods on this node, per role */
  collectors: { role: Role; id: string; eligible: boolean; reason: string | null }[];
  /** targets located on this node (by their node), by class */
  targets: ClassCounts;
  /** of those, scraped by a collector on another node */
  scrapedElsewhere: number;
  /** targets of other nodes (or nodeless) scraped by this node's collectors */
  scrapedHereForOthers: number;
  /** two or more per-node agent pods on this node (a rollout surge) */
  multiplePods: boolean;
}

export interface MonitorRow extends MonitorRef {
  annotation: string | null;
  expectedRole: Role;
  holders: Role[];
  ownership: Ownership;
  targets: Partial<Record<Role, number>>;
  jobs: string[];
}

export interface Duplicate {
  job: string;
  address: string;
  holders: { role: Role; collector: string }[];
}

export interface Analysis {
  cluster: string;
  at: number;
  roles: Partial<Record<Role, RoleSummary>>;
  collectors: CollectorRow[];
  targets: TargetRow[];
  nodes: NodeRow[];
  monitors: MonitorRow[] | null;
  monitorCounts: Record<Ownership, number> | null;
  duplicates: Duplicate[];
  nodesWithoutCollector: string[];
}

export const emptyClassCounts = (): ClassCounts => ({ ghost: 0, nodeless: 0, local: 0, cross_zone: 0, cross_node: 0 });
