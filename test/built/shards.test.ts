/**
 * Three dashboard replicas on six demo clusters, the clusters shared out by their Leases (server/lease/shards.ts): the
 * built server entry started three times as separate processes, each with the six clusters and `lease` in its
 * configuration, the first cluster's API holding every Lease.
 *
 * - Balanced: each replica holds two cluster Leases; every replica answers for every cluster (the others through the
 *   holder); each cluster's TAs are polled by its holder alone; each replica's lease series say what the Leases say.
 * - SIGKILL of one replica: its two clusters move to the other two (three each) within the Lease duration plus two
 *   renewal periods, and nothing else moves.
 * - Started again: two clusters move to it, each handed over once, and the three hold two each again.
 *
 * Needs the build (skipped with a warning without it, a failure under CI).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Role } from "@/lib/model";
import { startDemoCluster, type DemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";
import { waitFor } from "@allocation-lens/test-support/wait";
import { parseMetrics } from "@/test/acceptance/support";
import { holderSource } from "@/lib/lease/holder-stale";
import { HANDED_OVER } from "@/lib/lease/shards";
import { BUILT, demoConfig, replicaApi as api, startReadyReplica, type Replica } from "./replica-process";

const NS = "allocation-lens";
const CLUSTERS = ["c1", "c2", "c3", "c4", "c5", "c6"];
const NAMES = ["lens-a", "lens-b", "lens-c"];
const DURATION_S = 6;
const RENEW_S = 0.5;
const INTERVAL_S = 3;

/** The line a replica logs when it gives memory back after handing clusters over (server/poll/worker.ts). */
const RELEASED = /\d+ clusters? handed over: memory given back, RSS [\d.]+ MiB -> [\d.]+ MiB \(a full collection of the poll thread's heap, malloc_trim (gave memory back|found none to give); \d+ ms\)/;
/** Whether a replica has logged that line since it last handed a cluster over (server/lease logs each hand-over). */
function releasedSinceHandOver(r: Replica): boolean {
  const out = r.proc.output();
  const i = out.lastIndexOf(HANDED_OVER);
  return i >= 0 && RELEASED.test(out.slice(i));
}

describe.skipIf(!BUILT)("three replicas share six clusters out by their Leases", () => {
  const demos: DemoCluster[] = [];
  const replicas = new Map<string, Replica>();
  let dir: string;
  let config: (name: string) => unknown;

  const lease = (c: string) => demos[0].kube.leases.get(NS, `allocation-lens-${c}`);
  const holders = () => Object.fromEntries(CLUSTERS.map((c) => [c, (lease(c)?.spec.holderIdentity as string | undefined) ?? null]));
  const transitions = () => Object.fromEntries(CLUSTERS.map((c) => [c, Number(lease(c)?.spec.leaseTransitions ?? 0)]));
  const counts = () => {
    const h = Object.values(holders());
    return Object.fromEntries([...replicas.keys()].map((n) => [n, h.filter((x) => x === n).length]));
  };
  const balancedAt = (each: number) => () => {
    const c = counts();
    return Object.values(holders()).every((h) => h !== null && replicas.has(h)) && Object.values(c).every((n) => n === each) ? c : undefined;
  };
  const taRequests = (i: number) => (Object.keys(demos[i].taServers) as Role[]).reduce((s, r) => s + demos[i].taServers[r]!.requests(), 0);

  async function start(name: string): Promise<Replica> {
    const r = await startReadyReplica(name, config(name), dir);
    replicas.set(name, r);
    return r;
  }

  /** every replica answers for every cluster with data from that cluster's holder (no holder problem in `stale`) */
  async function everyReplicaAnswersEveryCluster(): Promise<void> {
    for (const r of replicas.values()) {
      for (const c of CLUSTERS) {
        await waitFor(
          `${r.name} to answer for ${c}`,
          async () => {
            const s = await api(r, `/api/v1/summary?cluster=${c}`);
            return s.status === 200 && !s.body.stale.some((x: { source: string }) => x.source === holderSource(c)) && s.body.nodes.total > 0;
          },
          { timeoutMs: (DURATION_S + 2 * INTERVAL_S) * 1000, intervalMs: 100 },
        );
      }
    }
  }

  /**
   * every replica's /metrics says what the Leases say: allocation_lens_lease_held 1 for the clusters it holds and 0 for
   * the others, `members` live replicas and a share of `share` (the elections' view follows the Leases within a renewal)
   */
  async function leaseSeriesAgree(members: number, share: number): Promise<void> {
    await waitFor(
      `the lease series of every replica to agree with the Leases (${members} replicas, a share of ${share})`,
      async () => {
        const h = holders();
        for (const r of replicas.values()) {
          const m = parseMetrics((await api(r, "/metrics")).text);
          if (CLUSTERS.some((cl) => m.value("allocation_lens_lease_held", { cluster: cl }) !== (h[cl] === r.name ? 1 : 0))) return undefined;
          if (m.value("allocation_lens_lease_replicas") !== members || m.value("allocation_lens_lease_share") !== share) return undefined;
        }
        return true;
      },
      { timeoutMs: 10_000, intervalMs: 200, last: holders },
    );
  }

  beforeAll(async () => {
    for (let i = 0; i < CLUSTERS.length; i++) demos.push(await startDemoCluster({ pollInterval: INTERVAL_S, nodes: 3, seed: 31 + i }));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "lens-shards-"));
    const tokenFile = path.join(dir, "peer-token");
    fs.writeFileSync(tokenFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
    const clusters = demos.map((d, i) => ({ ...demoConfig(d.info).clusters[0], name: CLUSTERS[i], pollIntervalSeconds: INTERVAL_S }));
    config = (name) => ({
      clusters,
      history: { path: path.join(dir, `${name}.sqlite`) },
      lease: { namespace: NS, durationSeconds: DURATION_S, renewSeconds: RENEW_S, peerTokenFile: tokenFile, kubernetes: clusters[0].kubernetes },
      server: { requestsPerSecondPerClient: 500, requestBurstPerClient: 1000, maxRequestsPerClient: 64 },
    });
    await Promise.all(NAMES.map((n) => start(n)));
  }, 240_000);

  afterAll(async () => {
    await Promise.all([...replicas.values()].map((r) => r.proc.kill()));
    for (const d of demos) await d.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("balanced: two clusters each; every replica answers for every cluster; each cluster's TAs polled by its holder alone", async () => {
    const c = await waitFor("two clusters each", balancedAt(2), { timeoutMs: 30_000, last: holders });
    console.log(`shards: balanced ${JSON.stringify(c)}: ${JSON.stringify(holders())}`);
    await everyReplicaAnswersEveryCluster();
    await leaseSeriesAgree(3, 2);

    const sent = async () => {
      const per = new Map<string, Record<string, number>>();
      for (const r of replicas.values()) {
        const m = parseMetrics((await api(r, "/metrics")).text);
        per.set(r.name, Object.fromEntries(CLUSTERS.map((cl) => [cl, (["per-node", "cluster-scraper"] as Role[]).reduce((s, role) => s + (m.value("allocation_lens_ta_requests_total", { cluster: cl, role }) ?? 0), 0)])));
      }
      return per;
    };
    const h = holders();
    const before = { sent: await sent(), ta: CLUSTERS.map((_, i) => taRequests(i)) };
    // two polls of every cluster, each counted by its holder when it ended (the TAs count a poll's requests as they come:
    // theirs move while the poll is still running, the holder's counter only at its end)
    const countedSince = (since: Map<string, Record<string, number>>) => async () => {
      const now = await sent();
      return CLUSTERS.every((cl) => now.get(h[cl]!)![cl] > since.get(h[cl]!)![cl]) ? now : undefined;
    };
    const once = await waitFor("a poll of every cluster, counted by its holder", countedSince(before.sent), { timeoutMs: 4 * INTERVAL_S * 1000, intervalMs: 100 });
    const twice = await waitFor("a second poll of every cluster", countedSince(once), { timeoutMs: 4 * INTERVAL_S * 1000, intervalMs: 100 });
    const after = { sent: twice, ta: CLUSTERS.map((_, i) => taRequests(i)) };
    expect(holders()).toEqual(h);
    for (const [i, cl] of CLUSTERS.entries()) {
      const moved = [...replicas.keys()].filter((n) => after.sent.get(n)![cl] > before.sent.get(n)![cl]);
      expect(moved, `the replicas that polled ${cl}`).toEqual([h[cl]]);
      expect(after.ta[i]).toBeGreaterThan(before.ta[i]);
    }
  });

  it("SIGKILL of one replica: its two clusters move to the other two within the Lease duration plus two renewals, nothing else moves", async () => {
    const before = holders();
    const t0 = transitions();
    const victim = replicas.get("lens-c")!;
    const killedAt = Date.now();
    victim.proc.child.kill("SIGKILL");
    await victim.proc.exited;
    replicas.delete("lens-c");
    const c = await waitFor("three clusters each for the two left", balancedAt(3), { timeoutMs: 30_000, intervalMs: 50, last: holders });
    const movedAfterMs = Date.now() - killedAt;
    const after = holders();
    const moved = CLUSTERS.filter((cl) => after[cl] !== before[cl]);
    const t1 = transitions();
    console.log(`shards: SIGKILL of lens-c: ${moved.join(", ")} moved after ${movedAfterMs} ms (bound ${(DURATION_S + 2 * RENEW_S) * 1000} ms): ${JSON.stringify(c)}`);
    expect(moved.sort()).toEqual(CLUSTERS.filter((cl) => before[cl] === "lens-c").sort());
    for (const cl of CLUSTERS) expect(t1[cl] - t0[cl], cl).toBe(moved.includes(cl) ? 1 : 0);
    expect(movedAfterMs).toBeGreaterThanOrEqual((DURATION_S - RENEW_S) * 1000 - 500);
    expect(movedAfterMs).toBeLessThanOrEqual((DURATION_S + 2 * RENEW_S) * 1000 + 1000);
    await everyReplicaAnswersEveryCluster();
    await leaseSeriesAgree(2, 3);
  });

  it("started again: two clusters move to it, each handed over once; two each again; the replicas that handed them over give their memory back", async () => {
    const t0 = transitions();
    const before = holders();
    await start("lens-c");
    const c = await waitFor("two clusters each again", balancedAt(2), { timeoutMs: 30_000, intervalMs: 50, last: holders });
    const after = holders();
    const t1 = transitions();
    const moved = CLUSTERS.filter((cl) => after[cl] !== before[cl]);
    console.log(`shards: lens-c started again: ${moved.join(", ")} moved to it: ${JSON.stringify(c)}`);
    expect(moved).toHaveLength(2);
    for (const cl of CLUSTERS) expect([cl, t1[cl] - t0[cl]]).toEqual([cl, moved.includes(cl) ? 1 : 0]);
    for (const cl of moved) expect(after[cl]).toBe("lens-c");
    await everyReplicaAnswersEveryCluster();
    // each replica that handed a cluster over logs the release of its memory once the hand-overs have settled
    const givers = [...new Set(moved.map((cl) => before[cl]!))];
    expect(givers.length).toBeGreaterThan(0);
    await waitFor("the memory release of each replica that handed a cluster over", () => givers.every((n) => releasedSinceHandOver(replicas.get(n)!)) || undefined, {
      timeoutMs: 30_000,
      intervalMs: 200,
      last: () => givers.map((n) => replicas.get(n)!.proc.output().split("\n").filter((l) => l.includes("handed over")).slice(-3)),
    });
    for (const n of givers) console.log(`shards: ${n}: ${replicas.get(n)!.proc.output().match(new RegExp(RELEASED, "g"))!.at(-1)}`);
  });
});
