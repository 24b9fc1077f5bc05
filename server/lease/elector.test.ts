/**
 * The Lease election through client-node against the demo's Kubernetes API (real HTTP, kube-apiserver's optimistic
 * concurrency): of replicas started at once exactly one holds the Lease; a holder that vanishes without a word (its
 * timers stopped, nothing released: what SIGKILL leaves) is replaced once its Lease runs out; a clean stop releases it at once.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CoordinationV1Api, KubeConfig } from "@kubernetes/client-node";
import { waitUntil } from "@allocation-lens/test-support/wait";
import { startKubeApi, type KubeApiServer } from "@allocation-lens/demo-cluster/internal/kube/server";
import { demoStore } from "@allocation-lens/demo-cluster/test/fixtures/kube";
import { ADDRESS_ANNOTATION } from "@/lib/lease/election";
import { ClusterLease, leaseCalls, type LeaseView } from "@/server/lease/elector";

const NS = "allocation-lens";
const NAME = "allocation-lens-prod";
let api: KubeApiServer;
let dir: string;
let electors: ClusterLease[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lease-elector-test-"));
  api = await startKubeApi(demoStore(), { dir });
});
afterEach(async () => {
  await Promise.all(electors.map((e) => e.stop()));
  electors = [];
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

function replica(identity: string, durationSeconds = 3, renewSeconds = 1) {
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  const views: LeaseView[] = [];
  const e = new ClusterLease(
    leaseCalls(kc.makeApiClient(CoordinationV1Api), NS, NAME),
    { namespace: NS, name: NAME, me: { identity, address: `127.0.0.1:${identity.length + 3000}`, durationSeconds }, renewSeconds },
    (v) => views.push(v),
  );
  electors.push(e);
  return { e, views };
}

/** what SIGKILL leaves of a holder: it stops reading and renewing, and writes nothing more */
function vanish(e: ClusterLease): void {
  (e as unknown as { stopped: boolean }).stopped = true;
  clearTimeout((e as unknown as { timer: NodeJS.Timeout }).timer);
  clearTimeout((e as unknown as { stepDown: NodeJS.Timeout }).stepDown);
  electors = electors.filter((x) => x !== e);
}

const lease = () => api.leases.get(NS, NAME);

describe("ClusterLease", () => {
  it("of three replicas started at once, exactly one holds the Lease; the others know it and its address", async () => {
    const rs = ["lens-a", "lens-bb", "lens-ccc"].map((id) => replica(id));
    for (const r of rs) r.e.start();
    await waitUntil(() => rs.every((r) => r.e.current.holder !== null), "every replica to know the holder");
    const holders = rs.filter((r) => r.e.current.self);
    expect(holders).toHaveLength(1);
    const holder = holders[0].e.current.holder!;
    for (const r of rs) expect(r.e.current).toMatchObject({ holder, address: `127.0.0.1:${holder.length + 3000}` });
    const l = lease()!;
    expect(l.spec).toMatchObject({ holderIdentity: holder, leaseDurationSeconds: 3, leaseTransitions: 0 });
    expect(l.metadata.annotations).toEqual({ [ADDRESS_ANNOTATION]: `127.0.0.1:${holder.length + 3000}` });
    expect(String(l.spec.acquireTime)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // renewals move renewTime, not acquireTime
    const first = { acquire: l.spec.acquireTime, renew: l.spec.renewTime };
    await waitUntil(() => lease()!.spec.renewTime !== first.renew, "a renewal");
    expect(lease()!.spec.acquireTime).toBe(first.acquire);
    expect(rs.filter((r) => r.e.current.self)).toHaveLength(1);
  });

  it("takes over from a holder that vanished once its Lease ran out, and not before", async () => {
    const a = replica("lens-a");
    a.e.start();
    await waitUntil(() => a.e.current.self, "lens-a to hold the Lease");
    const b = replica("lens-bb");
    b.e.start();
    await waitUntil(() => b.e.current.holder === "lens-a", "lens-bb to see lens-a hold it");
    vanish(a.e);
    const gone = Date.now();
    await waitUntil(() => b.e.current.self, "lens-bb to take the Lease over", 10_000);
    const took = Date.now() - gone;
    // not before the duration (3 s) from the last renewal it saw; within duration + one renewal period (+ slack)
    expect(took).toBeGreaterThan(3000 - 1000);
    expect(took).toBeLessThan(3000 + 1000 + 1000);
    expect(lease()!.spec).toMatchObject({ holderIdentity: "lens-bb", leaseTransitions: 1 });
    expect(b.e.counts.takeovers).toBe(1);
  });

  it("a clean stop releases the Lease: another replica takes it at its next read", async () => {
    const a = replica("lens-a", 30, 1);
    a.e.start();
    await waitUntil(() => a.e.current.self, "lens-a to hold the Lease");
    const b = replica("lens-bb", 30, 1);
    b.e.start();
    await waitUntil(() => b.e.current.holder === "lens-a", "lens-bb to see lens-a hold it");
    const stopped = Date.now();
    await a.e.stop();
    expect(lease()!.spec.holderIdentity).toBeUndefined();
    await waitUntil(() => b.e.current.self, "lens-bb to take the released Lease", 5000);
    // far sooner than the 30 s duration
    expect(Date.now() - stopped).toBeLessThan(2500);
  });

  it("a holder that cannot reach the API server stops counting itself as one within the renew deadline", async () => {
    const a = replica("lens-a", 4, 1);
    a.e.start();
    await waitUntil(() => a.e.current.self, "lens-a to hold the Lease");
    await api.close(); // the API server is gone
    const cut = Date.now();
    await waitUntil(() => !a.e.current.self, "lens-a to step down", 6000);
    // the renew deadline is duration - renewal = 3 s after its last renewal
    expect(Date.now() - cut).toBeLessThan(3500);
    api = await startKubeApi(demoStore(), { dir }); // for afterEach
  });
});
