/**
 * The demo held to a real Target Allocator (built by scripts/peers.mjs), one strategy per test file (they run in
 * parallel): upstream's otel-allocator (its one TA) or the CloudWatch fork's (one per role, the simulated TA tracking its
 * collectors the fork's `legacy` way). Both allocators run on the same seeded world, the real one against the demo's
 * Kubernetes API, the simulated one in process on the same store. For every role they must give the same jobs and the
 * same targets (address and every label), the same collector for each target (consistent-hashing, per-node with and
 * without fallback) or per-collector counts within one (least-weighted), calm and again after each world fault, once the
 * fault has reached the real allocator, and again once it is healed. The real allocator's answers are read as a client
 * reads them (its HTTP API).
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Flavor, Role, StrategyName } from "@allocation-lens/allocation/model";
import { FORK_SCRAPER_ANNOTATION, startDemoCluster, type DemoCluster } from "../../src/cluster";
import type { Fault } from "../../src/contract/faults";
import type { RealTa } from "../../src/real-ta";
import { cloudwatchTaSuite, realTaSuite } from "@allocation-lens/test-support/real-ta";
import { waitFor } from "@allocation-lens/test-support/wait";
import { removeDir, tempDir } from "@allocation-lens/test-support/tmp";

interface Row {
  job: string;
  address: string;
  labels: Record<string, string>;
  collector: string | null;
}

const labelsKey = (l: Record<string, string>) => JSON.stringify(Object.entries(l).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const rowKey = (r: Row) => `${r.job}|${r.address}|${labelsKey(r.labels)}`;

/** What the simulated allocator of `role` assigned (assigned targets only: the real one lists no other), and how many it left. */
function simulated(demo: DemoCluster, role: Role): { rows: Row[]; unassigned: number; collectors: string[] } {
  const a = demo.allocators[role]!;
  const rows: Row[] = [];
  let unassigned = 0;
  for (const t of a.allTargets()) {
    const collector = a.assignmentOf(t.key);
    if (!collector) unassigned++;
    else rows.push({ job: t.job, address: t.address, labels: { ...t.labels }, collector });
  }
  return { rows, unassigned, collectors: [...a.registeredCollectors()].sort() };
}

const rolesOf = (demo: DemoCluster) => Object.keys(demo.realTas) as Role[];

/** The strategy of `role`'s TA: the chosen one for per-node, consistent-hashing for the cluster-scraper. */
const strategyOf = (role: Role, strategy: StrategyName): StrategyName => (role === "per-node" ? strategy : "consistent-hashing");

/**
 * The differences between the two allocators' answers, empty when they agree, for every role: jobs, targets (address and
 * labels), and the collector of each target (or, for least-weighted, each collector's count within one).
 */
async function differences(demo: DemoCluster, strategy: StrategyName, counts = true): Promise<string[]> {
  const out: string[] = [];
  for (const role of rolesOf(demo)) out.push(...(await roleDifferences(demo, role, strategyOf(role, strategy), counts)).map((d) => `${role}: ${d}`));
  return out;
}

