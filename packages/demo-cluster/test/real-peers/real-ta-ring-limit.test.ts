/**
 * The real allocators' ring limit, held to the binaries: a consistent-hashing ring (github.com/buraksezer/consistent,
 * 1061 partitions, load 1.1) holds at most 1,061 members. Upstream's otel-allocator and the CloudWatch fork's run with
 * 1,061 collectors and die with 1,062 under consistent-hashing and under per-node with its consistent-hashing fallback;
 * per-node without fallback (and upstream's least-weighted) build no ring and run with 1,062.
 *
 * A world of its own, as small as the question allows: N agent pods, scheduled, Running and Ready, behind the demo's
 * Kubernetes API, and one static target labelled with the first pod's node. "Runs": that target is assigned to a
 * collector in an answer that lists all N collectors (the ring, when there is one, was built over them). "Dies": the
 * process exits and its log holds the panic: the ring's own ("not enough room to distribute partitions"), or, in
 * upstream, now and then a nil pointer dereference in consistentHashingStrategy.GetCollectorForTarget, when the goroutine
 * placing targets meets the ring that the other one failed to build before the process is gone. The simulation is held to the same boundary: its `allocate` refuses the
 * same rings (the demo's TA then crash-loops, src/ring-limit.test.ts) and allocates the others.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import type { Flavor, StrategyName } from "@allocation-lens/allocation/model";
import { RING_PANIC, RingCapacityError } from "@allocation-lens/allocation/hashring";
import { allocate } from "@allocation-lens/allocation/strategies";
import { Store } from "../../src/store";
import { startKubeApi, type KubeApiServer } from "../../src/kube/server";
import { generateDemoPki, writePki, type PkiPaths } from "../../src/certs";
import { RealTa } from "../../src/real-ta";
import { makePod, podTemplate } from "../../src/world/objects";
import { cloudwatchTaBinary, realTaBinary, type RealTaBinary } from "@allocation-lens/test-support/real-ta";
import { requirePeers } from "@allocation-lens/demo-cluster/real-ta-build";
import { waitFor } from "@allocation-lens/test-support/wait";
import { removeDir, tempDir } from "@allocation-lens/test-support/tmp";

const NS = "obs";
const SELECTOR = { "app.kubernetes.io/component": "agent" };
const PROBE = "10.0.250.9:443";

/** `n` agent pods on nodes node-00000.. (the collectors), Running and Ready. */
function agentPods(n: number) {
  const template = podTemplate({ namespace: NS, labels: SELECTOR, ownerReferences: [], containers: [{ name: "agent", image: "agent:1" }] });
  return Array.from({ length: n }, (_, i) => {
    const node = `node-${String(i).padStart(5, "0")}`;
    return makePod(template, `agent-${String(i).padStart(5, "0")}`, { nodeName: node, hostIP: `10.1.${i >> 8}.${i & 255}`, podIP: `100.64.${i >> 8}.${i & 255}` }, Date.now() - 60_000);
  });
}

/** The operator's configuration of this world's TA: the collectors, one static job whose target sits on node-00000. */
function configText(flavor: Flavor): string {
  const job = { job_name: "probe", static_configs: [{ targets: [PROBE], labels: { __meta_kubernetes_pod_node_name: "node-00000" } }] };
  return YAML.stringify(
    flavor === "upstream"
      ? { collector_selector: { matchlabels: SELECTOR }, collector_namespace: NS, config: { scrape_configs: [job] } }
      : { label_selector: SELECTOR, config: { scrape_configs: [job] } },
  );
}

interface Case {
  strategy: StrategyName;
  fallback: "consistent-hashing" | null;
  collectors: number;
  dies: boolean;
}

