/**
 * The snapshot: everything known about one cluster at one instant (docs/ARCHITECTURE.md, "The snapshot"), and the status
 * of each source the poller reads. The poller (server/poller.ts) builds them; views, metrics, history and diagnostics read
 * them. Declared here only: pure types (the list of source states is declared with its schema, in lib/api/schemas.ts).
 */
import type { Analysis } from "@/lib/analysis/types";
import type { Flavor, Role } from "@/lib/model";
import { SOURCE_STATES, type DiscoveryView, type SourceView } from "@/lib/api/schemas";

export { SOURCE_STATES };

export type SourceState = (typeof SOURCE_STATES)[number];

/**
 * One source's status (`<cluster>/ta/<role>`, `<cluster>/kube/<what>`): what the API shows of it (`SourceView`, its schema
 * in lib/api/schemas.ts) plus when the poller last tried it.
 */
export interface SourceStatus extends SourceView {
  lastAttempt: number | null;
}

export interface Snapshot {
  cluster: string;
  at: number;
  pollMs: number;
  /** CPU time of the poll's thread during the poll (the poll worker's; lib/thread-cpu.ts) */
  pollCpuMs: number;
  pollIntervalMs: number;
  analysis: Analysis;
  sources: SourceStatus[];
  taRequestsLastPoll: number;
  bytesLastPoll: number;
  /** job answers read by the scanner and by JSON.parse */
  answersLastPoll: { scan: number; parse: number };
  /** the longest stretch the analysis held the event loop (it runs in slices) */
  analysisLongestSliceMs: number;
  /** the TAs read in this poll (configured, or found by discovery) */
  roles: { role: Role; flavor: Flavor }[];
  /** with `targetAllocators: auto`: what discovery found and dropped; null otherwise */
  discovery: DiscoveryView | null;
}
