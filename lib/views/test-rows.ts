/** A TargetRow for view tests: a local kubelet target on n1, overridden field by field. */
import type { TargetRow } from "@/lib/analysis/types";

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
