/**
 * The allocation analysis: from what Kubernetes and the TAs say, one view-shaped Analysis of a cluster.
 * Pure: no I/O, time comes in as nowMs.
 *
 * At 5,000 nodes a cluster has ~150,000 targets and the analysis takes a few hundred milliseconds: too long to hold the
 * server's event loop. `analyzeSteps` is the same computation as a generator that yields between jobs (and every few
 * thousand rows in the later passes), so the server can run it in slices and answer API requests in between
 * (server/cooperative.ts); `analyze` runs it to the end at once.
 */
import type { Collector, Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { isEligible, ineligibleReason } from "@allocation-lens/allocation/eligibility";
import { expectedCollectorByNode } from "@allocation-lens/allocation/strategies";
import { classify, imbalance, localityRatio, type CollectorFacts } from "@/lib/analysis/classify";
import { analyzeMonitors } from "@/lib/analysis/monitors";
import { buildNodesSteps } from "@/lib/analysis/nodes";
import { runToEnd, type Steps } from "@/lib/steps";
import {
  emptyClassCounts,
  type Analysis,
  type AnalysisInput,
  type CollectorRow,
  type Duplicate,
  type RoleSummary,
  type TargetRow,
} from "@/lib/analysis/types";

/** Ghost means "not eligible right now", whatever grace period the TA's flavor applies. */
const STRICT = "cloudwatch" as const;

export function analyze(input: AnalysisInput): Analysis {
  return runToEnd(analyzeSteps(input));
}

/** A target seen once so far for its job and address: its row; seen in two places: the duplicate. */
type Seen = TargetRow | Duplicate;
const isDuplicate = (s: Seen): s is Duplicate => "holders" in s;

export function* analyzeSteps(input: AnalysisInput): Steps<Analysis> {
  const zoneOf = new Map(input.nodes.map((n) => [n.name, n.zone]));
  const roles: Partial<Record<Role, RoleSummary>> = {};
  const collectors: CollectorRow[] = [];
  const targets: TargetRow[] = [];
  // job -> address -> where it was seen: one map per job instead of a "job + address" key per target (no string built
  // per target); a Duplicate object only for targets held twice.
  const seen = new Map<string, Map<string, Seen>>();
  const duplicates: Duplicate[] = [];

  for (const role of ROLES) {
    const ri = input.roles[role];
    if (!ri) continue;
    const podsByName = new Map(ri.pods.map((p) => [p.name, p]));
    const facts = new Map<string, CollectorFacts & { reason: string | null }>();
    for (const p of ri.pods) {
      const eligible = isEligible(p, STRICT, input.nowMs);
      facts.set(p.name, {
        eligible,
        node: p.nodeName || null,
        zone: p.nodeName ? (zoneOf.get(p.nodeName) ?? null) : null,
        reason: eligible ? null : ineligibleReason(p, STRICT, input.nowMs),
      });
    }
    const eligibleCollectors: Collector[] = ri.pods
      .filter((p) => isEligible(p, ri.flavor, input.nowMs))
      .map((p) => ({ id: p.name, node: p.nodeName }));
    const expectedByNode = expectedCollectorByNode(eligibleCollectors);
    const ta = ri.ta;
    const classes = emptyClassCounts();
    const perCollector = new Map<string, number>();
    let drift = 0;
    let total = 0;
    const staticJobs: string[] = [];
    for (const [job, assignment] of ta?.jobs ?? []) {
      if (!job.startsWith("serviceMonitor/") && !job.startsWith("podMonitor/")) staticJobs.push(job);
      for (const { address, node, collector } of assignment.targets) {
        const zone = node ? (zoneOf.get(node) ?? null) : null;
        const f = facts.get(collector);
        const cls = classify(node, zone, f);
        classes[cls]++;
        total++;
        perCollector.set(collector, (perCollector.get(collector) ?? 0) + 1);
        let expected: string | null = null;
        if (role === "per-node" && node) {
          const want = expectedByNode.get(node);
          if (want && want !== collector) {
            expected = want;
            drift++;
          }
        }
        const row: TargetRow = {
          role,
          job,
          address,
          node,
          zone,
          collector,
          collectorNode: f?.node ?? null,
          collectorZone: f?.zone ?? null,
          class: cls,
          reason: cls === "ghost" ? (f ? f.reason : "not a pod in Kubernetes (deleted or never existed)") : null,
          expected,
        };
        targets.push(row);
        let byAddress = seen.get(job);
        if (!byAddress) seen.set(job, (byAddress = new Map()));
        const first = byAddress.get(address);
        if (first === undefined) byAddress.set(address, row);
        else if (isDuplicate(first)) first.holders.push({ role, collector });
        else {
          const d: Duplicate = { job, address, holders: [{ role: first.role, collector: first.collector }, { role, collector }] };
          byAddress.set(address, d);
          duplicates.push(d);
        }
      }
      yield;
    }
    const taCollectors = new Set(ta?.collectors ?? []);
    const ids = new Set([...podsByName.keys(), ...taCollectors]);
    for (const id of [...ids].sort()) {
      const p = podsByName.get(id);
      const f = facts.get(id);
      const n = perCollector.get(id) ?? 0;
      collectors.push({
        role,
        id,
        node: f?.node ?? null,
        zone: f?.zone ?? null,
        inKubernetes: Boolean(p),
        inTa: taCollectors.has(id),
        eligible: f?.eligible ?? false,
        reason: f ? f.reason : "not a pod in Kubernetes",
        phase: p?.phase || null,
        ready: p?.ready ?? false,
        restarts: p?.restarts ?? 0,
        targets: n,
        share: total ? n / total : 0,
      });
    }
    const eligibleCounts = collectors.filter((c) => c.role === role && c.eligible && c.inTa).map((c) => c.targets);
    roles[role] = {
      role,
      flavor: ri.flavor,
      strategy: ta?.strategy ?? null,
      taReady: ta ? ta.ready : null,
      collectorsTotal: ri.pods.length,
      collectorsEligible: [...facts.values()].filter((f) => f.eligible).length,
      targets: total,
      classes,
      unassigned: ta?.unassignedLive ?? null,
      unassignedReported: ta?.unassignedReported ?? null,
      localityRatio: localityRatio(classes),
      imbalance: imbalance(eligibleCounts),
      jobs: ta?.jobs.size ?? 0,
      staticJobs: staticJobs.sort(),
      taOnlyCollectors: [...taCollectors].filter((id) => !podsByName.has(id)).sort(),
      missingFromTa: ta ? eligibleCollectors.map((c) => c.id).filter((id) => !taCollectors.has(id)).sort() : [],
      drift,
      jobsWithoutTargets: ta?.scrapeConfigJobs ? ta.scrapeConfigJobs.filter((j) => !ta.jobs.has(j)) : null,
    };
  }

  const monitors = analyzeMonitors(input);
  const nodes = yield* buildNodesSteps(input, collectors, targets);
  return {
    cluster: input.cluster,
    at: input.nowMs,
    roles,
    collectors,
    targets,
    nodes,
    monitors: monitors?.rows ?? null,
    monitorCounts: monitors?.counts ?? null,
    scraperAnnotation: input.scraperAnnotation,
    duplicates,
    nodesWithoutCollector: nodes.filter((n) => n.state === "no_collector").map((n) => n.name),
  };
}
