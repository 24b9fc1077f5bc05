/**
 * The demo's coordination.k8s.io/v1 Leases through @kubernetes/client-node's CoordinationV1Api, as the dashboard's
 * replicas use them: create, get, update with resourceVersion, 409 on a stale one, 404 when absent, and two clients
 * racing for one Lease: exactly one wins.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ApiException, CoordinationV1Api, KubeConfig, V1MicroTime, type V1Lease } from "@kubernetes/client-node";
import { startKubeApi, type KubeApiServer } from "./server";
import { demoStore } from "../../test/fixtures/kube";

const NS = "allocation-lens";
let api: KubeApiServer;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "kube-leases-test-"));
  api = await startKubeApi(demoStore(), { dir });
});
afterEach(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

function client(): CoordinationV1Api {
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  return kc.makeApiClient(CoordinationV1Api);
}

const lease = (name: string, holder: string, extra: Partial<V1Lease["spec"]> = {}): V1Lease => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name, namespace: NS, annotations: { "allocation-lens.io/address": "127.0.0.1:3000" } },
  spec: { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: new V1MicroTime(), renewTime: new V1MicroTime(), leaseTransitions: 0, ...extra },
});

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (e) {
    if (e instanceof ApiException) return e.code;
    throw e;
  }
}

describe("Leases in the demo's Kubernetes API", () => {
  it("creates, gets and updates a Lease; a stale resourceVersion is a 409 Conflict and changes nothing", async () => {
    const c = client();
    expect(await status(c.readNamespacedLease({ name: "lens-a", namespace: NS }))).toBe(404);
    const created = await c.createNamespacedLease({ namespace: NS, body: lease("lens-a", "pod-1") });
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(created.metadata?.uid).toBeTruthy();
    expect(String(created.spec?.renewTime)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(await status(c.createNamespacedLease({ namespace: NS, body: lease("lens-a", "pod-2") }))).toBe(409);

    const read = await c.readNamespacedLease({ name: "lens-a", namespace: NS });
    expect(read.spec?.holderIdentity).toBe("pod-1");
    expect(read.metadata?.annotations).toEqual({ "allocation-lens.io/address": "127.0.0.1:3000" });
    const renewed = await c.replaceNamespacedLease({ name: "lens-a", namespace: NS, body: { ...read, spec: { ...read.spec, renewTime: new V1MicroTime() } } });
    expect(Number(renewed.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata?.resourceVersion));

    // the version read before the renewal is stale now
    expect(await status(c.replaceNamespacedLease({ name: "lens-a", namespace: NS, body: { ...read, spec: { ...read.spec, holderIdentity: "pod-2" } } }))).toBe(409);
    expect((await c.readNamespacedLease({ name: "lens-a", namespace: NS })).spec?.holderIdentity).toBe("pod-1");
    // no unconditional updates; an update of an absent Lease creates it (as kube-apiserver does for Leases)
    const noVersion = { ...renewed.metadata!, resourceVersion: undefined };
    expect(await status(c.replaceNamespacedLease({ name: "lens-a", namespace: NS, body: { ...renewed, metadata: noVersion } }))).toBe(422);
    expect((await c.replaceNamespacedLease({ name: "lens-b", namespace: NS, body: lease("lens-b", "pod-1") })).spec?.holderIdentity).toBe("pod-1");
    expect((await c.listNamespacedLease({ namespace: NS })).items.map((l) => l.metadata?.name)).toEqual(["lens-a", "lens-b"]);
    expect(api.stats()).toMatchObject({ "conflict:leases": 2, "create:leases": 2, "update:leases": 1 });
  });

  it("lists Leases in etcd's key order (bytes of namespace/name), as kube-apiserver does", async () => {
    const c = client();
    const names = ["b", "a.b", "a-b", "a0", "ab", "a"];
    for (const n of names) await c.createNamespacedLease({ namespace: NS, body: lease(n, "x") });
    const listed = (await c.listNamespacedLease({ namespace: NS })).items.map((l) => l.metadata!.name!);
    expect(listed).toEqual(["a", "a-b", "a.b", "a0", "ab", "b"]);
    expect((await c.listLeaseForAllNamespaces()).items.map((l) => l.metadata!.name!)).toEqual(listed);
  });

  it("lists by label selector (the replicas' membership Leases); a malformed selector is a 400", async () => {
    const c = client();
    const labelled = (name: string, labels: Record<string, string>) => ({ ...lease(name, "x"), metadata: { ...lease(name, "x").metadata, labels } });
    await c.createNamespacedLease({ namespace: NS, body: labelled("lens-member-a", { "allocation-lens.io/members-of": "lens" }) });
    await c.createNamespacedLease({ namespace: NS, body: labelled("other-member-a", { "allocation-lens.io/members-of": "other" }) });
    await c.createNamespacedLease({ namespace: NS, body: lease("lens-prod", "x") });
    const names = async (labelSelector: string) => (await c.listNamespacedLease({ namespace: NS, labelSelector })).items.map((l) => l.metadata!.name!);
    expect(await names("allocation-lens.io/members-of=lens")).toEqual(["lens-member-a"]);
    expect(await names("allocation-lens.io/members-of")).toEqual(["lens-member-a", "other-member-a"]);
    expect(await names("!allocation-lens.io/members-of")).toEqual(["lens-prod"]);
    // an update keeps the labels it carries
    const read = await c.readNamespacedLease({ name: "lens-member-a", namespace: NS });
    await c.replaceNamespacedLease({ name: "lens-member-a", namespace: NS, body: { ...read, spec: { ...read.spec, renewTime: new V1MicroTime() } } });
    expect(await names("allocation-lens.io/members-of=lens")).toEqual(["lens-member-a"]);
    expect(await status(c.listNamespacedLease({ namespace: NS, labelSelector: "a in (" }))).toBe(400);
  });

  it("two clients racing to take the same Lease from the same read: exactly one wins", async () => {
    const [a, b] = [client(), client()];
    await a.createNamespacedLease({ namespace: NS, body: lease("lens-race", "gone", { leaseTransitions: 2 }) });
    for (let round = 0; round < 20; round++) {
      const [ra, rb] = await Promise.all([a.readNamespacedLease({ name: "lens-race", namespace: NS }), b.readNamespacedLease({ name: "lens-race", namespace: NS })]);
      expect(ra.metadata?.resourceVersion).toBe(rb.metadata?.resourceVersion);
      const take = (c: CoordinationV1Api, read: V1Lease, who: string) =>
        status(c.replaceNamespacedLease({ name: "lens-race", namespace: NS, body: { ...read, spec: { ...read.spec, holderIdentity: who, leaseTransitions: (read.spec?.leaseTransitions ?? 0) + 1 } } }));
      const results = await Promise.all([take(a, ra, `a-${round}`), take(b, rb, `b-${round}`)]);
      expect(results.sort()).toEqual([200, 409]);
      const after = await a.readNamespacedLease({ name: "lens-race", namespace: NS });
      expect([`a-${round}`, `b-${round}`]).toContain(after.spec?.holderIdentity);
      expect(after.spec?.leaseTransitions).toBe(3 + round);
    }
  });

  it("is discoverable as coordination.k8s.io/v1 leases, and refuses a Lease of another namespace or name", async () => {
    const groups = await (await fetch(`${api.url}/apis`)).json();
    expect(groups.groups.map((g: { name: string }) => g.name)).toContain("coordination.k8s.io");
    const resources = await (await fetch(`${api.url}/apis/coordination.k8s.io/v1`)).json();
    expect(resources.resources[0]).toMatchObject({ name: "leases", namespaced: true, kind: "Lease" });
    const c = client();
    expect(await status(c.createNamespacedLease({ namespace: NS, body: { ...lease("x", "p"), metadata: { name: "x", namespace: "other" } } }))).toBe(400);
    const post = await fetch(`${api.url}/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, { method: "POST", body: "{not json" });
    expect(post.status).toBe(400);
    expect((await fetch(`${api.url}/api/v1/pods`, { method: "PUT", body: "{}" })).status).toBe(405);
  });
});