async function roleDifferences(demo: DemoCluster, role: Role, strategy: StrategyName, counts: boolean): Promise<string[]> {
  const real = await demo.realTas[role]!.assignments();
  const sim = simulated(demo, role);
  const out: string[] = [];
  const realRows = new Map(real.targets.map((r) => [rowKey(r), r]));
  const simRows = new Map(sim.rows.map((r) => [rowKey(r), r]));
  const simJobs = [...new Set(sim.rows.map((r) => r.job))].sort();
  const realJobs = [...new Set(real.targets.map((r) => r.job))].sort();
  if (simJobs.join() !== realJobs.join()) out.push(`jobs with targets: real ${realJobs.join(",")} / simulated ${simJobs.join(",")}`);
  for (const [k, r] of realRows) if (!simRows.has(k)) out.push(`only the real allocator lists ${r.job} ${r.address} ${labelsKey(r.labels)}`);
  for (const [k, r] of simRows) if (!realRows.has(k)) out.push(`only the simulated allocator lists ${r.job} ${r.address} ${labelsKey(r.labels)}`);
  const realUnassigned = Math.max(0, (real.gauges.opentelemetry_allocator_targets_remaining ?? real.targets.length) - real.targets.length);
  if (realUnassigned !== sim.unassigned) out.push(`unassigned: real ${realUnassigned} / simulated ${sim.unassigned}`);
  if (real.collectors.join() !== sim.collectors.join()) out.push(`collectors: real ${real.collectors.join(",")} / simulated ${sim.collectors.join(",")}`);
  if (strategy === "least-weighted" && !counts) {
    // after a fault: which collector takes an orphaned or new target races inside upstream (docs/faithfulness.md)
  } else if (strategy === "least-weighted") {
    const count = (rows: Iterable<Row>) => {
      const m = new Map<string, number>();
      for (const r of rows) m.set(r.collector!, (m.get(r.collector!) ?? 0) + 1);
      return m;
    };
    const rc = count(realRows.values());
    const sc = count(simRows.values());
    for (const c of new Set([...rc.keys(), ...sc.keys()])) {
      if (Math.abs((rc.get(c) ?? 0) - (sc.get(c) ?? 0)) > 1) out.push(`collector ${c}: real ${rc.get(c) ?? 0} targets / simulated ${sc.get(c) ?? 0}`);
    }
  } else {
    // Two registered collectors on one node (a rollout's surge, a ghost beside its replacement): per-node picks whichever
    // a Go map's iteration gives last in the real allocator, possibly another one at each collector update
    // (docs/faithfulness.md); there either of them is the real allocator's answer.
    const shared = strategy === "per-node" ? sharedNodes(demo, role, real.collectors) : new Map<string, string[]>();
    for (const [k, r] of realRows) {
      const s = simRows.get(k);
      if (!s || s.collector === r.collector) continue;
      const both = shared.get(nodeOf(r.labels) ?? "");
      if (both?.includes(r.collector!) && both.includes(s.collector!)) continue;
      out.push(`${r.job} ${r.address}: real ${r.collector} / simulated ${s.collector}`);
    }
  }
  return out;
}

/** A target's node, as per-node reads it (the first of the node labels that is set). */
const nodeOf = (labels: Record<string, string>): string | undefined =>
  labels.__meta_kubernetes_pod_node_name || labels.__meta_kubernetes_node_name || labels.__meta_kubernetes_endpoint_node_name || undefined;

/**
 * The nodes on which more than one of `collectors` is registered -> those collectors. A collector's node is the one it
 * was registered on (the simulated allocator's tracking: a deleted pod that the fork still holds has no pod to read).
 */
function sharedNodes(demo: DemoCluster, role: Role, collectors: readonly string[]): Map<string, string[]> {
  const byNode = new Map<string, string[]>();
  const nodes = new Map(demo.allocators[role]!.trackedCollectors().map((c) => [c.id, c.node]));
  for (const c of collectors) {
    const node = nodes.get(c);
    if (!node) continue;
    byNode.set(node, [...(byNode.get(node) ?? []), c]);
  }
  return new Map([...byNode].filter(([, list]) => list.length > 1));
}

/** Waits until the two allocators agree (both settle on their own time: discovery, watches, reconciles). */
async function agree(demo: DemoCluster, strategy: StrategyName, what: string, counts = true): Promise<void> {
  let last: string[] = [];
  await waitFor(
    `the real and the simulated allocator to agree (${what})`,
    async () => {
      last = await differences(demo, strategy, counts);
      return last.length === 0;
    },
    { timeoutMs: 90_000, intervalMs: 500, last: () => ({ differences: last.length, first: last.slice(0, 12) }) },
  );
}

type Seen = Awaited<ReturnType<RealTa["assignments"]>>;

/** The per-node agent pod on `node` (not terminating). */
function agentOn(demo: DemoCluster, node: string): string {
  const sel = demo.world.agents["per-node"].selector;
  const pod = demo.store
    .list("pods", demo.world.namespace)
    .find((p) => p.spec?.nodeName === node && !p.metadata.deletionTimestamp && Object.entries(sel).every(([k, v]) => p.metadata.labels?.[k] === v));
  if (!pod) throw new Error(`no agent pod on ${node}`);
  return pod.metadata.name;
}

