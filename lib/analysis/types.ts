/**
 * Inputs and view-shaped outputs of the allocation analysis. Pure data: routes return the outputs as JSON, so the row types
 * are the API's: declared by their schemas in lib/api/schemas.ts (`z.infer`), re-exported here for the analysis.
 */
import type { Flavor, MonitorRef, Ownership, PodView, Role } from "@/lib/model";
import type { JobAssignment } from "@/lib/ta/extract";
import type { ClassCounts, CollectorRow, MonitorRow, NodeRow, RoleSummary, TargetRow } from "@/lib/api/schemas";

export type { ClassCounts, CollectorRow, MonitorRow, NodeRow, NodeState, RoleSummary, TargetRow } from "@/lib/api/schemas";

/** A node as the analysis reads it (the first fields of its NodeRow). */
export type NodeInfo = Pick<NodeRow, "name" | "zone" | "instanceType" | "ready">;

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
  /** the configured scraper-annotation key; null: both spellings are recognised (lib/routing's recognisedScraperKeys) */
  scraperAnnotation: string | null;
  nodes: readonly NodeInfo[];
  roles: Partial<Record<Role, RoleInput>>;
  /** null when neither monitor CRD could be read */
  monitors: readonly MonitorRef[] | null;
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
  /** the input's scraperAnnotation: the checks judge annotations by the keys the rows were classified with */
  scraperAnnotation: string | null;
  duplicates: Duplicate[];
  nodesWithoutCollector: string[];
}

export const emptyClassCounts = (): ClassCounts => ({ ghost: 0, nodeless: 0, local: 0, cross_zone: 0, cross_node: 0 });
