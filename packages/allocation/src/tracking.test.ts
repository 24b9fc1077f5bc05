import { describe, expect, it } from "vitest";
import type { PodView } from "./model";
import { collectorsOf, emptyTrackState, trackReduce, type TrackEvent } from "./tracking";

const NOW = 1_800_000_000_000;
const pod = (name: string, over: Partial<PodView> = {}): PodView => ({
  name, namespace: "obs", nodeName: `node-${name}`, terminating: false, phase: "Running", ready: true, ...over,
});
const run = (events: TrackEvent[], mode: "ready-only" | "legacy") =>
  events.reduce((s, e) => trackReduce(s, e, mode), emptyTrackState() as ReadonlyMap<string, PodView>);

describe("tracking ready-only (fresh List per watch session)", () => {
  it("a session replaces the registered set", () => {
    const s = run([{ type: "session", pods: [pod("a"), pod("b")] }, { type: "session", pods: [pod("b"), pod("c")] }], "ready-only");
    expect([...s.keys()].sort()).toEqual(["b", "c"]);
  });
  it("ADDED/MODIFIED upsert, DELETED removes", () => {
    const s = run(
      [
        { type: "session", pods: [] },
        { type: "ADDED", pod: pod("a") },
        { type: "MODIFIED", pod: pod("b") },
        { type: "MODIFIED", pod: pod("a", { ready: false }) },
        { type: "DELETED", pod: pod("b") },
      ],
      "ready-only",
    );
    expect([...s.keys()]).toEqual(["a"]);
    expect(s.get("a")!.ready).toBe(false);
  });
  it("collectors are the eligible pods, sorted", () => {
    const s = run(
      [{ type: "session", pods: [pod("c"), pod("a"), pod("b", { ready: false }), pod("d", { terminating: true }), pod("e", { nodeName: "" })] }],
      "ready-only",
    );
    expect(collectorsOf(s, "ready-only", "cloudwatch", NOW)).toEqual([
      { id: "a", node: "node-a" },
      { id: "c", node: "node-c" },
    ]);
    // upstream keeps a terminating pod and a not-Ready pod inside its grace period
    const s2 = trackReduce(s, { type: "MODIFIED", pod: pod("b", { ready: false, notReadySince: NOW - 5_000 }) }, "ready-only");
    expect(collectorsOf(s2, "ready-only", "upstream", NOW).map((c) => c.id)).toEqual(["a", "b", "c", "d"]);
  });
  it("does not mutate the input state", () => {
    const s0 = run([{ type: "session", pods: [pod("a")] }], "ready-only");
    trackReduce(s0, { type: "DELETED", pod: pod("a") }, "ready-only");
    expect(s0.size).toBe(1);
  });
});

describe("tracking legacy (the fork before the per-node change)", () => {
  it("keeps a pod deleted between watch sessions", () => {
    const s = run([{ type: "session", pods: [pod("a"), pod("b")] }, { type: "session", pods: [pod("b"), pod("c")] }], "legacy");
    expect([...s.keys()].sort()).toEqual(["a", "b", "c"]);
  });
  it("a List registers only scheduled pods that are not terminating", () => {
    const s = run([{ type: "session", pods: [pod("a"), pod("b", { nodeName: "" }), pod("c", { terminating: true })] }], "legacy");
    expect([...s.keys()]).toEqual(["a"]);
  });
  it("ADDED and MODIFIED register a scheduled pod whatever its phase and readiness, and take its node", () => {
    const s = run(
      [
        { type: "ADDED", pod: pod("a") },
        { type: "MODIFIED", pod: pod("a", { ready: false, phase: "Failed", nodeName: "elsewhere" }) },
        { type: "ADDED", pod: pod("z", { ready: false, phase: "Pending" }) },
        { type: "ADDED", pod: pod("u", { nodeName: "" }) },
        { type: "MODIFIED", pod: pod("z", { nodeName: "" }) },
        { type: "MODIFIED", pod: pod("t", { terminating: true }) },
      ],
      "legacy",
    );
    expect(collectorsOf(s, "legacy", "cloudwatch", NOW)).toEqual([
      { id: "a", node: "elsewhere" },
      { id: "t", node: "node-t" },
      { id: "z", node: "node-z" },
    ]);
  });
  it("removes only on DELETED", () => {
    const s = run([{ type: "ADDED", pod: pod("a") }, { type: "DELETED", pod: pod("a") }], "legacy");
    expect(s.size).toBe(0);
  });
});