type Reached = (r: Partial<Record<Role, Seen>>) => boolean;

/**
 * The world faults, each applied alone from a calm world (healed in between), with what the REAL allocators must show
 * before the two are compared: the fault has reached them (a comparison right after the fault would pass on the old
 * world). `calm` is the real allocators' calm answers. Upstream drops a collector that is not Ready or crash-looping after
 * its grace period; the fork's (legacy tracking) keeps it, and keeps a pod deleted while its watch was partitioned beside
 * the replacement: there the fault has reached it when the replacement is registered. The fork routes a re-annotated
 * monitor to the cluster-scraper's TA.
 */
function worldFaults(demo: DemoCluster, calm: Partial<Record<Role, Seen>>, flavor: Flavor): { name: string; fault: Fault; reached: Reached }[] {
  const nodes = demo.store.list("nodes").map((n) => n.metadata.name).sort();
  const pn = (f: (r: Seen) => boolean): Reached => (r) => f(r["per-node"]!);
  const sm = demo.world.serviceMonitors.find((m) => !m.metadata.annotations?.[FORK_SCRAPER_ANNOTATION]) ?? demo.world.serviceMonitors[0];
  const gone = (pod: string) => (r: Seen) => !r.collectors.includes(pod);
  const oldAgents = calm["per-node"]!.collectors;
  const legacy = flavor === "cloudwatch";
  // the pods the faults take away, named before any fault
  const [notReady, crashing, deleted, removed] = [0, 1, 2, 3].map((i) => agentOn(demo, nodes[i]));
  const smJob = `serviceMonitor/${sm.metadata.namespace}/${sm.metadata.name}/0`;
  return [
    // legacy: nothing changes in the fork (the pod stays registered), which the comparison then holds the simulation to
    { name: "collector not Ready", fault: { fault: "collector-not-ready", node: nodes[0] }, reached: pn(legacy ? (r) => r.collectors.includes(notReady) : gone(notReady)) },
    { name: "collector crash loop", fault: { fault: "collector-crashloop", node: nodes[1] }, reached: pn(legacy ? (r) => r.collectors.includes(crashing) : gone(crashing)) },
    {
      name: "collector deleted",
      fault: { fault: "collector-deleted-unseen", node: nodes[2] },
      reached: pn((r) => (legacy ? r.collectors.includes(deleted) && r.collectors.length === oldAgents.length + 1 : gone(deleted)(r) && r.collectors.length === oldAgents.length)),
    },
    {
      name: "node added",
      fault: { fault: "node-add" },
      reached: pn((r) => r.collectors.length === oldAgents.length + 1 && r.targets.length > calm["per-node"]!.targets.length),
    },
    {
      name: "node removed",
      fault: { fault: "node-remove", node: nodes[3] },
      reached: pn((r) => gone(removed)(r) && !r.targets.some((t) => Object.values(t.labels).includes(nodes[3]))),
    },
    // surge: every old agent pod replaced by a new one
    { name: "rollout", fault: { fault: "rollout", role: "per-node" }, reached: pn((r) => r.collectors.length === oldAgents.length && r.collectors.every((c) => !oldAgents.includes(c))) },
    // upstream keeps every monitor whatever its annotation: nothing is to change (the comparison still runs); the fork
    // moves it to the cluster-scraper's TA
    {
      name: "monitor annotated",
      fault: { fault: "annotate-monitor", namespace: sm.metadata.namespace!, name: sm.metadata.name, value: "cluster-scraper" },
      reached: legacy ? (r) => !r["per-node"]!.jobs.includes(smJob) && r["cluster-scraper"]!.jobs.includes(smJob) : () => true,
    },
  ];
}

/** Every role's real allocator's answers. */
async function realAnswers(demo: DemoCluster): Promise<Partial<Record<Role, Seen>>> {
  const out: Partial<Record<Role, Seen>> = {};
  for (const role of rolesOf(demo)) out[role] = await demo.realTas[role]!.assignments();
  return out;
}

