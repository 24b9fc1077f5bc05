/**
 * The clusters shared out over replicas through @kubernetes/client-node against the demo's Kubernetes API (real HTTP,
 * kube-apiserver's optimistic concurrency): three replicas on six clusters hold two each; one vanishing without a word
 * (what SIGKILL leaves) hands its two to the others once its Leases run out, and nothing else moves; a replica joining
 * takes two, each handed over once; without the right to list Leases every cluster still has one holder.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CoordinationV1Api, KubeConfig } from "@kubernetes/client-node";
import { waitUntil } from "@allocation-lens/test-support/wait";
import { startKubeApi, type KubeApiServer } from "@allocation-lens/demo-cluster/internal/kube/server";
import { demoStore } from "@allocation-lens/demo-cluster/test/fixtures/kube";
import { leaseCalls, type ClusterLease } from "@/server/lease/elector";
import { memberCalls, ShardedLeases, type MemberCalls } from "@/server/lease/shards";

const NS = "allocation-lens";
const PREFIX = "lens";
const CLUSTERS = ["c1", "c2", "c3", "c4", "c5", "c6"];
const DURATION_S = 2;
const RENEW_S = 0.25;
let api: KubeApiServer;
let dir: string;
let running: ShardedLeases[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lease-shards-test-"));
  api = await startKubeApi(demoStore(), { dir });
});
afterEach(async () => {
  await Promise.all(running.map((s) => s.stop()));
  running = [];
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

function replica(identity: string, members?: MemberCalls, log: string[] = []): ShardedLeases {
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const s = new ShardedLeases(
    { lease: (name) => leaseCalls(coordination, NS, name), members: members ?? memberCalls(coordination, NS, PREFIX) },
    { namespace: NS, prefix: PREFIX, me: { identity, address: `127.0.0.1:${3000 + identity.charCodeAt(identity.length - 1)}`, durationSeconds: DURATION_S }, renewSeconds: RENEW_S, clusters: CLUSTERS, log: (l) => log.push(l) },
    () => undefined,
  );
  running.push(s);
  s.start();
  return s;
}

/** what SIGKILL leaves of a replica: nothing reads, renews or releases any more */
function vanish(s: ShardedLeases): void {
  const halt = (x: object, timers: string[]) => {
    (x as { stopped: boolean }).stopped = true;
    for (const t of timers) clearTimeout((x as Record<string, NodeJS.Timeout>)[t]);
  };
  halt(s, ["timer"]);
  for (const e of [s.member, ...s.elections.values()] as ClusterLease[]) halt(e, ["timer", "stepDown"]);
  running = running.filter((x) => x !== s);
}

const holders = () => Object.fromEntries(CLUSTERS.map((c) => [c, (api.leases.get(NS, `${PREFIX}-${c}`)?.spec.holderIdentity as string | undefined) ?? null]));
const transitions = () => Object.fromEntries(CLUSTERS.map((c) => [c, Number(api.leases.get(NS, `${PREFIX}-${c}`)?.spec.leaseTransitions ?? 0)]));
const counts = (ids: string[]) => {
  const h = holders();
  return ids.map((id) => Object.values(h).filter((x) => x === id).length);
};
/** every cluster held, by the API server's Leases and by the replicas' own views alike */
const balanced = (rs: ShardedLeases[], ids: string[], each: number[]) => () =>
  JSON.stringify(counts(ids)) === JSON.stringify(each) && rs.every((r, i) => r.view.held.length === each[i] && r.view.members.length === ids.length);

