import { describe, expect, it } from "vitest";
import type { PodView } from "./model";
import { ineligibleReason, isEligible, podViewFromObject } from "./eligibility";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const pod = (over: Partial<PodView> = {}): PodView => ({
  name: "agent-a",
  namespace: "obs",
  nodeName: "node-1",
  terminating: false,
  phase: "Running",
  ready: true,
  ...over,
});

describe("podViewFromObject", () => {
  it("reads the fields a TA looks at", () => {
    const v = podViewFromObject({
      metadata: { name: "agent-a", namespace: "obs", deletionTimestamp: "2026-11-01T11:59:00Z" },
      spec: { nodeName: "node-1" },
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-11-01T11:00:00Z" }] },
    });
    expect(v).toEqual({
      name: "agent-a",
      namespace: "obs",
      nodeName: "node-1",
      terminating: true,
      phase: "Running",
      ready: true,
      readySince: Date.parse("2026-11-01T11:00:00Z"),
    });
  });
  it("records since when a pod is not Ready", () => {
    const v = podViewFromObject({
      metadata: { name: "x", namespace: "obs" },
      spec: { nodeName: "n" },
      status: { phase: "Running", conditions: [{ type: "Ready", status: "False", lastTransitionTime: "2026-11-01T11:59:50Z" }] },
    });
    expect(v.ready).toBe(false);
    expect(v.notReadySince).toBe(Date.parse("2026-11-01T11:59:50Z"));
    expect(v.readySince).toBeUndefined();
  });
  it("tolerates a pod without status, spec or metadata", () => {
    expect(podViewFromObject({ metadata: { name: "p", namespace: "n" } })).toEqual({
      name: "p", namespace: "n", nodeName: "", terminating: false, phase: "", ready: false,
    });
    expect(podViewFromObject(null).name).toBe("");
    expect(podViewFromObject({ status: { conditions: "junk" } }).ready).toBe(false);
  });
});

describe("isEligible cloudwatch (all conditions checked at once)", () => {
  it("requires scheduled, not terminating, Running and Ready", () => {
    expect(isEligible(pod(), "cloudwatch", NOW)).toBe(true);
    expect(ineligibleReason(pod({ nodeName: "" }), "cloudwatch", NOW)).toBe("not scheduled");
    expect(ineligibleReason(pod({ terminating: true }), "cloudwatch", NOW)).toBe("terminating");
    expect(ineligibleReason(pod({ phase: "Pending", ready: false }), "cloudwatch", NOW)).toBe("phase Pending");
    expect(ineligibleReason(pod({ phase: "", ready: false }), "cloudwatch", NOW)).toBe("no status");
    expect(ineligibleReason(pod({ ready: false }), "cloudwatch", NOW)).toBe("not Ready");
  });
  it("has no grace period", () => {
    expect(isEligible(pod({ ready: false, notReadySince: NOW - 1 }), "cloudwatch", NOW)).toBe(false);
  });
});

describe("isEligible upstream (grace period)", () => {
  it("requires scheduling", () => {
    expect(ineligibleReason(pod({ nodeName: "" }), "upstream", NOW)).toBe("not scheduled");
  });
  it("keeps a terminating pod that is still Running and Ready", () => {
    expect(isEligible(pod({ terminating: true }), "upstream", NOW)).toBe(true);
  });
  it("keeps a not-Ready pod inside the grace period, drops it after", () => {
    expect(isEligible(pod({ ready: false, notReadySince: NOW - 10_000 }), "upstream", NOW)).toBe(true);
    expect(isEligible(pod({ ready: false, notReadySince: NOW - 30_000 }), "upstream", NOW)).toBe(true);
    expect(ineligibleReason(pod({ ready: false, notReadySince: NOW - 30_001 }), "upstream", NOW)).toBe("not Ready");
    expect(isEligible(pod({ ready: false, notReadySince: NOW - 50_000 }), "upstream", NOW, 60_000)).toBe(true);
  });
  it("counts an unknown not-Ready time as past the grace period", () => {
    expect(ineligibleReason(pod({ ready: false }), "upstream", NOW)).toBe("not Ready");
    expect(ineligibleReason(pod({ phase: "Failed", ready: false }), "upstream", NOW)).toBe("phase Failed");
  });
});
