import { describe, expect, it } from "vitest";
import type { Flavor, MonitorRef, Ownership, Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { CLUSTER_SCRAPER_VALUE, DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION, SCRAPER_ANNOTATIONS, expectedRoute } from "@/lib/routing";
import { classify, imbalance, localityRatio } from "@/lib/analysis/classify";
import { buildNodes } from "@/lib/analysis/nodes";
import { monitorRef, monitorRows } from "@/test/fixtures/monitors";
import {
  emptyClassCounts,
  type Analysis,
  type AnalysisInput,
  type CollectorRow,
  type Duplicate,
  type MonitorRow,
  type NodeInfo,
  type RoleSummary,
  type TargetRow,
} from "@/lib/analysis/types";
import { CHECK_IDS, cap, diagnose, worst, type Check, type CheckStatus, type DiagnoseInput, type SourceLike } from "@/lib/analysis/diagnostics";
import { diagnosticsOptions } from "@/lib/views/diagnostics";

// ---- a small hand-built world -----------------------------------------------------------------------------------------------

interface Pod {
  role: Role;
  id: string;
  node: string | null;
  eligible?: boolean;
  reason?: string | null;
  inTa?: boolean;
  inKubernetes?: boolean;
  restarts?: number;
}
interface T {
  role: Role;
  job: string;
  address: string;
  node: string | null;
  collector: string;
}
interface World {
  nodes: NodeInfo[];
  pods: Pod[];
  targets: T[];
  monitors: MonitorRow[] | null;
  roles: Partial<Record<Role, Partial<RoleSummary> & { flavor: Flavor }>>;
  /** the configured scraper-annotation key; absent: both spellings */
  scraperAnnotation?: string | null;
}

const NOW = 1_800_000_000_000;

/** A monitor row in a given state; its expected role and recognised keys come from `over.annotations` (both spellings). */
function monitor(name: string, ownership: Ownership, over: Partial<MonitorRow> = {}): MonitorRow {
  const route = expectedRoute(over.annotations, SCRAPER_ANNOTATIONS);
  const expectedRole: Role = route.role ?? "per-node";
  const holders: Role[] =
    ownership === "ok" ? [expectedRole] : ownership === "double" ? [...ROLES] : ownership === "orphaned" ? [] : [expectedRole === "per-node" ? "cluster-scraper" : "per-node"];
  return {
    kind: "ServiceMonitor",
    namespace: "obs",
    name,
    annotations: {},
    endpoints: 1,
    annotation: route.carried[0]?.value ?? null,
    scraperAnnotations: route.carried,
    expectedRole: route.role,
    holders,
    ownership,
    targets: {},
    jobs: [`serviceMonitor/obs/${name}/0`],
    ...over,
  };
}

/** Three nodes in two zones, a healthy per-node agent (cloudwatch) and a two-replica cluster-scraper. */
function world(): World {
  const nodes: NodeInfo[] = [
    { name: "node-a1", zone: "zone-a", instanceType: "m5.large", ready: true },
    { name: "node-a2", zone: "zone-a", instanceType: "m5.large", ready: true },
    { name: "node-b1", zone: "zone-b", instanceType: "m5.large", ready: true },
  ];
  const pods: Pod[] = [
    { role: "per-node", id: "agent-a1", node: "node-a1" },
    { role: "per-node", id: "agent-a2", node: "node-a2" },
    { role: "per-node", id: "agent-b1", node: "node-b1" },
    { role: "cluster-scraper", id: "scraper-0", node: "node-a1" },
    { role: "cluster-scraper", id: "scraper-1", node: "node-b1" },
  ];
  const targets: T[] = [];
  for (const [i, n] of nodes.entries()) {
    for (let k = 0; k < 6; k++)
      targets.push({ role: "per-node", job: "serviceMonitor/obs/node-exporter/0", address: `10.0.${i}.${k}:9100`, node: n.name, collector: `agent-${n.name.slice(5)}` });
  }
  for (let k = 0; k < 12; k++)
    targets.push({ role: "cluster-scraper", job: "serviceMonitor/obs/ksm/0", address: `10.1.0.${k}:8080`, node: null, collector: k % 2 ? "scraper-1" : "scraper-0" });
  return {
    nodes,
    pods,
    targets,
    monitors: [monitor("node-exporter", "ok"), monitor("ksm", "ok", { annotations: { [DEFAULT_SCRAPER_ANNOTATION]: CLUSTER_SCRAPER_VALUE } })],
    roles: {
      "per-node": { flavor: "cloudwatch", strategy: "per-node", unassigned: 0, unassignedReported: 0 },
      "cluster-scraper": { flavor: "cloudwatch", strategy: "consistent-hashing", unassigned: 0, unassignedReported: 0 },
    },
  };
}

function build(w: World): Analysis {
  const zoneOf = new Map(w.nodes.map((n) => [n.name, n.zone]));
  const collectors: CollectorRow[] = [];
  const targets: TargetRow[] = [];
  const roles: Partial<Record<Role, RoleSummary>> = {};
  const dup = new Map<string, Duplicate>();
  for (const role of ROLES) {
    const ro = w.roles[role];
    if (!ro) continue;
    const pods = w.pods.filter((p) => p.role === role);
    const fact = (id: string) => {
      const p = pods.find((x) => x.id === id && x.inKubernetes !== false);
      return p ? { eligible: p.eligible ?? true, node: p.node, zone: p.node ? (zoneOf.get(p.node) ?? null) : null, reason: p.reason ?? (p.eligible === false ? "not Ready" : null) } : undefined;
    };
    const classes = emptyClassCounts();
    const per = new Map<string, number>();
    let drift = 0;
    for (const t of w.targets.filter((x) => x.role === role)) {
      const f = fact(t.collector);
      const zone = t.node ? (zoneOf.get(t.node) ?? null) : null;
      const cls = classify(t.node, zone, f);
      classes[cls]++;
      per.set(t.collector, (per.get(t.collector) ?? 0) + 1);
      let expected: string | null = null;
      if (role === "per-node" && t.node) {
        const want = pods
          .filter((p) => p.node === t.node && (p.eligible ?? true) && p.inKubernetes !== false)
          .map((p) => p.id)
          .sort()[0];
        if (want && want !== t.collector) {
          expected = want;
          drift++;
        }
      }
      targets.push({ ...t, zone, collectorNode: f?.node ?? null, collectorZone: f?.zone ?? null, class: cls, reason: cls === "ghost" ? (f?.reason ?? "not a pod in Kubernetes") : null, expected });
      const k = `${t.job}\u0000${t.address}`;
      const d = dup.get(k);
      if (d) d.holders.push({ role, collector: t.collector });
      else dup.set(k, { job: t.job, address: t.address, holders: [{ role, collector: t.collector }] });
    }
    const total = [...per.values()].reduce((s, v) => s + v, 0);
    for (const p of pods) {
      const f = fact(p.id);
      collectors.push({
        role,
        id: p.id,
        node: f?.node ?? null,
        zone: f?.zone ?? null,
        inKubernetes: p.inKubernetes !== false,
        inTa: p.inTa !== false,
        eligible: f?.eligible ?? false,
        reason: f ? f.reason : "not a pod in Kubernetes",
        phase: "Running",
        ready: f?.eligible ?? false,
        restarts: p.restarts ?? 0,
        targets: per.get(p.id) ?? 0,
        share: total ? (per.get(p.id) ?? 0) / total : 0,
      });
    }
    const inK = pods.filter((p) => p.inKubernetes !== false);
    const eligibleIds = inK.filter((p) => p.eligible ?? true).map((p) => p.id);
    roles[role] = {
      role,
      strategy: null,
      taReady: true,
      collectorsTotal: inK.length,
      collectorsEligible: eligibleIds.length,
      targets: total,
      classes,
      unassigned: 0,
      unassignedReported: 0,
      localityRatio: localityRatio(classes),
      imbalance: imbalance(collectors.filter((c) => c.role === role && c.eligible && c.inTa).map((c) => c.targets)),
      jobs: new Set(w.targets.filter((t) => t.role === role).map((t) => t.job)).size,
      staticJobs: [],
      taOnlyCollectors: pods.filter((p) => p.inKubernetes === false && p.inTa !== false).map((p) => p.id),
      missingFromTa: pods.filter((p) => p.inKubernetes !== false && (p.eligible ?? true) && p.inTa === false).map((p) => p.id),
      drift,
      jobsWithoutTargets: [],
      ...ro,
    };
  }
  const nodeInput = { nodes: w.nodes, roles: Object.fromEntries(Object.keys(roles).map((r) => [r, {}])) } as unknown as AnalysisInput;
  const nodes = buildNodes(nodeInput, collectors, targets);
  let monitorCounts: Record<Ownership, number> | null = null;
  if (w.monitors) {
    monitorCounts = { ok: 0, double: 0, orphaned: 0, misrouted: 0 };
    for (const m of w.monitors) monitorCounts[m.ownership]++;
  }
  return {
    cluster: "c1",
    at: NOW,
    roles,
    collectors,
    targets,
    nodes,
    monitors: w.monitors,
    monitorCounts,
    scraperAnnotation: w.scraperAnnotation ?? null,
    duplicates: [...dup.values()].filter((d) => d.holders.length > 1),
    nodesWithoutCollector: nodes.filter((n) => n.state === "no_collector").map((n) => n.name),
  };
}

function okSources(): SourceLike[] {
  return [
    { source: "c1/ta/per-node", state: "ok", lastSuccess: NOW, latencyMs: 40, error: null },
    { source: "c1/ta/cluster-scraper", state: "ok", lastSuccess: NOW, latencyMs: 30, error: null },
    ...["pods/per-node", "pods/cluster-scraper", "nodes", "servicemonitors", "podmonitors"].map((w): SourceLike => ({ source: `c1/kube/${w}`, state: "ok", lastSuccess: NOW, error: null })),
  ];
}

function run(w: World, over: Partial<DiagnoseInput> = {}): Check[] {
  return diagnose({ analysis: build(w), sources: okSources(), churn: { flapping: [] }, nowMs: NOW, ...over });
}
const get = (checks: Check[], id: string): Check => {
  const c = checks.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id}`);
  return c;
};
const status = (w: World, id: string, over?: Partial<DiagnoseInput>): CheckStatus => get(run(w, over), id).status;
const sourcesWith = (name: string, patch: Partial<SourceLike>): SourceLike[] => okSources().map((s) => (s.source === `c1/${name}` ? { ...s, ...patch } : s));

// ---- tests -----------------------------------------------------------------------------------------------------------------

describe("diagnose: shape", () => {
  it("returns every check once, in the stable logical order, and all pass on a healthy cluster", () => {
    const checks = run(world());
    expect(checks.map((c) => c.id)).toEqual([...CHECK_IDS]);
    for (const c of checks) {
      expect(c.status, `${c.id}: ${c.summary} ${c.evidence.join(" | ")}`).toBe("pass");
      expect(c.title).not.toBe("");
      expect(c.summary).not.toBe("");
      expect(c.fix).not.toBe("");
      expect(c.view).toMatch(/^\/(nodes|ownership|targets(\?class=ghost)?|collectors|churn|diagnostics)$/);
    }
  });

  it("caps evidence at 10 items plus 'and N more'", () => {
    expect(cap(Array.from({ length: 25 }, (_, i) => `x${i}`))).toHaveLength(11);
    expect(cap(Array.from({ length: 25 }, (_, i) => `x${i}`)).at(-1)).toBe("and 15 more");
    expect(cap(["a"])).toEqual(["a"]);
    const w = world();
    for (let i = 0; i < 30; i++) w.targets.push({ role: "per-node", job: "j", address: `10.9.9.${i}:1`, node: "node-a1", collector: `gone-${i}` });
    for (let i = 0; i < 30; i++) w.pods.push({ role: "per-node", id: `gone-${i}`, node: null, inKubernetes: false });
    const c = get(run(w), "collectors-unknown-to-kubernetes");
    expect(c.evidence).toHaveLength(11);
    expect(c.evidence.at(-1)).toBe("and 20 more");
  });

  it("worst orders fail > warn > unknown > pass", () => {
    expect(worst(["pass", "unknown"])).toBe("unknown");
    expect(worst(["unknown", "warn", "pass"])).toBe("warn");
    expect(worst(["warn", "fail"])).toBe("fail");
    expect(worst([])).toBe("pass");
  });
});

describe("diagnose: sources", () => {
  it("ta-reachable: stale warns, never-read fails with the error and hint, starting is unknown", () => {
    const err = { source: "c1/ta/per-node /jobs", kind: "tls" as const, message: "certificate signed by unknown authority", hint: "set tls.ca" };
    const stale = get(run(world(), { sources: sourcesWith("ta/per-node", { state: "stale", lastSuccess: NOW - 90_000, error: err }) }), "ta-reachable");
    expect(stale.status).toBe("warn");
    expect(stale.evidence[0]).toContain("certificate signed by unknown authority");
    expect(stale.evidence[0]).toContain("last success 1 min ago");
    const failed = get(run(world(), { sources: sourcesWith("ta/per-node", { state: "error", lastSuccess: null, error: err }) }), "ta-reachable");
    expect(failed.status).toBe("fail");
    expect(failed.fix).toContain("set tls.ca");
    expect(failed.fix).toContain("mTLS");
    expect(status(world(), "ta-reachable", { sources: sourcesWith("ta/per-node", { state: "starting", error: null }) })).toBe("unknown");
  });

  it("ta-ready fails on a 503 /readyz", () => {
    const w = world();
    w.roles["cluster-scraper"]!.taReady = false;
    const c = get(run(w), "ta-ready");
    expect(c.status).toBe("fail");
    expect(c.summary).toContain("cluster-scraper");
  });

  it("kube-reachable fails when an informer never listed, warns when stale", () => {
    const e = { source: "c1/kube/nodes", kind: "network" as const, message: "ECONNREFUSED" };
    expect(status(world(), "kube-reachable", { sources: sourcesWith("kube/nodes", { state: "error", lastSuccess: null, error: e }) })).toBe("fail");
    expect(status(world(), "kube-reachable", { sources: sourcesWith("kube/nodes", { state: "stale", error: e }) })).toBe("warn");
  });

  it("kube-rbac fails on forbidden, naming the resource and the hint", () => {
    const e = { source: "c1/kube/pods/per-node", kind: "forbidden" as const, status: 403, message: "the service account lacks list/watch on pods", hint: "grant get, list and watch on pods" };
    const c = get(run(world(), { sources: sourcesWith("kube/pods/per-node", { state: "error", lastSuccess: null, error: e }) }), "kube-rbac");
    expect(c.status).toBe("fail");
    expect(c.evidence[0]).toContain("pods");
    expect(c.fix).toContain("grant get, list and watch on pods");
    // a forbidden source is not also reported as unreachable
    expect(status(world(), "kube-reachable", { sources: sourcesWith("kube/pods/per-node", { state: "error", lastSuccess: null, error: e }) })).toBe("pass");
  });

  it("monitor-crds: one missing CRD warns, both missing fails", () => {
    const nf = (kind: string) => ({ source: "x", kind: "not_found" as const, status: 404, message: `the ${kind} CRD is not installed` });
    const one = sourcesWith("kube/podmonitors", { state: "error", lastSuccess: null, error: nf("PodMonitor") });
    expect(status(world(), "monitor-crds", { sources: one })).toBe("warn");
    const both = one.map((s) => (s.source === "c1/kube/servicemonitors" ? { ...s, state: "error" as const, lastSuccess: null, error: nf("ServiceMonitor") } : s));
    const c = get(run(world(), { sources: both }), "monitor-crds");
    expect(c.status).toBe("fail");
    expect(c.fix).toContain("kubectl get crd");
  });
});

describe("diagnose: collectors", () => {
  it("collectors-discovered fails naming the selector when no pod matches", () => {
    const w = world();
    w.pods = w.pods.filter((p) => p.role !== "per-node");
    w.targets = w.targets.filter((t) => t.role !== "per-node");
    const c = get(run(w, { selectors: { "per-node": { namespace: "amazon-cloudwatch", selector: { "app.kubernetes.io/component": "amazon-cloudwatch-agent" } } } }), "collectors-discovered");
    expect(c.status).toBe("fail");
    expect(c.evidence[0]).toBe("per-node: no pod matches app.kubernetes.io/component=amazon-cloudwatch-agent in namespace amazon-cloudwatch");
  });

  it("collectors-discovered fails when every pod is ineligible, and is unknown before pods are listed", () => {
    const w = world();
    for (const p of w.pods) if (p.role === "cluster-scraper") Object.assign(p, { eligible: false, reason: "phase Pending" });
    expect(get(run(w), "collectors-discovered").evidence[0]).toContain("none eligible (scraper-0: phase Pending");
    expect(status(w, "collectors-discovered")).toBe("fail");
    expect(status(world(), "collectors-discovered", { sources: sourcesWith("kube/pods/per-node", { state: "starting", lastSuccess: null }) })).toBe("unknown");
  });

  it("collectors-missing-from-ta warns on lag and fails when the TA lists none of the eligible pods", () => {
    const w = world();
    w.pods.push({ role: "per-node", id: "agent-new", node: "node-b1", inTa: false });
    const c = get(run(w), "collectors-missing-from-ta");
    expect(c.status).toBe("warn");
    expect(c.evidence).toContain("per-node: agent-new (node-b1) eligible but not listed by the TA");
    const none = world();
    for (const p of none.pods) if (p.role === "cluster-scraper") p.inTa = false;
    none.targets = none.targets.filter((t) => t.role !== "cluster-scraper");
    none.targets.push({ role: "cluster-scraper", job: "kubelet", address: "10.2.0.1:10250", node: "node-a1", collector: "other-0" });
    none.pods.push({ role: "cluster-scraper", id: "other-0", node: null, inKubernetes: false });
    expect(status(none, "collectors-missing-from-ta")).toBe("fail");
  });

  it("collectors-unknown-to-kubernetes fails when a deleted pod still holds targets (deleted between watch sessions)", () => {
    const w = world();
    // agent-a1 was deleted while the TA's watch was closed and replaced by agent-z1; the TA still holds node-a1 on it
    w.pods.find((p) => p.id === "agent-a1")!.inKubernetes = false;
    w.pods.push({ role: "per-node", id: "agent-z1", node: "node-a1" });
    const c = get(run(w), "collectors-unknown-to-kubernetes");
    expect(c.status).toBe("fail");
    expect(c.evidence).toEqual(["per-node: agent-a1 holds 6 targets and is not a pod matching the selector"]);
    const idle = world();
    idle.pods.push({ role: "per-node", id: "agent-old", node: null, inKubernetes: false });
    expect(status(idle, "collectors-unknown-to-kubernetes")).toBe("warn");
  });

  it("collectors-not-eligible fails when a registered not-Ready pod keeps its node's targets (the silent ghost failure)", () => {
    const w = world();
    Object.assign(w.pods.find((p) => p.id === "agent-a2")!, { eligible: false, reason: "not Ready", restarts: 7 });
    const c = get(run(w), "collectors-not-eligible");
    expect(c.status).toBe("fail");
    expect(c.summary).toContain("unassigned gauge does not count them");
    expect(c.evidence).toEqual(["per-node: agent-a2 on node-a2: not Ready, 7 restarts; holds 6 targets"]);
    const idle = world();
    idle.pods.push({ role: "cluster-scraper", id: "scraper-2", node: "node-a2", eligible: false, reason: "terminating" });
    expect(status(idle, "collectors-not-eligible")).toBe("warn");
  });

  it("ghost-targets fails with the collector, reason and nodes", () => {
    const w = world();
    Object.assign(w.pods.find((p) => p.id === "agent-b1")!, { eligible: false, reason: "terminating" });
    const c = get(run(w), "ghost-targets");
    expect(c.status).toBe("fail");
    expect(c.summary).toMatch(/^6 targets will not be scraped/);
    expect(c.evidence).toEqual(["per-node: agent-b1 (terminating) holds 6 targets of node-b1"]);
    expect(c.view).toBe("/targets?class=ghost");
  });
});

describe("diagnose: unassigned", () => {
  it("unassigned-targets fails on a live count, with the upstream per-node fallback advice", () => {
    const w = world();
    Object.assign(w.roles["per-node"]!, { flavor: "upstream", unassigned: 4, unassignedReported: 4 });
    const c = get(run(w), "unassigned-targets");
    expect(c.status).toBe("fail");
    expect(c.evidence[0]).toContain("4 unassigned targets");
    expect(c.fix).toContain("allocation_fallback_strategy");
    const unknown = world();
    unknown.roles["per-node"]!.unassigned = null;
    expect(status(unknown, "unassigned-targets")).toBe("unknown");
  });

  it("unassigned-gauge warns on upstream's sticky gauge and fails when it under-reports", () => {
    const sticky = world();
    Object.assign(sticky.roles["per-node"]!, { flavor: "upstream", unassigned: 0, unassignedReported: 12 });
    expect(status(sticky, "unassigned-gauge")).toBe("warn");
    const absent = world();
    Object.assign(absent.roles["per-node"]!, { flavor: "upstream", unassigned: 0, unassignedReported: null });
    expect(status(absent, "unassigned-gauge")).toBe("pass");
    absent.roles["per-node"]!.unassigned = 2;
    expect(status(absent, "unassigned-gauge")).toBe("fail");
    const blind = world();
    Object.assign(blind.roles["per-node"]!, { unassigned: 5, unassignedReported: 0 });
    const c = get(run(blind), "unassigned-gauge");
    expect(c.status).toBe("fail");
    expect(c.evidence).toEqual(["per-node: the TA's gauge reads 0, the live count is 5"]);
  });
});

describe("diagnose: nodes", () => {
  function noAgentOnB1(flavor: Flavor): World {
    const w = world();
    w.roles["per-node"]!.flavor = flavor;
    w.pods = w.pods.filter((p) => p.id !== "agent-b1");
    for (const t of w.targets) if (t.collector === "agent-b1") t.collector = "agent-a1"; // the fallback
    return w;
  }

  it("nodes-without-collector warns under the cloudwatch fallback and fails upstream (no fallback for noded targets)", () => {
    const cw = get(run(noAgentOnB1("cloudwatch")), "nodes-without-collector");
    expect(cw.status).toBe("warn");
    expect(cw.evidence).toEqual(["node-b1 (zone-b): 6 targets scraped from another node"]);
    expect(cw.fix).toContain("tolerations");
    expect(status(noAgentOnB1("upstream"), "nodes-without-collector")).toBe("fail");
    const lost = noAgentOnB1("cloudwatch");
    lost.roles["per-node"]!.unassigned = 3;
    expect(status(lost, "nodes-without-collector")).toBe("fail");
  });

  it("nodes-without-collector does not apply without a per-node TA or with another strategy", () => {
    const w = noAgentOnB1("upstream");
    w.roles["per-node"]!.strategy = "consistent-hashing";
    const c = get(run(w), "nodes-without-collector");
    expect(c.status).toBe("pass");
    expect(c.summary).toMatch(/^Not applicable/);
  });

  it("multiple-pods-per-node warns on a surge and fails when the node's targets sit on the pod that cannot scrape", () => {
    const surge = world();
    surge.pods.push({ role: "per-node", id: "agent-a0", node: "node-a1" });
    const c = get(run(surge), "multiple-pods-per-node");
    expect(c.status).toBe("warn");
    expect(c.evidence[0]).toBe("node-a1 (per-node): agent-a0, agent-a1; agent-a0 wins (smaller name)");
    const stuck = world();
    Object.assign(stuck.pods.find((p) => p.id === "agent-a1")!, { eligible: false, reason: "terminating" });
    stuck.pods.push({ role: "per-node", id: "agent-a9", node: "node-a1" });
    const s = get(run(stuck), "multiple-pods-per-node");
    expect(s.status).toBe("fail");
    expect(s.evidence[0]).toContain("targets held by agent-a1, which cannot scrape");
  });

  it("per-node-drift warns on lag and fails when the stale collector cannot scrape while a replacement runs", () => {
    const lag = world();
    lag.pods.push({ role: "per-node", id: "agent-a0", node: "node-a1" }); // smaller name: the strategy picks it
    const c = get(run(lag), "per-node-drift");
    expect(c.status).toBe("warn");
    expect(c.evidence).toEqual(["node-a1: 6 targets on agent-a1, expected agent-a0"]);
    const stale = world();
    Object.assign(stale.pods.find((p) => p.id === "agent-a2")!, { eligible: false, reason: "phase Failed" });
    stale.pods.push({ role: "per-node", id: "agent-x2", node: "node-a2" });
    const s = get(run(stale), "per-node-drift");
    expect(s.status).toBe("fail");
    expect(s.evidence[0]).toBe("node-a2: 6 targets on agent-a2 (cannot scrape), expected agent-x2");
  });

  it("cross-node-scraping warns when the fallback crosses zones and fails below 50 % locality", () => {
    const w = world();
    for (const t of w.targets) if (t.collector === "agent-b1") t.collector = "agent-a1";
    Object.assign(w.pods.find((p) => p.id === "agent-b1")!, { eligible: false, reason: "not Ready", inTa: false });
    const c = get(run(w), "cross-node-scraping");
    expect(c.status).toBe("warn");
    expect(c.summary).toContain("6 targets cross zones");
    expect(c.summary).toContain("inter-AZ");
    expect(c.evidence).toContain("node-b1 (zone-b): 6 targets scraped from another node (agent not Ready)");
    const bad = world();
    for (const t of bad.targets) if (t.role === "per-node") t.collector = "agent-a1";
    const b = get(run(bad), "cross-node-scraping");
    expect(b.status).toBe("fail");
    expect(b.summary).toMatch(/^Locality 33\.3%/);
  });
});

describe("diagnose: monitors and jobs", () => {
  it.each([
    ["monitors-double", "double"],
    ["monitors-orphaned", "orphaned"],
    ["monitors-misrouted", "misrouted"],
  ] as const)("%s fails with the monitor, the key it carries and its holders", (id, ownership) => {
    const w = world();
    w.monitors!.push(monitor("kube-dns", ownership, { annotations: { [EARLIER_SCRAPER_ANNOTATION]: "cluster-scraper" } }));
    const c = get(run(w), id);
    expect(c.status).toBe("fail");
    expect(c.evidence[0]).toMatch(/^ServiceMonitor obs\/kube-dns: cloudwatch\.aws\/scraper="cluster-scraper"; routed to cluster-scraper, held by /);
    expect(c.view).toBe("/ownership");
    const none = world();
    none.monitors = null;
    expect(status(none, id)).toBe("unknown");
  });

  it("monitors-misrouted says when a monitor's keys disagree (TAs of the earlier build hold it by the old key)", () => {
    const w = world();
    const split = monitorRef("split", { [DEFAULT_SCRAPER_ANNOTATION]: "per-node", [EARLIER_SCRAPER_ANNOTATION]: CLUSTER_SCRAPER_VALUE });
    w.monitors = monitorRows([split], { "per-node": EARLIER_SCRAPER_ANNOTATION, "cluster-scraper": EARLIER_SCRAPER_ANNOTATION }).rows;
    expect(get(run(w), "monitors-misrouted").evidence).toEqual([
      'ServiceMonitor obs/split: cloudwatch.aws.amazon.com/scraper="per-node", cloudwatch.aws/scraper="cluster-scraper"; its keys route it to different TAs, held by cluster-scraper',
    ]);
  });

  it("monitors-misrouted names a key the configuration does not recognise", () => {
    const w = world();
    const old = monitorRef("ksm", { [EARLIER_SCRAPER_ANNOTATION]: CLUSTER_SCRAPER_VALUE });
    w.monitors = monitorRows([old], { "per-node": EARLIER_SCRAPER_ANNOTATION, "cluster-scraper": EARLIER_SCRAPER_ANNOTATION }, DEFAULT_SCRAPER_ANNOTATION).rows;
    w.scraperAnnotation = DEFAULT_SCRAPER_ANNOTATION;
    expect(get(run(w), "monitors-misrouted").evidence).toEqual([
      'ServiceMonitor obs/ksm: cloudwatch.aws/scraper="cluster-scraper" (not recognised: scraperAnnotation is cloudwatch.aws.amazon.com/scraper); routed to per-node, held by cluster-scraper',
    ]);
  });

  it("monitors-orphaned only warns for a cluster-scraper monitor when no cluster-scraper TA is configured", () => {
    const w = world();
    delete w.roles["cluster-scraper"];
    w.pods = w.pods.filter((p) => p.role === "per-node");
    w.targets = w.targets.filter((t) => t.role === "per-node");
    w.monitors = [monitor("node-exporter", "ok"), monitor("coredns", "orphaned", { annotations: { [EARLIER_SCRAPER_ANNOTATION]: "cluster-scraper" } })];
    const c = get(run(w), "monitors-orphaned");
    expect(c.status).toBe("warn");
    expect(c.evidence[0]).toContain("routed to cluster-scraper (not configured here), held by no TA");
  });

  it("monitors-orphaned does not judge monitors routed to a TA that has never been read", () => {
    const w = world();
    w.monitors!.push(monitor("app", "orphaned", { expectedRole: "per-node" }));
    expect(status(w, "monitors-orphaned")).toBe("fail");
    const c = get(run(w, { sources: sourcesWith("ta/per-node", { state: "error", lastSuccess: null }) }), "monitors-orphaned");
    expect(c.status).toBe("pass");
    expect(c.summary).toContain("1 monitor routed to a TA that has never been read is not judged");
  });

  it("monitors of a kind whose CRD is gone are not judged (stale informer cache)", () => {
    const w = world();
    w.monitors!.push(monitor("gone", "orphaned", { kind: "PodMonitor" }));
    expect(status(w, "monitors-orphaned")).toBe("fail");
    const nf = { source: "c1/kube/podmonitors", kind: "not_found" as const, status: 404, message: "the PodMonitor CRD is not installed" };
    const c = get(run(w, { sources: sourcesWith("kube/podmonitors", { state: "stale", error: nf }) }), "monitors-orphaned");
    expect(c.status).toBe("pass");
    expect(c.summary).toContain("1 cached monitor of a kind whose CRD is not installed is ignored");
  });

  it("jobs-without-targets warns on a selector that matches nothing and fails when a TA has no target at all", () => {
    const w = world();
    w.roles["per-node"]!.jobsWithoutTargets = ["serviceMonitor/obs/typo/0"];
    const c = get(run(w), "jobs-without-targets");
    expect(c.status).toBe("warn");
    expect(c.evidence).toEqual(["per-node: serviceMonitor/obs/typo/0 is in /scrape_configs but not in /jobs"]);
    expect(c.fix).toContain("missing from /jobs");
    const empty = world();
    empty.targets = empty.targets.filter((t) => t.role !== "cluster-scraper");
    empty.roles["cluster-scraper"]!.jobsWithoutTargets = ["kubelet"];
    expect(status(empty, "jobs-without-targets")).toBe("fail");
  });
});

describe("diagnose: scraper-annotation-key", () => {
  const NEW = DEFAULT_SCRAPER_ANNOTATION;
  const OLD = EARLIER_SCRAPER_ANNOTATION;
  const cs = (name: string, key: string) => monitorRef(name, { [key]: CLUSTER_SCRAPER_VALUE });
  /** The hand-built world with these monitors, held by TAs that read `taKeys`; the dashboard configured with `configured`. */
  const keyed = (monitors: MonitorRef[], taKeys: Partial<Record<Role, string>>, configured: string | null = null) => {
    const w = world();
    w.monitors = monitorRows(monitors, taKeys, configured).rows;
    w.scraperAnnotation = configured;
    return get(run(w), "scraper-annotation-key");
  };
  const both = (key: string) => ({ "per-node": key, "cluster-scraper": key });
  const fleet = [cs("ksm", OLD), cs("coredns", OLD), cs("etcd", OLD), cs("shop-api", NEW), cs("cart", NEW), monitorRef("node-exporter")];

  it("TAs of the earlier build: monitors with the merged key fail, named, and the key the TAs read is inferred", () => {
    const c = keyed(fleet, both(OLD));
    expect(c.status).toBe("fail");
    expect(c.summary).toBe(
      "2 monitors are not held as their scraper annotation says. The cluster-scraper TA holds all 3 monitors annotated with cloudwatch.aws/scraper and none of the 2 monitors annotated with cloudwatch.aws.amazon.com/scraper: it reads cloudwatch.aws/scraper.",
    );
    expect(c.evidence).toEqual([
      'cloudwatch.aws.amazon.com/scraper: 2 monitors ("cluster-scraper" 2)',
      'cloudwatch.aws/scraper: 3 monitors ("cluster-scraper" 3)',
      "the per-node TA holds both monitors annotated with cloudwatch.aws.amazon.com/scraper and none of the 3 monitors annotated with cloudwatch.aws/scraper: it reads cloudwatch.aws/scraper",
      "the cluster-scraper TA holds all 3 monitors annotated with cloudwatch.aws/scraper and none of the 2 monitors annotated with cloudwatch.aws.amazon.com/scraper: it reads cloudwatch.aws/scraper",
      'ServiceMonitor obs/cart: cloudwatch.aws.amazon.com/scraper="cluster-scraper"; routed to cluster-scraper, held by per-node',
      'ServiceMonitor obs/shop-api: cloudwatch.aws.amazon.com/scraper="cluster-scraper"; routed to cluster-scraper, held by per-node',
    ]);
    expect(c.fix).toContain("Re-annotate the monitors named with the key the running TAs read (here cloudwatch.aws/scraper)");
    expect(c.fix).toContain("upgrade the operator");
    expect(c.view).toBe("/ownership");
  });

  it("TAs of the merged build: monitors with the earlier key fail the same way", () => {
    const c = keyed(fleet, both(NEW));
    expect(c.status).toBe("fail");
    expect(c.summary).toMatch(/^3 monitors are not held as their scraper annotation says\. The cluster-scraper TA holds both monitors annotated with cloudwatch\.aws\.amazon\.com\/scraper and none of the 3 monitors annotated with cloudwatch\.aws\/scraper: it reads cloudwatch\.aws\.amazon\.com\/scraper\.$/);
    expect(c.evidence.filter((e) => e.startsWith("ServiceMonitor"))).toEqual(
      ["coredns", "etcd", "ksm"].map((n) => `ServiceMonitor obs/${n}: cloudwatch.aws/scraper="cluster-scraper"; routed to cluster-scraper, held by per-node`),
    );
  });

  it("passes when every annotated monitor is held as its key says, either key alone", () => {
    for (const key of [NEW, OLD]) {
      const c = keyed([cs("ksm", key), cs("coredns", key), monitorRef("web", { [key]: "per-node" }), monitorRef("node-exporter")], both(key));
      expect(c.status, c.summary).toBe("pass");
      expect(c.summary).toBe(`The 2 monitors annotated for the cluster-scraper are held by its TA alone (3 monitors with ${key}). The cluster-scraper TA holds both monitors annotated with ${key}: it reads ${key}.`);
      expect(c.evidence[0]).toBe(`${key}: 3 monitors ("cluster-scraper" 2, "per-node" 1)`);
    }
    const plain = keyed([monitorRef("web", { [NEW]: "per-node" }), monitorRef("node-exporter")], both(NEW));
    expect(plain).toMatchObject({
      status: "pass",
      summary: "No monitor is annotated for the cluster-scraper (1 monitor with cloudwatch.aws.amazon.com/scraper): nothing is routed to it by annotation.",
      evidence: ['cloudwatch.aws.amazon.com/scraper: 1 monitor ("per-node" 1)'],
    });
  });

  it("TAs of two builds: the double and orphaned monitors are named and each TA's key is told", () => {
    const c = keyed(fleet, { "per-node": OLD, "cluster-scraper": NEW });
    expect(c.status).toBe("fail");
    expect(c.summary).toBe(
      "5 monitors are not held as their scraper annotation says. The per-node TA reads cloudwatch.aws/scraper and the cluster-scraper TA reads cloudwatch.aws.amazon.com/scraper: they run different builds of the operator.",
    );
    expect(c.fix).toContain("the key the running TAs read (the operator's merged build");
    expect(c.evidence).toContain("the per-node TA holds both monitors annotated with cloudwatch.aws.amazon.com/scraper and none of the 3 monitors annotated with cloudwatch.aws/scraper: it reads cloudwatch.aws/scraper");
    expect(c.evidence).toContain("the cluster-scraper TA holds both monitors annotated with cloudwatch.aws.amazon.com/scraper and none of the 3 monitors annotated with cloudwatch.aws/scraper: it reads cloudwatch.aws.amazon.com/scraper");
    expect(c.evidence).toContain('ServiceMonitor obs/cart: cloudwatch.aws.amazon.com/scraper="cluster-scraper"; routed to cluster-scraper, held by per-node and cluster-scraper');
    expect(c.evidence).toContain('ServiceMonitor obs/ksm: cloudwatch.aws/scraper="cluster-scraper"; routed to cluster-scraper, held by no TA');
  });

  it("a monitor whose keys disagree fails, whichever key the TAs read", () => {
    for (const key of [NEW, OLD]) {
      const c = keyed([cs("ksm", NEW), monitorRef("split", { [NEW]: "per-node", [OLD]: CLUSTER_SCRAPER_VALUE })], both(key));
      expect(c.status).toBe("fail");
      expect(c.evidence.at(-1)).toMatch(/^ServiceMonitor obs\/split: cloudwatch\.aws\.amazon\.com\/scraper="per-node", cloudwatch\.aws\/scraper="cluster-scraper"; its keys route it to different TAs, held by (per-node|cluster-scraper)$/);
    }
  });

  it("a configured key is the only one judged: the other spelling ignored by the TAs warns, read by them fails", () => {
    const ignored = keyed([cs("ksm", OLD), cs("cart", NEW)], both(OLD), OLD);
    expect(ignored.status).toBe("warn");
    expect(ignored.summary).toBe(
      "1 monitor carries cluster-scraper under a key the configuration does not recognise, and the TAs ignore it too: it is scraped per-node. The cluster-scraper TA holds the monitor annotated with cloudwatch.aws/scraper and no monitor annotated with cloudwatch.aws.amazon.com/scraper: it reads cloudwatch.aws/scraper. scraperAnnotation is set to cloudwatch.aws/scraper: only that key is recognised.",
    );
    expect(ignored.evidence).toContain('cloudwatch.aws.amazon.com/scraper: 1 monitor ("cluster-scraper" 1); not recognised: scraperAnnotation is cloudwatch.aws/scraper');
    expect(ignored.evidence.at(-1)).toBe(
      'ServiceMonitor obs/cart: cloudwatch.aws.amazon.com/scraper="cluster-scraper" (not recognised: scraperAnnotation is cloudwatch.aws/scraper); held by per-node, as the configured key says',
    );
    expect(ignored.fix).toMatch(/^scraperAnnotation is cloudwatch\.aws\/scraper: monitors are judged by that key only\. Re-annotate/);
    expect(ignored.fix).toContain("if the TAs read another key, set scraperAnnotation");
    const read = keyed([cs("ksm", OLD), cs("cart", NEW)], both(OLD), NEW);
    expect(read.status).toBe("fail");
    expect(read.summary).toMatch(/^2 monitors are not held as their scraper annotation says\. The cluster-scraper TA holds the monitor annotated with cloudwatch\.aws\/scraper and no monitor annotated with cloudwatch\.aws\.amazon\.com\/scraper: it reads cloudwatch\.aws\/scraper\. scraperAnnotation is set to cloudwatch\.aws\.amazon\.com\/scraper/);
    expect(read.evidence.slice(-2)).toEqual([
      'ServiceMonitor obs/cart: cloudwatch.aws.amazon.com/scraper="cluster-scraper"; routed to cluster-scraper, held by per-node',
      'ServiceMonitor obs/ksm: cloudwatch.aws/scraper="cluster-scraper" (not recognised: scraperAnnotation is cloudwatch.aws.amazon.com/scraper); held by cluster-scraper: the TAs read a key the configuration does not recognise',
    ]);
    expect(read.fix).toContain("if the TAs read another key (here cloudwatch.aws/scraper), set scraperAnnotation to it, or leave it out to recognise both spellings");
  });

  it("not applicable without an annotated monitor or with one TA role; unknown before monitors or a TA are read", () => {
    const none = keyed([monitorRef("node-exporter"), monitorRef("web", { "example.com/other": "cluster-scraper" })], both(NEW));
    expect(none).toMatchObject({ status: "pass", summary: "Not applicable: no monitor carries cloudwatch.aws.amazon.com/scraper or cloudwatch.aws/scraper, so every monitor goes to the per-node TA.", evidence: [] });
    const one = world();
    delete one.roles["cluster-scraper"];
    one.monitors = monitorRows(fleet, { "per-node": NEW }).rows;
    const c = get(run(one), "scraper-annotation-key");
    expect(c).toMatchObject({ status: "pass", summary: "Not applicable: only the per-node TA is configured, so no monitor is routed between TAs." });
    expect(c.evidence).toEqual(['cloudwatch.aws.amazon.com/scraper: 2 monitors ("cluster-scraper" 2)', 'cloudwatch.aws/scraper: 3 monitors ("cluster-scraper" 3)']);
    const unread = world();
    unread.monitors = monitorRows(fleet, both(NEW)).rows;
    unread.roles["cluster-scraper"]!.taReady = null;
    expect(status(unread, "scraper-annotation-key")).toBe("unknown");
    const noMonitors = world();
    noMonitors.monitors = null;
    expect(status(noMonitors, "scraper-annotation-key")).toBe("unknown");
  });
});

describe("diagnose: load and churn", () => {
  it("duplicate-targets fails for a target held by both TAs", () => {
    const w = world();
    w.targets.push({ role: "cluster-scraper", job: "serviceMonitor/obs/node-exporter/0", address: "10.0.0.0:9100", node: "node-a1", collector: "scraper-0" });
    const c = get(run(w), "duplicate-targets");
    expect(c.status).toBe("fail");
    expect(c.evidence).toEqual(["serviceMonitor/obs/node-exporter/0 10.0.0.0:9100: per-node/agent-a1, cluster-scraper/scraper-0"]);
  });

  it("load-imbalance warns above 1.25 and fails at twice the mean for hashing strategies", () => {
    const skew = (n: number) => {
      const w = world();
      w.pods.push({ role: "cluster-scraper", id: "scraper-2", node: "node-a2" });
      w.targets = w.targets.filter((t) => t.role !== "cluster-scraper");
      const counts = [n, 10, 10];
      counts.forEach((k, i) => {
        for (let j = 0; j < k; j++) w.targets.push({ role: "cluster-scraper", job: "j", address: `10.3.${i}.${j}:1`, node: null, collector: `scraper-${i}` });
      });
      return w;
    };
    expect(status(skew(10), "load-imbalance")).toBe("pass");
    expect(status(skew(16), "load-imbalance")).toBe("warn"); // 16 / 12 = 1.33
    const c = get(run(skew(60)), "load-imbalance"); // 60 / 26.7 = 2.25
    expect(c.status).toBe("fail");
    expect(c.evidence[0]).toContain("busiest scraper-0 (60)");
  });

  it("collector-flapping: unknown without history, warns on flaps, fails on a collector that flaps a lot", () => {
    expect(status(world(), "collector-flapping", { churn: null })).toBe("unknown");
    expect(status(world(), "collector-flapping", { churn: { flapping: [{ pod: "agent-a1", role: "per-node", node: "node-a1", transitions: 2 }] } })).toBe("pass");
    expect(status(world(), "collector-flapping", { churn: { flapping: [{ pod: "agent-a1", role: "per-node", node: "node-a1", transitions: 4 }] } })).toBe("warn");
    const c = get(run(world(), { churn: { flapping: [{ pod: "agent-a1", role: "per-node", node: "node-a1", transitions: 14 }] } }), "collector-flapping");
    expect(c.status).toBe("fail");
    expect(c.evidence).toEqual(["per-node: agent-a1 on node-a1: 14 readiness transitions"]);
  });
});

describe("diagnose: a single plain upstream TA", () => {
  it("does not invent per-node or routing problems", () => {
    const w = world();
    delete w.roles["cluster-scraper"];
    w.pods = w.pods.filter((p) => p.role === "per-node");
    w.targets = w.targets.filter((t) => t.role === "per-node");
    w.roles["per-node"] = { flavor: "upstream", strategy: "consistent-hashing", unassigned: 0, unassignedReported: 0 };
    for (const t of w.targets) t.collector = ["agent-a1", "agent-a2", "agent-b1"][Number(t.address.split(".")[3].split(":")[0]) % 3];
    const checks = diagnose({ analysis: build(w), sources: okSources().filter((s) => !s.source.includes("cluster-scraper")), nowMs: NOW });
    const notPass = checks.filter((c) => c.status !== "pass").map((c) => `${c.id}:${c.status}`);
    expect(notPass).toEqual(["collector-flapping:unknown"]);
  });
});

describe("ta-discovery", () => {
  const discoverySource = (patch: Partial<SourceLike> = {}): SourceLike[] => [
    { source: "c1/discovery", state: "ok", lastSuccess: NOW - 1000, latencyMs: 5, error: null, ...patch },
    ...okSources(),
  ];
  const found = [{ role: "per-node" as const, namespace: "obs", configMap: "agent-target-allocator" }];

  it("is absent for configured TAs, passes when TAs were found and nothing dropped", () => {
    expect(run(world()).some((c) => c.id === "ta-discovery")).toBe(false);
    const ok = get(run(world(), { sources: discoverySource(), discovery: { found, dropped: [], problems: [] } }), "ta-discovery");
    expect(ok).toMatchObject({ status: "pass", summary: expect.stringContaining("Found 1 Target Allocator") });
    expect(ok.evidence).toEqual(["per-node: obs/agent-target-allocator"]);
  });

  it("warns with each dropped object and its reason; fails when nothing was found or the API refuses, naming the grant", () => {
    const dropped = get(run(world(), { sources: discoverySource(), discovery: { found, dropped: [{ object: "configmap x/y", reason: "no Service x/y" }], problems: [] } }), "ta-discovery");
    expect(dropped.status).toBe("warn");
    expect(dropped.evidence).toContain("dropped configmap x/y: no Service x/y");
    expect(status(world(), "ta-discovery", { sources: discoverySource(), discovery: { found: [], dropped: [], problems: [] } })).toBe("fail");
    const err = { source: "c1/discovery", kind: "forbidden" as const, status: 403, message: "forbidden: the Kubernetes user may not list configmaps in all namespaces", hint: "grant list on configmaps cluster-wide" };
    const refused = get(run(world(), { sources: discoverySource({ state: "error", lastSuccess: null, error: err }), discovery: { found: [], dropped: [], problems: [] } }), "ta-discovery");
    expect(refused).toMatchObject({ status: "fail", fix: "grant list on configmaps cluster-wide" });
    expect(refused.evidence[0]).toContain("may not list configmaps");
    expect(status(world(), "ta-discovery", { sources: discoverySource({ state: "stale", error: err }), discovery: { found, dropped: [], problems: [] } })).toBe("warn");
  });
});

describe("ta-ring-limit", () => {
  /** the per-node agent with `eligible` eligible pods (its TA lists the world's three) */
  const big = (eligible: number, over: Partial<RoleSummary> = {}): World => {
    const w = world();
    Object.assign(w.roles["per-node"]!, { collectorsEligible: eligible, ...over });
    return w;
  };
  const withFallback = { strategies: { "per-node": { fallbackStrategy: "consistent-hashing" as const } } };
  const discovered = (fallbackStrategy: string | null): Partial<DiagnoseInput> => ({
    discovery: { found: [{ role: "per-node", namespace: "amazon-cloudwatch", configMap: "cloudwatch-agent-target-allocator", strategy: "per-node", fallbackStrategy }], dropped: [], problems: [] },
  });
  const ring = (w: World, over: Partial<DiagnoseInput> = {}) => get(run(w, over), "ta-ring-limit");

  it("passes on a small cluster, with each TA's strategy, its sources and its count as evidence", () => {
    const c = ring(world());
    expect(c.status).toBe("pass");
    expect(c.summary).toBe("No TA is near the 1,061-collector limit of a consistent-hashing ring (the check warns from 955).");
    expect(c.evidence).toEqual([
      "per-node: per-node (TA metrics), fallback unknown: may build the ring; 3 collectors (3 eligible agent pods, 3 listed by the TA), headroom 1,058",
      "cluster-scraper: consistent-hashing (TA metrics): builds the ring; 2 collectors (2 eligible agent pods, 2 listed by the TA), headroom 1,059",
    ]);
    expect(c.fix).toBe("Nothing to do.");
  });

  it("per-node with the consistent-hashing fallback: passes at 954, warns from 955 to 1,061, fails from 1,062", () => {
    expect(ring(big(954), withFallback).status).toBe("pass");
    const warn = ring(big(955), withFallback);
    expect(warn.status).toBe("warn");
    expect(warn.summary).toBe(
      'per-node TA: 955 collectors; this TA\'s ring holds at most 1,061. Above 1,061 (a rollout with maxSurge adds collectors while it lasts) it cannot build its consistent-hashing ring: it panics ("not enough room to distribute partitions") whenever it builds the ring, at every start included, so it restarts and none of its targets is scraped.',
    );
    expect(warn.evidence[0]).toBe(
      "per-node: per-node (TA metrics), fallback consistent-hashing (configuration): builds the ring; 955 collectors (955 eligible agent pods, 3 listed by the TA), headroom 106",
    );
    expect(warn.fix).toContain("per-node without a fallback");
    expect(warn.fix).toContain("least-weighted");
    expect(warn.fix).toContain("split the agent");
    expect(ring(big(1061), withFallback).status).toBe("warn");
    const fail = ring(big(1062), withFallback);
    expect(fail.status).toBe("fail");
    expect(fail.summary).toBe(
      'per-node TA: 1,062 collectors; this TA\'s ring holds at most 1,061. The TA cannot build its consistent-hashing ring: it panics ("not enough room to distribute partitions") whenever it builds the ring, at every start included, so it restarts and none of its targets is scraped.',
    );
    expect(fail.evidence[0]).toContain("1,062 collectors (1,062 eligible agent pods, 3 listed by the TA), headroom -1");
    // the cloudwatch operator always writes the fallback for per-node
    expect(fail.fix).toContain("The CloudWatch agent operator writes the consistent-hashing fallback");
    expect(fail.fix).not.toContain("fallbackStrategy");
  });

  it("counts the collectors the TA lists when they outnumber the eligible pods (consistent-hashing)", () => {
    const w = world();
    for (let i = 0; i < 1100; i++) w.pods.push({ role: "cluster-scraper", id: `scraper-x${i}`, node: null, eligible: false, reason: "not Ready" });
    const c = ring(w);
    expect(c.status).toBe("fail");
    expect(c.summary).toMatch(/^cluster-scraper TA: 1,102 collectors; this TA's ring holds at most 1,061\./);
    expect(c.evidence[1]).toContain("1,102 collectors (2 eligible agent pods, 1,102 listed by the TA), headroom -41");
  });

  it("passes for TAs that build no ring, whatever their size; not applicable when no TA builds one", () => {
    const noFallback = ring(big(5000), { strategies: { "per-node": { fallbackStrategy: "none" } } });
    expect(noFallback.status).toBe("pass");
    expect(noFallback.evidence[0]).toBe(
      "per-node: per-node (TA metrics), no fallback (configuration): builds no ring; 5,000 collectors (5,000 eligible agent pods, 3 listed by the TA), headroom -3,939",
    );
    expect(ring(big(5000, { strategy: "least-weighted" })).status).toBe("pass");
    // discovery read the ConfigMap: no allocation_fallback_strategy there is no fallback
    expect(ring(big(5000), discovered(null)).status).toBe("pass");
    const w = big(5000, { strategy: "least-weighted" });
    w.roles["cluster-scraper"]!.strategy = "least-weighted";
    const none = ring(w);
    expect(none.status).toBe("pass");
    expect(none.summary).toBe("Not applicable: no TA builds a consistent-hashing ring (least-weighted, or per-node without a fallback).");
  });

  it("an unknown fallback on per-node may use the ring: judged as if it did, in words that say so, with the fix to state it", () => {
    const warn = ring(big(1000));
    expect(warn.status).toBe("warn");
    expect(warn.summary).toMatch(/^per-node TA: 1,000 collectors; if this TA builds a consistent-hashing ring \(per-node, and no source states its fallback\), the ring holds at most 1,061\./);
    const fail = ring(big(1062));
    expect(fail.status).toBe("fail");
    expect(fail.evidence[0]).toContain("per-node (TA metrics), fallback unknown: may build the ring");
    expect(fail.fix).toContain("state it in the TA's entry of the dashboard configuration (strategy; fallbackStrategy, none when it has none)");
    // a strategy no source states is judged the same way
    expect(ring(big(1062, { strategy: null })).summary).toContain("(its strategy is not known)");
  });

  it("a TA that is down above the limit names the ring limit as the likely cause", () => {
    const down = { ...discovered("consistent-hashing"), sources: sourcesWith("ta/per-node", { state: "error", lastSuccess: null, error: { source: "c1/ta/per-node", kind: "network", message: "connect ECONNREFUSED" } }) };
    const c = ring(big(1062, { strategy: null, taReady: null }), down);
    expect(c.status).toBe("fail");
    expect(c.summary).toBe(
      'The per-node TA cannot be read, with 1,062 collectors: the likely cause is the ring limit (this TA\'s ring holds at most 1,061). Above 1,061 a TA cannot build its consistent-hashing ring: it panics ("not enough room to distribute partitions") whenever it builds the ring, at every start included, so it restarts and none of its targets is scraped.',
    );
    expect(c.evidence[0]).toBe(
      "per-node: per-node (ConfigMap), fallback consistent-hashing (ConfigMap): builds the ring; 1,062 collectors (1,062 eligible agent pods, 3 listed by the TA), headroom -1; the TA cannot be read",
    );
    const stale = ring(big(1200), { ...withFallback, sources: sourcesWith("ta/per-node", { state: "stale", lastSuccess: NOW - 60_000 }) });
    expect(stale.summary).toMatch(/^The per-node TA stopped answering, with 1,200 collectors: the likely cause is the ring limit/);
    expect(ring(big(1200, { taReady: false }), withFallback).summary).toMatch(/^The per-node TA is not ready, with 1,200 collectors: the likely cause is the ring limit/);
    // unknown fallback: the cause is named as a possibility
    expect(ring(big(1200, { taReady: false })).summary).toMatch(
      /^The per-node TA is not ready, with 1,200 collectors: the likely cause is the ring limit \(if this TA builds a consistent-hashing ring \(per-node, and no source states its fallback\)/,
    );
    // below the limit a TA that is down is another check's business
    expect(ring(big(900, { taReady: false }), withFallback).status).toBe("pass");
  });

  it("is unknown until the agent pods are listed", () => {
    const c = ring(big(1062), { ...withFallback, sources: sourcesWith("kube/pods/per-node", { state: "starting", lastSuccess: null }) });
    expect(c.status).toBe("unknown");
    expect(c.evidence[0]).toBe("per-node: agent pods not listed yet");
  });

  it("takes the stated strategies from the configuration's TA entries", () => {
    const cfg = { flavor: "upstream" as const, collectors: { namespace: "otel", selector: { app: "agent" } } };
    const options = diagnosticsOptions({ "per-node": { ...cfg, strategy: "per-node", fallbackStrategy: "consistent-hashing" }, "cluster-scraper": cfg });
    expect(options.strategies).toEqual({ "per-node": { strategy: "per-node", fallbackStrategy: "consistent-hashing" } });
    expect(ring(big(1062, { strategy: null }), options).evidence[0]).toContain("per-node (configuration), fallback consistent-hashing (configuration): builds the ring");
  });
});