/** Waits (bounded) until the real allocators' answers satisfy `reached`. */
async function realShows(demo: DemoCluster, what: string, reached: Reached): Promise<void> {
  let last: Partial<Record<Role, Seen>> | undefined;
  await waitFor(`the real allocator to show ${what}`, async () => reached((last = await realAnswers(demo))), {
    timeoutMs: 120_000,
    intervalMs: 500,
    last: () => Object.fromEntries(Object.entries(last ?? {}).map(([role, r]) => [role, { collectors: r?.collectors, targets: r?.targets.length }])),
  });
}

export function differentialSuite(c: { flavor?: Flavor; strategy: StrategyName; fallback: "consistent-hashing" | null; label: string }): void {
  const flavor = c.flavor ?? "upstream";
  const suite = flavor === "cloudwatch" ? cloudwatchTaSuite : realTaSuite;
  const whose = flavor === "cloudwatch" ? "the CloudWatch fork's real ones" : "upstream's real one";
  suite(`the simulated allocator against ${whose}: ${c.label}`, (ta) => {
    describe(c.label, () => {
      let demo: DemoCluster;
      let dir: string;
      beforeAll(async () => {
        dir = tempDir("lens-real-ta-");
        demo = await startDemoCluster({
          flavor,
          ...(flavor === "cloudwatch" ? { tracking: "legacy" as const } : {}),
          nodes: 8,
          seed: 11,
          ta: "real",
          realTa: ta,
          strategy: c.strategy,
          fallback: c.fallback,
          graceSeconds: 5,
          reconcileMs: 500,
          dir,
        });
      }, 120_000);
      afterAll(async () => {
        await demo?.close();
        if (dir) removeDir(dir);
      });

      it("calm: the same jobs, targets, labels and collectors", async () => {
        await agree(demo, c.strategy, "calm");
        const real = await demo.realTas["per-node"]!.assignments();
        if (flavor === "cloudwatch") {
          // the monitors annotated for the cluster-scraper are in its TA and only there
          const routed = demo.store.list("servicemonitors").filter((m) => m.metadata.annotations?.[FORK_SCRAPER_ANNOTATION] === "cluster-scraper");
          const cs = await demo.realTas["cluster-scraper"]!.assignments();
          expect(routed.length).toBeGreaterThan(0);
          for (const m of routed) {
            const job = `serviceMonitor/${m.metadata.namespace}/${m.metadata.name}/0`;
            expect(cs.jobs).toContain(job);
            expect(real.jobs).not.toContain(job);
          }
        }
        // every monitor of the world has its jobs: nothing was lost to the API
        const monitors = demo.store.list("servicemonitors").length + demo.store.list("podmonitors").length;
        expect(new Set(real.targets.map((t) => t.job)).size).toBeGreaterThanOrEqual(monitors);
        expect(real.targets.length).toBeGreaterThan(100);
      }, 120_000);

      it("after each world fault, and healed again", async () => {
        await agree(demo, c.strategy, "calm");
        const calm = await realAnswers(demo);
        const calmCollectors = calm["per-node"]!.collectors.join();
        for (const { name, fault, reached } of worldFaults(demo, calm, flavor)) {
          demo.faults.apply(fault);
          await realShows(demo, name, reached);
          // least-weighted's per-collector counts after a fault follow races inside upstream (docs/faithfulness.md):
          // there the jobs, targets, labels, collectors and unassigned count are compared, not the counts
          await agree(demo, c.strategy, name, false);
          demo.faults.heal();
          // healed: the calm collectors and as many targets as calm
          await realShows(demo, `${name}, healed`, (r) => rolesOf(demo).every((role) => r[role]!.targets.length === calm[role]!.targets.length) && r["per-node"]!.collectors.join() === calmCollectors);
          await agree(demo, c.strategy, `${name}, healed`, false);
        }
      }, 1_500_000);

      it("the allocators' logs hold no error about the Kubernetes API", () => {
        for (const role of rolesOf(demo)) {
          const log = fs.readFileSync(demo.realTas[role]!.logFile, "utf8");
          const bad = log.split("\n").filter((l) => /"level":"error"|level=ERROR|level=WARN|"level":"warn"/.test(l) && !/CRD not available/.test(l));
          expect(bad.slice(0, 5), role).toEqual([]);
        }
      });
    });
  });
}
