import { describe, expect, it } from "vitest";
import { timeline } from "@/lib/analysis/churn-buckets";
import type { ReadinessEvent } from "@/lib/analysis/readiness";
import type { ReassignmentRecord } from "@/lib/analysis/reassignments";
import { aggregateChurn, countByBucket, REASSIGNMENTS_READ, timelineFromCounts } from "@/lib/views/churn-aggregate";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const range = { from: NOW - 100_000, to: NOW };

const ev = (at: number, pod: string, role: ReadinessEvent["role"] = "per-node"): ReadinessEvent => ({ at, role, pod, node: "n1", ready: false, kind: "became_not_ready", reason: "x" });
const rec = (at: number, node = "n1"): ReassignmentRecord => ({
  at,
  total: 1,
  byRole: { "per-node": 1 },
  byNode: [{ node, count: 1 }],
  byCollector: [{ role: "per-node", from: "a", to: "b", count: 1 }],
  sample: [{ role: "per-node", job: "j", address: `x:${at}`, node, from: "a", to: "b" }],
});

describe("aggregateChurn", () => {
  it("its timeline is the timeline of the rows", () => {
    const readiness = [ev(NOW - 10, "a"), ev(NOW - 50_000, "b", "cluster-scraper"), ev(NOW - 99_999, "a"), ev(NOW - 200_000, "old")];
    const reassignments = [rec(NOW - 60_000), { ...rec(NOW - 1), byRole: { "per-node": 2, "cluster-scraper": 3 }, total: 5 }];
    const a = aggregateChurn({ readiness, reassignments, polls: [] }, { ...range, buckets: 7 });
    expect(timelineFromCounts(range, 7, a.readinessByBucket, a.reassignmentsByBucket)).toEqual(timeline(range, 7, readiness, reassignments));
    expect(a.eventsInRange).toBe(4); // the rows are the store's: already within the range
    expect(countByBucket(range, 7, readiness)).toHaveLength(3);
  });

  it("narrowed to a node, reads the newest REASSIGNMENTS_READ records and says it left the older out", () => {
    const records = Array.from({ length: REASSIGNMENTS_READ + 1 }, (_, i) => rec(range.from + i));
    const narrowed = aggregateChurn({ readiness: [], reassignments: records, polls: [] }, { ...range, buckets: 1, node: "n1" });
    expect(narrowed.reassignmentsTruncated).toBe(true);
    expect(narrowed.reassignments.total).toBe(REASSIGNMENTS_READ);
    expect(narrowed.reassignments.sample[0].at).toBe(range.from + REASSIGNMENTS_READ); // newest first
    const whole = aggregateChurn({ readiness: [], reassignments: records, polls: [] }, { ...range, buckets: 1 });
    expect(whole.reassignmentsTruncated).toBe(false);
    expect(whole.reassignments.total).toBe(REASSIGNMENTS_READ + 1);
    const few = aggregateChurn({ readiness: [], reassignments: records.slice(0, 10), polls: [] }, { ...range, buckets: 1, node: "n1" });
    expect(few.reassignmentsTruncated).toBe(false);
  });
});
