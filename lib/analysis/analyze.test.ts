import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { analyze, analyzeSteps } from "@/lib/analysis/analyze";
import { parseJobName } from "@/lib/routing";
import type { AgentPod, AnalysisInput, NodeInfo, TaView } from "@/lib/analysis/types";
import type { Role } from "@/lib/model";

const nodes: NodeInfo[] = ["n1", "n2", "n3", "n4"].map((name, i) => ({ name, zone: `z${i % 2}`, instanceType: null, ready: true }));
const pod = (name: string, nodeName: string, ready = true): AgentPod => ({ name, namespace: "agents", nodeName, terminating: false, phase: "Running", ready, restarts: 0 });

type Spec = { job: string; targets: [address: string, node: string | null, collector: string][] };
function ta(specs: Spec[], collectors: string[]): TaView {
  return {
    ready: true,
    jobs: new Map(specs.map((s) => [s.job, { targets: s.targets.map(([address, node, collector]) => ({ address, node, collector })) }])),
    collectors,
    unassignedLive: 0,
    unassignedReported: 0,
    strategy: "per-node",
    scrapeConfigJobs: null,
  };
}

function input(perNode: Spec[], clusterScraper: Spec[]): AnalysisInput {
  const pn = [pod("a1", "n1"), pod("a2", "n2"), pod("a3", "n3", false)];
  const cs = [pod("cs1", "n4")];
  return {
    cluster: "c",
    nowMs: 1_700_000_000_000,
    scraperAnnotation: "k",
    nodes,
    monitors: [
      { kind: "ServiceMonitor", namespace: "ns", name: "web", annotations: {}, endpoints: 2 },
      { kind: "ServiceMonitor", namespace: "ns", name: "ksm", annotations: { k: "cluster-scraper" }, endpoints: 1 },
    ],
    roles: {
      "per-node": { flavor: "cloudwatch", pods: pn, ta: ta(perNode, pn.map((p) => p.name)) },
      "cluster-scraper": { flavor: "cloudwatch", pods: cs, ta: ta(clusterScraper, ["cs1"]) },
    },
  };
}

describe("analyze", () => {
  it("finds a target held twice in one TA and in both TAs, with every holder", () => {
    const a = analyze(
      input(
        [
          { job: "serviceMonitor/ns/web/0", targets: [["10.0.0.1:80", "n1", "a1"], ["10.0.0.2:80", "n2", "a2"], ["10.0.0.1:80", "n1", "a2"]] },
          { job: "serviceMonitor/ns/web/1", targets: [["10.0.0.1:80", "n1", "a1"]] },
        ],
        [{ job: "serviceMonitor/ns/web/0", targets: [["10.0.0.1:80", "n1", "cs1"], ["10.0.0.2:80", "n2", "cs1"]] }],
      ),
    );
    expect(a.duplicates).toEqual([
      { job: "serviceMonitor/ns/web/0", address: "10.0.0.1:80", holders: [{ role: "per-node", collector: "a1" }, { role: "per-node", collector: "a2" }, { role: "cluster-scraper", collector: "cs1" }] },
      { job: "serviceMonitor/ns/web/0", address: "10.0.0.2:80", holders: [{ role: "per-node", collector: "a2" }, { role: "cluster-scraper", collector: "cs1" }] },
    ]);
    // the same address under another job is another target, not a duplicate
    expect(a.duplicates.some((d) => d.job === "serviceMonitor/ns/web/1")).toBe(false);
    const web = a.monitors!.find((m) => m.name === "web")!;
    expect(web.ownership).toBe("double");
    expect(web.targets).toEqual({ "per-node": 4, "cluster-scraper": 2 });
  });

  const address = fc.constantFrom("10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:9100", "10.0.0.4:9100");
  const job = fc.constantFrom("serviceMonitor/ns/web/0", "serviceMonitor/ns/web/1", "serviceMonitor/ns/ksm/0", "podMonitor/ns/web/0", "static-job");
  const spec = (collectors: string[]) =>
    fc.array(fc.record({ job, targets: fc.array(fc.tuple(address, fc.constantFrom("n1", "n2", "n3", "n4", null), fc.constantFrom(...collectors, "gone")), { maxLength: 12 }) }), { maxLength: 6 })
      .map((specs) => [...new Map(specs.map((s) => [s.job, s])).values()]);

  it("gives the same analysis run step by step as at once, yielding between jobs", () => {
    fc.assert(
      fc.property(spec(["a1", "a2", "a3"]), spec(["cs1"]), (pn, cs) => {
        const i = input(pn, cs);
        const steps = analyzeSteps(i);
        let yields = 0;
        let r = steps.next();
        while (!r.done) {
          yields++;
          r = steps.next();
        }
        expect(yields).toBeGreaterThanOrEqual(pn.length + cs.length);
        expect(r.value).toEqual(analyze(i));
      }),
      { numRuns: 60 },
    );
  });

  it("counts each monitor's targets per TA as the rows of its jobs, and every row in one class", () => {
    fc.assert(
      fc.property(spec(["a1", "a2", "a3"]), spec(["cs1"]), (pn, cs) => {
        const a = analyze(input(pn, cs));
        for (const m of a.monitors!) {
          const want: Partial<Record<Role, number>> = {};
          for (const t of a.targets) {
            const p = parseJobName(t.job);
            if (p && p.namespace === m.namespace && p.name === m.name && p.kind === m.kind) want[t.role] = (want[t.role] ?? 0) + 1;
          }
          expect(m.targets).toEqual(want);
        }
        for (const role of ["per-node", "cluster-scraper"] as const) {
          const r = a.roles[role]!;
          expect(Object.values(r.classes).reduce((s, n) => s + n, 0)).toBe(a.targets.filter((t) => t.role === role).length);
        }
      }),
      { numRuns: 60 },
    );
  });
});
