/**
 * The demo held to upstream's real Target Allocator (otel-allocator, built by scripts/peers.mjs): both allocators run on
 * the same seeded world, the real one against the demo's Kubernetes API, the simulated one in process on the same store.
 * For each strategy they must give the same jobs and the same targets (address and every label), the same collector for
 * each target (consistent-hashing, per-node with and without fallback) or per-collector counts within one (least-weighted),
 * calm and again after each world fault. The real allocator's answers are read as a client reads them (its HTTP API).
 * The CLI's `--ta real` (the process that serves the printed URL is the built binary, its /debug pages answer) too.
 */
import fs from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StrategyName } from "@allocation-lens/allocation/model";
import { startDemoCluster, type DemoCluster } from "../src/cluster";
import type { Fault } from "../src/contract/faults";
import { realTaSuite } from "@allocation-lens/test-support/real-ta";
import { waitFor } from "@allocation-lens/test-support/wait";
import { removeDir, tempDir } from "@allocation-lens/test-support/tmp";
import { startDemo, type Demo } from "./harness";

interface Row {
  job: string;
  address: string;
  labels: Record<string, string>;
  collector: string | null;
}

const labelsKey = (l: Record<string, string>) => JSON.stringify(Object.entries(l).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const rowKey = (r: Row) => `${r.job}|${r.address}|${labelsKey(r.labels)}`;

/** What the simulated allocator assigned (assigned targets only: the real one lists no other), and how many it left. */
function simulated(demo: DemoCluster): { rows: Row[]; unassigned: number; collectors: string[] } {
  const a = demo.allocators["per-node"]!;
  const rows: Row[] = [];
  let unassigned = 0;
  for (const t of a.allTargets()) {
    const collector = a.assignmentOf(t.key);
    if (!collector) unassigned++;
    else rows.push({ job: t.job, address: t.address, labels: { ...t.labels }, collector });
  }
  return { rows, unassigned, collectors: [...a.registeredCollectors()].sort() };
}

/**
 * The differences between the two allocators' answers, empty when they agree: jobs, targets (address and labels), and
 * the collector of each target (or, for least-weighted, each collector's count within one).
 */
async function differences(demo: DemoCluster, strategy: StrategyName): Promise<string[]> {
  const real = await demo.realTas["per-node"]!.assignments();
  const sim = simulated(demo);
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
  if (strategy === "least-weighted") {
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
    for (const [k, r] of realRows) {
      const s = simRows.get(k);
      if (s && s.collector !== r.collector) out.push(`${r.job} ${r.address}: real ${r.collector} / simulated ${s.collector}`);
    }
  }
  return out;
}

/** Waits until the two allocators agree (both settle on their own time: discovery, watches, reconciles). */
async function agree(demo: DemoCluster, strategy: StrategyName, what: string): Promise<void> {
  let last: string[] = [];
  await waitFor(
    `the real and the simulated allocator to agree (${what})`,
    async () => {
      last = await differences(demo, strategy);
      return last.length === 0;
    },
    { timeoutMs: 90_000, intervalMs: 500, last: () => ({ differences: last.length, first: last.slice(0, 12) }) },
  );
}

/** The world faults, each applied alone from a calm world (healed in between). */
function worldFaults(demo: DemoCluster): { name: string; fault: Fault }[] {
  const nodes = demo.store.list("nodes").map((n) => n.metadata.name).sort();
  const sm = demo.world.serviceMonitors[0];
  return [
    { name: "collector not Ready", fault: { fault: "collector-not-ready", node: nodes[0] } },
    { name: "collector crash loop", fault: { fault: "collector-crashloop", node: nodes[1] } },
    { name: "collector deleted", fault: { fault: "collector-deleted-unseen", node: nodes[2] } },
    { name: "node added", fault: { fault: "node-add" } },
    { name: "node removed", fault: { fault: "node-remove", node: nodes[3] } },
    { name: "rollout", fault: { fault: "rollout", role: "per-node" } },
    { name: "monitor annotated", fault: { fault: "annotate-monitor", namespace: sm.metadata.namespace!, name: sm.metadata.name, value: "cluster-scraper" } },
  ];
}

const CASES: { strategy: StrategyName; fallback: "consistent-hashing" | null; label: string }[] = [
  { strategy: "consistent-hashing", fallback: null, label: "consistent-hashing" },
  { strategy: "per-node", fallback: "consistent-hashing", label: "per-node with the consistent-hashing fallback" },
  { strategy: "per-node", fallback: null, label: "per-node without fallback" },
  { strategy: "least-weighted", fallback: null, label: "least-weighted" },
];

realTaSuite("the simulated allocator against upstream's real one", (ta) => {
  for (const c of CASES) {
    describe(c.label, () => {
      let demo: DemoCluster;
      let dir: string;
      beforeAll(async () => {
        dir = tempDir("lens-real-ta-");
        demo = await startDemoCluster({ flavor: "upstream", nodes: 8, seed: 11, ta: "real", realTa: ta, strategy: c.strategy, fallback: c.fallback, graceSeconds: 5, reconcileMs: 500, dir });
      }, 120_000);
      afterAll(async () => {
        await demo?.close();
        if (dir) removeDir(dir);
      });

      it("calm: the same jobs, targets, labels and collectors", async () => {
        await agree(demo, c.strategy, "calm");
        const real = await demo.realTas["per-node"]!.assignments();
        // every monitor of the world has its jobs: nothing was lost to the API
        const monitors = demo.store.list("servicemonitors").length + demo.store.list("podmonitors").length;
        expect(new Set(real.targets.map((t) => t.job)).size).toBeGreaterThanOrEqual(monitors);
        expect(real.targets.length).toBeGreaterThan(100);
      }, 120_000);

      it("after each world fault, and healed again", async () => {
        for (const { name, fault } of worldFaults(demo)) {
          demo.faults.apply(fault);
          await agree(demo, c.strategy, name);
          demo.faults.heal();
          await agree(demo, c.strategy, `${name}, healed`);
        }
      }, 900_000);

      it("the allocator's log holds no error about the Kubernetes API", () => {
        const log = fs.readFileSync(demo.realTas["per-node"]!.logFile, "utf8");
        const bad = log.split("\n").filter((l) => /"level":"error"|level=ERROR|level=WARN|"level":"warn"/.test(l) && !/CRD not available/.test(l));
        expect(bad.slice(0, 5)).toEqual([]);
      });
    });
  }
});

const get = (url: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get(url, { timeout: 5000 }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });

realTaSuite("npm run demo-cluster -- --flavor upstream --ta real", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo(["--flavor", "upstream", "--ta", "real", "--strategy", "per-node", "--nodes", "12"], 120_000);
  }, 150_000);
  afterAll(async () => demo?.stop());

  it("serves the printed URL from the built otel-allocator binary, whose own pages answer", async () => {
    const { info } = demo;
    expect(info.ta).toBe("real");
    expect(info.taVersion).toMatch(/^v\d+\.\d+\.\d+$/);
    const url = new URL(info.targetAllocators["per-node"]!.url);
    // the process listening on that port: found through /proc, its executable is the built binary
    const inode = fs
      .readFileSync("/proc/net/tcp", "utf8")
      .split("\n")
      .slice(1)
      .map((l) => l.trim().split(/\s+/))
      .find((f) => f[1]?.endsWith(`:${Number(url.port).toString(16).toUpperCase().padStart(4, "0")}`) && f[3] === "0A")?.[9];
    expect(inode, "a listening socket on the TA's port").toBeTruthy();
    const pid = fs.readdirSync("/proc").find((p) => {
      if (!/^\d+$/.test(p)) return false;
      try {
        return fs.readdirSync(`/proc/${p}/fd`).some((fd) => fs.readlinkSync(`/proc/${p}/fd/${fd}`) === `socket:[${inode}]`);
      } catch {
        return false;
      }
    });
    expect(pid).toBeTruthy();
    expect(fs.readlinkSync(`/proc/${pid}/exe`)).toMatch(/otel-allocator$/);
    const debug = await get(`${url.origin}/debug/targets`);
    expect(debug.status).toBe(200);
    expect(debug.body).toMatch(/<html/i);
    const jobs = JSON.parse((await get(`${url.origin}/jobs`)).body) as Record<string, unknown>;
    expect(Object.keys(jobs).length).toBeGreaterThan(5);
  });

  it("answers 400 for a fault that needs the simulated allocator, saying why", async () => {
    const r = await fetch(`${demo.info.control}/faults`, {
      method: "POST",
      headers: { Authorization: `Bearer ${demo.info.controlToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ fault: "ta-malformed", role: "per-node" }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toMatch(/needs the simulated Target Allocator.*real one/);
  });
});
