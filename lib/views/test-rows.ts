/** Rows for view tests, overridden field by field. */
import { emptyClassCounts, type RoleSummary, type TargetRow } from "@/lib/analysis/types";

/** A local kubelet target on n1. */

export const targetRow = (over: Partial<TargetRow> = {}): TargetRow => ({
  role: "per-node",
  job: "kubelet",
  address: "10.0.0.1:10250",
  node: "n1",
  zone: "a",
  collector: "agent-1",
  collectorNode: "n1",
  collectorZone: "a",
  class: "local",
  reason: null,
  expected: null,
  ...over,
});

/** A per-node role with its TA ready, 2 of 3 collectors eligible, 6 targets over 2 jobs. */
export const roleSummary = (over: Partial<RoleSummary> = {}): RoleSummary => ({
  role: "per-node",
  flavor: "cloudwatch",
  strategy: "per-node",
  taReady: true,
  collectorsTotal: 3,
  collectorsEligible: 2,
  targets: 6,
  classes: emptyClassCounts(),
  unassigned: 0,
  unassignedReported: 0,
  localityRatio: 1,
  imbalance: { maxOverMean: null, cv: null },
  jobs: 2,
  staticJobs: [],
  taOnlyCollectors: [],
  missingFromTa: [],
  drift: 0,
  jobsWithoutTargets: [],
  ...over,
});