function ringSuite(flavor: Flavor, binary: RealTaBinary | undefined, cases: Case[], opts: { crashLoop?: boolean } = {}): void {
  const name = flavor === "upstream" ? "upstream's otel-allocator" : "the CloudWatch fork's allocator";
  if (!binary) {
    const reason = `${name} is not built (scripts/peers.mjs builds it; npm test runs it first)`;
    if (requirePeers()) it(`${name}: the real allocator is available (ALLOCATION_LENS_REQUIRE_PEERS=1)`, () => expect.fail(reason));
    else it.skip(`the ring's limit on ${name}: ${reason}`, () => undefined);
    return;
  }
  describe(`the ring's limit on ${name}`, () => {
    let dir: string;
    let store: Store;
    let kube: KubeApiServer;
    let pki: PkiPaths;
    beforeAll(async () => {
      dir = tempDir("lens-ring-");
      store = new Store();
      kube = await startKubeApi(store, { dir, endpointSlices: false });
      pki = await writePki(path.join(dir, "tls"), await generateDemoPki());
    }, 60_000);
    afterAll(async () => {
      await kube?.close();
      if (dir) removeDir(dir);
    });

    for (const c of cases) {
      const what = `${c.strategy}${c.strategy === "per-node" ? (c.fallback ? " with its fallback" : " without fallback") : ""}, ${c.collectors} collectors: ${c.dies ? "dies" : "runs"}`;
      it(what, async () => {
        for (const p of store.list("pods")) store.remove("pods", p.metadata.namespace, p.metadata.name);
        const pods = agentPods(c.collectors);
        for (const p of pods) store.upsert("pods", p);
        // the simulation decides the same way on the same collectors and target
        const simulated = () =>
          allocate(
            { targets: [{ key: "probe", job: "probe", address: PROBE, labels: { __address__: PROBE, __meta_kubernetes_pod_node_name: "node-00000" } }], collectors: pods.map((p) => ({ id: p.metadata.name, node: String(p.spec?.nodeName) })) },
            { strategy: c.strategy, fallback: c.fallback, flavor },
          );
        if (c.dies) expect(simulated).toThrow(RingCapacityError);
        else expect(simulated().assignment.get("probe")).toBeTruthy();
        const taDir = path.join(dir, `${c.strategy}-${c.fallback ?? "none"}-${c.collectors}`);
        const started = RealTa.start({
          flavor,
          binary: binary.binary,
          version: binary.version,
          configText: configText(flavor),
          strategy: c.strategy,
          fallback: c.fallback,
          graceSeconds: 30,
          kubeconfig: kube.kubeconfigPath,
          dir: taDir,
          host: "127.0.0.1",
          ...(flavor === "cloudwatch" ? { https: { ca: pki.ca, cert: pki.serverCert, key: pki.serverKey }, client: { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey }, collectorNamespace: NS } : {}),
        });
        // it may die before or after it is ready: the start's outcome is not the verdict
        const ta = await started.catch(() => undefined);
        const log = () => fs.readFileSync(path.join(taDir, flavor === "upstream" ? "otel-allocator.log" : "cloudwatch-target-allocator.log"), "utf8");
        try {
          if (c.dies) {
            const died = () => log().includes(RING_PANIC) || /panic: runtime error: invalid memory address or nil pointer dereference[\s\S]*consistentHashingStrategy\)\.GetCollectorForTarget/.test(log());
            await waitFor(`${name} to die`, async () => died() && (!ta || (await ta.exited(100)) !== undefined), {
              timeoutMs: 60_000,
              intervalMs: 200,
              last: () => ({ exitCode: ta ? "running or exited" : "exited before ready", log: log().split("\n").filter((l, i, all) => /panic|goroutine|consistent/.test(l) || /panic/.test(all[i - 1] ?? "")).slice(0, 12).map((l) => l.slice(0, 300)) }),
            });
            expect(log()).toMatch(/^panic: /m);
            expect(log()).toMatch(/buraksezer\/consistent|consistent_hashing\.go/);
          } else {
            expect(ta, `${name} started`).toBeDefined();
            let last = "";
            await waitFor(
              `the probe assigned over all ${c.collectors} collectors`,
              async () => {
                const r = await ta!.read("/jobs/probe/targets");
                if (r.status !== 200) return false;
                const byCollector = JSON.parse(r.body) as Record<string, { targets: { targets: string[] }[] | null }>;
                const holders = Object.entries(byCollector).filter(([, e]) => (e.targets ?? []).some((g) => g.targets.includes(PROBE)));
                last = `${Object.keys(byCollector).length} collectors, held by ${holders.map(([k]) => k).join(",")}`;
                return Object.keys(byCollector).length === c.collectors && holders.length === 1;
              },
              { timeoutMs: 90_000, intervalMs: 500, last: () => last },
            );
            expect(await ta!.exited(0)).toBeUndefined();
            expect(log()).not.toContain(RING_PANIC);
          }
        } finally {
          await ta?.close();
        }
      }, 150_000);
    }

    // A DaemonSet rollout with maxSurge: for a while each node has its old and its new agent pod. The allocator that ran
    // over 1,061 collectors dies when the surge takes its ring over the limit, and the demo restarts it with the
    // kubelet's back-off (as its Deployment's pod would be) until the old pods are gone and it runs again.
    if (opts.crashLoop) {
      it("per-node with its fallback, 1,061 collectors and a surge to 1,100: dies, restarted with back-off, runs again once the surge is over", async () => {
        for (const p of store.list("pods")) store.remove("pods", p.metadata.namespace, p.metadata.name);
        const pods = agentPods(1100);
        for (const p of pods.slice(0, 1061)) store.upsert("pods", p);
        const taDir = path.join(dir, "crash-loop");
        const crashes: (string | null)[] = [];
        const ta = await RealTa.start({
          flavor,
          binary: binary.binary,
          version: binary.version,
          configText: configText(flavor),
          strategy: "per-node",
          fallback: "consistent-hashing",
          graceSeconds: 30,
          kubeconfig: kube.kubeconfigPath,
          dir: taDir,
          host: "127.0.0.1",
          onCrash: (c) => crashes.push(c ? c.reason : null),
          restartBackoffMs: 1_000,
          ...(flavor === "cloudwatch" ? { https: { ca: pki.ca, cert: pki.serverCert, key: pki.serverKey }, client: { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey }, collectorNamespace: NS } : {}),
        });
        let last = "";
        const probeOverAll = async (n: number) => {
          try {
            const r = await ta.read("/jobs/probe/targets", 2_000);
            if (r.status !== 200) return (last = `answered ${r.status}`), false;
            const byCollector = JSON.parse(r.body) as Record<string, { targets: { targets: string[] }[] | null }>;
            const holders = Object.entries(byCollector).filter(([, e]) => (e.targets ?? []).some((g) => g.targets.includes(PROBE)));
            last = `${Object.keys(byCollector).length} collectors, held by ${holders.length}`;
            return Object.keys(byCollector).length === n && holders.length === 1;
          } catch (e) {
            last = (e as Error).message;
            return false;
          }
        };
        try {
          await waitFor("the probe assigned over 1,061 collectors", () => probeOverAll(1061), { timeoutMs: 90_000, intervalMs: 500, last: () => last });
          expect(ta.crashes).toBe(0);
          // the surge: 39 new pods beside the old ones
          for (const p of pods.slice(1061)) store.upsert("pods", p);
          await waitFor("a crash of the ring over its limit", () => ta.crashes > 0, { timeoutMs: 60_000, intervalMs: 200, last: () => `crashes ${JSON.stringify(crashes)}` });
          expect(crashes[0]).toContain("not enough room to distribute partitions");
          expect(ta.crashed?.backoffMs).toBe(1_000);
          // the surge over: the old pods go, and the restarted allocator runs (after one back-off or a few)
          for (const p of pods.slice(1061)) store.remove("pods", p.metadata.namespace, p.metadata.name);
          await waitFor("the allocator running again over 1,061 collectors", async () => ta.crashed === null && (await probeOverAll(1061)), { timeoutMs: 120_000, intervalMs: 500, last: () => `${last}; crashes ${JSON.stringify(crashes)}` });
          expect(crashes.at(-1)).toBeNull();
          expect(fs.readFileSync(path.join(taDir, flavor === "upstream" ? "otel-allocator.log" : "cloudwatch-target-allocator.log"), "utf8")).toMatch(/^panic: /m);
        } finally {
          await ta.close();
        }
      }, 300_000);
    }
  });
}

const RING = [
  { strategy: "consistent-hashing", fallback: null, collectors: 1061, dies: false },
  { strategy: "consistent-hashing", fallback: null, collectors: 1062, dies: true },
  { strategy: "per-node", fallback: "consistent-hashing", collectors: 1061, dies: false },
  { strategy: "per-node", fallback: "consistent-hashing", collectors: 1062, dies: true },
  { strategy: "per-node", fallback: null, collectors: 1062, dies: false },
] as const satisfies readonly Case[];

ringSuite("upstream", realTaBinary(), [...RING, { strategy: "least-weighted", fallback: null, collectors: 1062, dies: false }], { crashLoop: true });
ringSuite("cloudwatch", cloudwatchTaBinary(), [...RING]);
