/**
 * Diagnostics: every manual troubleshooting step of a Target Allocator setup (kubectl get pods/svc/crd, curl /readyz, /jobs,
 * /jobs/<job>/targets?collector_id=...) and every failure mode of per-node allocation (docs/target-allocator.md: stale or
 * not-Ready collectors keeping a node's targets, pods deleted between watch sessions, rollout surge), turned into checks
 * computed from one snapshot. Pure: no I/O, time comes in as nowMs.
 *
 * The checks live in lib/analysis/checks/, one module per family; this entry point runs them in a stable logical order
 * (sources and the TAs' ring limit, collectors, targets, nodes, monitors and their annotation keys, load, churn); views sort by status.
 */
import { context, type Check, type DiagnoseInput } from "./checks/context";
import { collectorsDiscovered, collectorsMissingFromTa, collectorsNotEligible, collectorsUnknownToKubernetes } from "./checks/collectors";
import { collectorFlapping, loadImbalance } from "./checks/load";
import { jobsWithoutTargets, monitorCheck } from "./checks/monitors";
import { scraperAnnotationKey } from "./checks/scraper-key";
import { crossNodeScraping, multiplePodsPerNode, nodesWithoutCollector, perNodeDrift } from "./checks/nodes";
import { kubeRbac, kubeReachable, monitorCrds, taDiscovery, taReachable, taReady } from "./checks/sources";
import { taRingLimit } from "./checks/ring";
import { duplicateTargets, ghostTargets, unassignedGauge, unassignedTargets } from "./checks/targets";

export {
  CHECK_IDS,
  FLAP_FAIL,
  FLAP_WARN,
  IMBALANCE_FAIL,
  IMBALANCE_MIN_MEAN,
  IMBALANCE_WARN,
  LOCALITY_FAIL,
  MAX_EVIDENCE,
  parseSource,
  type Check,
  type CheckId,
  type CheckStatus,
  type ChurnLike,
  type CollectorSelector,
  type DiagnoseInput,
  type FlappingCollector,
  type SourceLike,
} from "./checks/context";
export { cap, formatAge, worst } from "./checks/util";

export function diagnose(input: DiagnoseInput): Check[] {
  const c = context(input);
  const discovery = taDiscovery(c);
  return [
    ...(discovery ? [discovery] : []),
    taReachable(c),
    taReady(c),
    taRingLimit(c),
    kubeReachable(c),
    kubeRbac(c),
    monitorCrds(c),
    collectorsDiscovered(c),
    collectorsMissingFromTa(c),
    collectorsUnknownToKubernetes(c),
    collectorsNotEligible(c),
    ghostTargets(c),
    unassignedTargets(c),
    unassignedGauge(c),
    nodesWithoutCollector(c),
    multiplePodsPerNode(c),
    perNodeDrift(c),
    crossNodeScraping(c),
    monitorCheck(c, "double"),
    monitorCheck(c, "orphaned"),
    monitorCheck(c, "misrouted"),
    scraperAnnotationKey(c),
    jobsWithoutTargets(c),
    duplicateTargets(c),
    loadImbalance(c),
    collectorFlapping(c),
  ];
}
