/**
 * Test support: monitor rows as the analysis classifies them when each TA reads one scraper-annotation key, as a real TA
 * (and the demo's) does: a TA holds (one job with one target of) every monitor keepsMonitor lets it keep.
 */
import type { MonitorRef, Role } from "@/lib/model";
import { jobName, keepsMonitor } from "@/lib/routing";
import { analyzeMonitors } from "@/lib/analysis/monitors";
import type { AnalysisInput, MonitorRow, TaView } from "@/lib/analysis/types";
import type { JobAssignment } from "@/lib/ta/extract";

export const monitorRef = (name: string, annotations: Record<string, string> = {}): MonitorRef => ({ kind: "ServiceMonitor", namespace: "obs", name, annotations, endpoints: 1 });

function ta(monitors: readonly MonitorRef[], keep: (m: MonitorRef) => boolean): TaView {
  const jobs = monitors.filter(keep).map((m): [string, JobAssignment] => [jobName(m.kind, m.namespace, m.name, 0), { targets: [{ address: "10.0.0.1:80", node: null, collector: "c0" }] }]);
  return { ready: true, jobs: new Map(jobs), collectors: ["c0"], unassignedLive: 0, unassignedReported: 0, strategy: null, scrapeConfigJobs: null };
}

/**
 * analyzeMonitors over TAs that read `taKeys[role]` (the roles given are the TAs read); `configured` is the dashboard's
 * scraperAnnotation (null: both spellings).
 */
export function monitorRows(monitors: readonly MonitorRef[], taKeys: Partial<Record<Role, string | null>>, configured: string | null = null) {
  const input: AnalysisInput = {
    cluster: "c1",
    nowMs: 0,
    scraperAnnotation: configured,
    nodes: [],
    monitors,
    // a role whose key is null is configured but its TA was never read
    roles: Object.fromEntries(Object.entries(taKeys).map(([r, key]) => [r, { flavor: "cloudwatch", pods: [], ta: key === null ? null : ta(monitors, (m) => keepsMonitor(r as Role, m, key!)) }])),
  };
  const out = analyzeMonitors(input)!;
  return { ...out, row: (name: string): MonitorRow => out.rows.find((m) => m.name === name)! };
}
