import { describe, expect, it } from "vitest";
import { analyze } from "@/lib/analysis/analyze";
import type { AgentPod, AnalysisInput, NodeInfo, TaView } from "@/lib/analysis/types";
import { summaryViewSchema } from "@/lib/api/schemas";
import { toSummaryView } from "./summary";

const nodes: NodeInfo[] = ["n1", "n2", "n3", "n4"].map((name, i) => ({ name, zone: `z${i % 2}`, instanceType: null, ready: true }));
const pod = (name: string, nodeName: string, ready = true): AgentPod => ({ name, namespace: "agents", nodeName, terminating: false, phase: "Running", ready, restarts: 0 });

function ta(strategy: string, jobs: Record<string, [address: string, node: string | null, collector: string][]>, collectors: string[]): TaView {
  return {
    ready: true,
    jobs: new Map(Object.entries(jobs).map(([job, targets]) => [job, { targets: targets.map(([address, node, collector]) => ({ address, node, collector })) }])),
    collectors,
    unassignedLive: 0,
    unassignedReported: 0,
    strategy,
    scrapeConfigJobs: null,
  };
}

function input(monitors: AnalysisInput["monitors"]): AnalysisInput {
  const pn = [pod("a1", "n1"), pod("a2", "n2")];
  // cs3 is not Ready: its target is a ghost, and it is left out of the targets per collector
  const cs = [pod("cs1", "n3"), pod("cs2", "n4"), pod("cs3", "n4", false)];
  return {
    cluster: "c",
    nowMs: 1_700_000_000_000,
    scraperAnnotation: "k",
    nodes,
    monitors,
    roles: {
      "per-node": { flavor: "cloudwatch", pods: pn, ta: ta("per-node", { "serviceMonitor/ns/web/0": [["10.0.0.1:80", "n1", "a1"], ["10.0.0.2:80", "n2", "a2"]] }, ["a1", "a2"]) },
      "cluster-scraper": {
        flavor: "cloudwatch",
        pods: cs,
        ta: ta(
          "consistent-hashing",
          {
            "serviceMonitor/ns/ksm/0": [["10.0.1.1:8080", "n1", "cs1"], ["10.0.1.2:8080", "n2", "cs2"], ["10.0.1.4:8080", "n4", "cs3"]],
            "kubernetes-apiservers": [["172.20.0.1:443", null, "cs1"]],
          },
          ["cs1", "cs2", "cs3"],
        ),
      },
    },
  };
}

const monitors: AnalysisInput["monitors"] = [
  { kind: "ServiceMonitor", namespace: "ns", name: "web", annotations: {}, endpoints: 1 },
  { kind: "ServiceMonitor", namespace: "ns", name: "ksm", annotations: { k: "cluster-scraper" }, endpoints: 1 },
  { kind: "ServiceMonitor", namespace: "ns", name: "coredns", annotations: { k: "cluster-scraper" }, endpoints: 1 },
];

const view = (m: AnalysisInput["monitors"]) => {
  const a = analyze(input(m));
  return toSummaryView({ cluster: a.cluster, at: a.at, pollIntervalMs: 5000, sources: [], analysis: a });
};

describe("toSummaryView", () => {
  it("gives each role its monitors by state, targets per eligible collector and targets by zone", () => {
    const v = view(monitors);
    expect(summaryViewSchema.parse(v)).toEqual(v);
    expect(v.roleDetails["cluster-scraper"]).toEqual({
      // ksm is held by the cluster-scraper's TA; coredns is routed to it and held by nobody
      monitors: { ok: 1, double: 0, orphaned: 1, misrouted: 0 },
      perCollector: { collectors: 2, min: 1, max: 2, mean: 1.5 },
      zones: [
        { zone: "z0", count: 1 },
        { zone: "z1", count: 2 },
        { zone: "(no node)", count: 1 },
      ],
    });
    expect(v.roleDetails["per-node"]).toEqual({
      monitors: { ok: 1, double: 0, orphaned: 0, misrouted: 0 },
      perCollector: { collectors: 2, min: 1, max: 1, mean: 1 },
      zones: [
        { zone: "z0", count: 1 },
        { zone: "z1", count: 1 },
      ],
    });
    // the role's locality stays in its summary
    expect(v.roles["cluster-scraper"]?.localityRatio).toBe(0);
  });

  it("says the monitors are unknown when no monitor CRD could be read", () => {
    const v = view(null);
    expect(v.monitors).toBeNull();
    expect(v.roleDetails["cluster-scraper"]?.monitors).toBeNull();
    expect(v.roleDetails["cluster-scraper"]?.zones).toHaveLength(3);
  });
});