describe("ShardedLeases", () => {
  it("three replicas on six clusters: two each; one vanishes: its two move within the Lease duration plus two renewals; it comes back: two move back, each once", async () => {
    const ids = ["lens-a", "lens-b", "lens-c"];
    const rs = ids.map((id) => replica(id));
    await waitUntil(balanced(rs, ids, [2, 2, 2]), "two clusters each", 20_000);
    for (const r of rs) expect(r.view).toMatchObject({ share: 2, settled: true, unshared: false, members: ids });
    const before = holders();
    const t0 = transitions();
    // the membership Leases: one per replica, labelled, held by it
    expect(api.leases.list(NS).filter((l) => l.metadata.name.startsWith(`${PREFIX}-member-`)).map((l) => [l.metadata.name, l.spec.holderIdentity, (l.metadata.labels as Record<string, string>)["allocation-lens.io/members-of"]])).toEqual(
      ids.map((id) => [`${PREFIX}-member-${id}`, id, PREFIX]),
    );

    const killedAt = Date.now();
    vanish(rs[2]);
    await waitUntil(balanced(rs.slice(0, 2), ids.slice(0, 2), [3, 3]), "three clusters each for the two left", 20_000);
    const movedAfterMs = Date.now() - killedAt;
    const after = holders();
    const moved = CLUSTERS.filter((c) => after[c] !== before[c]);
    expect(moved.sort()).toEqual(CLUSTERS.filter((c) => before[c] === "lens-c").sort());
    // not before its Leases ran out; within the duration plus two renewal periods (and the test's own sampling)
    expect(movedAfterMs).toBeGreaterThanOrEqual((DURATION_S - RENEW_S) * 1000 - 100);
    expect(movedAfterMs).toBeLessThanOrEqual((DURATION_S + 2 * RENEW_S) * 1000 + 750);

    const t1 = transitions();
    const back = replica("lens-c");
    const three = [rs[0], rs[1], back];
    await waitUntil(balanced(three, ids, [2, 2, 2]), "two clusters each again", 20_000);
    const t2 = transitions();
    const movedBack = CLUSTERS.filter((c) => t2[c] !== t1[c]);
    expect(movedBack).toHaveLength(2);
    // each handed over once (released, then taken: one transition each), and taken by the replica that came back
    for (const c of movedBack) expect([t2[c] - t1[c], holders()[c]]).toEqual([1, "lens-c"]);
    expect(rs[0].elections.get(movedBack[0])!.counts.handOvers + rs[1].elections.get(movedBack[0])!.counts.handOvers).toBe(1);
    // nothing else changed hands over the whole test
    for (const c of CLUSTERS.filter((x) => !moved.includes(x) && !movedBack.includes(x))) expect(t2[c]).toBe(t0[c]);
  }, 60_000);

  it("replicas started at once claim only after they have seen each other: no cluster is handed over", async () => {
    const ids = ["lens-a", "lens-b", "lens-c"];
    const rs = ids.map((id) => replica(id));
    await waitUntil(balanced(rs, ids, [2, 2, 2]), "two clusters each", 20_000);
    expect(rs.flatMap((r) => [...r.elections.values()]).reduce((s, e) => s + e.counts.handOvers, 0)).toBe(0);
  }, 30_000);

  it("without the right to list Leases: says so once, and every cluster still has exactly one holder", async () => {
    const forbidden: MemberCalls = { list: async () => Promise.reject(Object.assign(new Error("leases is forbidden"), { code: 403 })) };
    const logs: string[][] = [[], []];
    const rs = ["lens-a", "lens-b"].map((id, i) => replica(id, forbidden, logs[i]));
    // settled when the replicas' own views agree with the Leases: a Lease is in the API before its writer has heard back
    const holdersSeen = (c: string) => rs.filter((r) => r.view.held.includes(c)).map((r) => r.member.current.holder);
    const agreed = () => {
      const h = holders();
      return CLUSTERS.every((c) => h[c] !== null && holdersSeen(c).length === 1 && holdersSeen(c)[0] === h[c]);
    };
    await waitUntil(() => agreed() && rs.every((r) => r.view.unshared), "every cluster held, by the replica that says so", 20_000);
    const h = holders();
    for (const c of CLUSTERS) expect(holdersSeen(c)).toEqual([h[c]]);
    for (const log of logs) expect(log.filter((l) => l.includes("needs list on leases"))).toHaveLength(1);
  }, 30_000);
});
