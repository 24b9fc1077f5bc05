/* eslint-disable @typescript-eslint/no-explicit-any -- JSON bodies read off the wire */
/**
 * What a real Target Allocator (client-go, prometheus-operator's informers, Prometheus's Kubernetes discovery) asks of
 * the demo's Kubernetes API: access reviews, namespace watches, EndpointSlices in step with pods, metadata-only lists,
 * list options and content negotiation.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitUntil } from "@allocation-lens/test-support/wait";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { KubeObject, Store } from "../store";
import { NO_PORTFORWARD_TOKEN } from "./auth";
import { encodeEnvelope, encodeField, PROTOBUF } from "./protobuf";
import { startKubeApi, type KubeApiServer } from "./server";
import { demoStore, openWatch as openStream, pod } from "../../test/fixtures/kube";

let store: Store;
let api: KubeApiServer;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "kube-real-test-"));
  store = demoStore();
  store.upsert("nodes", { ...store.get("nodes", undefined, "node-a")!, metadata: { ...store.get("nodes", undefined, "node-a")!.metadata, labels: { "topology.kubernetes.io/zone": "us-east-1a" } } });
  store.upsert("services", service("shop", "checkout", { app: "checkout" }));
  api = await startKubeApi(store, { dir, bookmarkIntervalMs: 100, endpointSliceDelayMs: 0 });
});

afterEach(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

function service(namespace: string, name: string, selector: Record<string, string>): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace, labels: { ...selector, tier: "web" } },
    spec: { selector, ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }] },
  };
}

function withPort(p: KubeObject): KubeObject {
  return { ...p, spec: { ...p.spec, containers: [{ name: "main", image: "example/main:1", ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }] }] } };
}

async function request(pathAndQuery: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(api.url + pathAndQuery, init);
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* plain text */
  }
  return { status: res.status, body };
}

const watch = (pathAndQuery: string, headers: Record<string, string> = {}) => openStream(api.url, pathAndQuery, headers);

const review = (attrs: Record<string, string>) => ({
  kind: "SelfSubjectAccessReview",
  apiVersion: "authorization.k8s.io/v1",
  spec: { resourceAttributes: attrs },
});
const SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

describe("SelfSubjectAccessReviews", () => {
  it("allow the default user, refuse the restricted one secrets and port-forward, in JSON and protobuf", async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      request(SSAR, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
    const ns = await post(review({ verb: "watch", resource: "namespaces" }));
    expect(ns.status).toBe(201);
    expect(ns.body).toMatchObject({ kind: "SelfSubjectAccessReview", spec: { resourceAttributes: { verb: "watch", resource: "namespaces" } }, status: { allowed: true } });
    const viewer = { Authorization: `Bearer ${NO_PORTFORWARD_TOKEN}` };
    expect((await post(review({ verb: "list", resource: "secrets", namespace: "shop" }), viewer)).body.status).toEqual({ allowed: false });
    expect((await post(review({ verb: "create", resource: "pods", subresource: "portforward", namespace: "shop" }), viewer)).body.status.allowed).toBe(false);
    expect((await post(review({ verb: "list", resource: "namespaces" }), viewer)).body.status.allowed).toBe(true);
    expect((await post({ spec: {} })).status).toBe(422);

    // client-go writes built-in kinds in protobuf: ResourceAttributes {namespace 1, verb 2, resource 5}
    const attrs = Buffer.concat([encodeField(2, "get"), encodeField(5, "secrets"), encodeField(1, "shop")]);
    const raw = encodeField(2, encodeField(1, attrs));
    const body = encodeEnvelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", raw);
    const pb = (headers: Record<string, string>) => request(SSAR, { method: "POST", headers: { "Content-Type": PROTOBUF, Accept: `${PROTOBUF},application/json`, ...headers }, body: new Uint8Array(body) });
    const asAdmin = await pb({});
    expect(asAdmin.status).toBe(201);
    expect(asAdmin.body.spec.resourceAttributes).toEqual({ verb: "get", resource: "secrets", namespace: "shop" });
    expect(asAdmin.body.status.allowed).toBe(true);
    expect((await pb(viewer)).body.status.allowed).toBe(false);
    expect((await request(SSAR, { method: "POST", headers: { "Content-Type": "application/cbor" }, body: "x" })).status).toBe(415);
    expect((await request(SSAR)).status).toBe(405);
  });
});

describe("namespaces", () => {
  it("list with resourceVersions, watch with initial ADDED, a new namespace as ADDED, bookmarks and the timeout", async () => {
    const list = await request("/api/v1/namespaces");
    expect(list.body.items.map((n: any) => n.metadata.name)).toEqual(["default", "kube-public", "kube-system", "observability", "shop"]);
    const rv = list.body.metadata.resourceVersion;
    for (const n of list.body.items) expect(Number(n.metadata.resourceVersion)).toBeLessThanOrEqual(Number(rv));

    const w = watch("/api/v1/namespaces?watch=1&allowWatchBookmarks=true&timeoutSeconds=2&labelSelector=kubernetes.io%2Fmetadata.name%20notin%20(kube-public)");
    await waitUntil(() => w.events.length >= 4, "initial ADDED");
    expect(w.events.slice(0, 4).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED default", "ADDED kube-system", "ADDED observability", "ADDED shop"]);
    store.upsert("pods", pod("payments", "ledger-1", "node-a", { app: "ledger" }));
    store.upsert("pods", pod("payments", "ledger-2", "node-a", { app: "ledger" }));
    await waitUntil(() => w.events.some((e) => e.type === "ADDED" && e.object.metadata.name === "payments"), "the new namespace");
    await waitUntil(() => w.events.some((e) => e.type === "BOOKMARK"), "a bookmark");
    await w.ended;
    expect(w.events.filter((e) => e.object.metadata.name === "payments")).toHaveLength(1);
    expect(w.events.find((e) => e.type === "BOOKMARK").object).toMatchObject({ kind: "Namespace", apiVersion: "v1" });

    // resuming from the list's resourceVersion replays only what appeared since
    const resumed = watch(`/api/v1/namespaces?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
    await resumed.ended;
    expect(resumed.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED payments"]);
    expect((await request("/api/v1/namespaces/payments")).body.metadata.name).toBe("payments");
  });
});

describe("EndpointSlices", () => {
  it("follow the pods: endpoints with targetRef, conditions, node and zone; not Ready, terminating, deleted; watches see it", async () => {
    store.update("pods", "shop", "checkout-1", withPort);
    const slices = await request("/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices");
    expect(slices.status).toBe(200);
    expect(slices.body.kind).toBe("EndpointSliceList");
    const [slice] = slices.body.items;
    expect(slice.metadata.name).toMatch(/^checkout-[0-9a-f]{5}$/);
    expect(slice.metadata.labels).toEqual({ app: "checkout", tier: "web", "kubernetes.io/service-name": "checkout", "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io" });
    expect(slice.metadata.ownerReferences[0]).toMatchObject({ kind: "Service", name: "checkout", uid: store.get("services", "shop", "checkout")!.metadata.uid });
    expect(slice.ports).toEqual([{ name: "http", protocol: "TCP", port: 8080 }]);
    expect(slice.endpoints).toEqual([
      {
        addresses: ["10.1.0.7"],
        conditions: { ready: true, serving: true, terminating: false },
        targetRef: { kind: "Pod", namespace: "shop", name: "checkout-1", uid: store.get("pods", "shop", "checkout-1")!.metadata.uid },
        nodeName: "node-a",
        zone: "us-east-1a",
      },
    ]);

    const w = watch(`/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices?watch=1&resourceVersion=${slices.body.metadata.resourceVersion}`);
    store.update("pods", "shop", "checkout-1", (p) => ({ ...p, status: { ...p.status, conditions: [{ type: "Ready", status: "False" }] } }));
    await waitUntil(() => w.events.length === 1, "MODIFIED on not Ready");
    expect(w.events[0].object.endpoints[0].conditions).toEqual({ ready: false, serving: false, terminating: false });
    store.upsert("pods", withPort(pod("shop", "checkout-2", "node-b", { app: "checkout" })));
    await waitUntil(() => w.events.length === 2, "MODIFIED on a new pod");
    expect(w.events[1].object.endpoints.map((e: any) => e.targetRef.name)).toEqual(["checkout-1", "checkout-2"]);
    expect(w.events[1].object.endpoints[1]).not.toHaveProperty("zone");
    store.update("pods", "shop", "checkout-2", (p) => ({ ...p, metadata: { ...p.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } }));
    await waitUntil(() => w.events.length === 3, "MODIFIED on terminating");
    expect(w.events[2].object.endpoints[1].conditions).toEqual({ ready: false, serving: true, terminating: true });
    store.remove("pods", "shop", "checkout-2");
    store.update("pods", "shop", "checkout-1", (p) => ({ ...p, metadata: { ...p.metadata, labels: { app: "other" } } }));
    await waitUntil(() => w.events.length === 5, "a deleted pod, a pod that stops matching");
    expect(w.events[4].object.endpoints).toEqual([]);
    store.remove("services", "shop", "checkout");
    await waitUntil(() => w.events.length === 6, "DELETED with the Service");
    expect(w.events[5].type).toBe("DELETED");
    w.close();
  });

  it("are written a little after the pod change by default, and put back after a foreign write", async () => {
    await api.close();
    api = await startKubeApi(store, { dir, endpointSliceDelayMs: 50 });
    const name = store.list("endpointslices", "shop")[0].metadata.name;
    const before = store.resourceVersion;
    store.upsert("pods", pod("shop", "checkout-3", "node-a", { app: "checkout" }));
    expect(store.resourceVersion).toBe(before + 1);
    await waitUntil(() => (store.get("endpointslices", "shop", name)!.endpoints as unknown[]).length === 2, "the slice after the delay");
    store.upsert("endpointslices", { ...store.get("endpointslices", "shop", name)!, endpoints: [] });
    await waitUntil(() => (store.get("endpointslices", "shop", name)!.endpoints as unknown[]).length === 2, "the slice put back");
  });
});

describe("Endpoints (core/v1)", () => {
  it("follow the pods as the endpoints controller keeps them: ready and not-ready addresses, terminating and deleted pods left out", async () => {
    store.update("pods", "shop", "checkout-1", withPort);
    const list = await request("/api/v1/namespaces/shop/endpoints");
    expect(list.status).toBe(200);
    expect(list.body.kind).toBe("EndpointsList");
    const [eps] = list.body.items;
    expect(eps.metadata).toMatchObject({ name: "checkout", namespace: "shop", labels: { app: "checkout", tier: "web" } });
    const uid1 = store.get("pods", "shop", "checkout-1")!.metadata.uid;
    expect(eps.subsets).toEqual([{ addresses: [{ ip: "10.1.0.7", nodeName: "node-a", targetRef: { kind: "Pod", namespace: "shop", name: "checkout-1", uid: uid1 } }], ports: [{ name: "http", port: 8080, protocol: "TCP" }] }]);
    expect((await request("/api/v1/endpoints")).body.items.map((e: any) => e.metadata.name)).toContain("checkout");

    const w = watch(`/api/v1/namespaces/shop/endpoints?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
    store.update("pods", "shop", "checkout-1", (p) => ({ ...p, status: { ...p.status, conditions: [{ type: "Ready", status: "False" }] } }));
    await waitUntil(() => w.events.length === 1, "MODIFIED on not Ready");
    expect(w.events[0].object.subsets[0]).not.toHaveProperty("addresses");
    expect(w.events[0].object.subsets[0].notReadyAddresses.map((a: any) => a.targetRef.name)).toEqual(["checkout-1"]);
    store.upsert("pods", withPort(pod("shop", "checkout-2", "node-b", { app: "checkout" })));
    await waitUntil(() => w.events.length === 2, "MODIFIED on a new pod");
    expect(w.events[1].object.subsets[0].addresses.map((a: any) => a.targetRef.name)).toEqual(["checkout-2"]);
    store.update("pods", "shop", "checkout-2", (p) => ({ ...p, metadata: { ...p.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } }));
    await waitUntil(() => w.events.length === 3, "MODIFIED on terminating");
    expect(w.events[2].object.subsets[0]).not.toHaveProperty("addresses");
    store.update("pods", "shop", "checkout-1", (p) => ({ ...p, metadata: { ...p.metadata, labels: { app: "other" } } }));
    await waitUntil(() => w.events.length === 4, "a pod that stops matching");
    expect(w.events[3].object).not.toHaveProperty("subsets");
    store.remove("services", "shop", "checkout");
    await waitUntil(() => w.events.length === 5, "DELETED with the Service");
    expect(w.events[4].type).toBe("DELETED");
    w.close();
  });
});

describe("metadata-only requests, list options, content negotiation", () => {
  it("answers PartialObjectMetadataList and PartialObjectMetadata watch events without a Secret's data", async () => {
    store.upsert("secrets", { apiVersion: "v1", kind: "Secret", metadata: { name: "token", namespace: "shop" }, type: "Opaque", data: { token: "c2VjcmV0" } });
    const accept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
    const list = await request("/api/v1/secrets", { headers: { Accept: accept } });
    expect(list.body.kind).toBe("PartialObjectMetadataList");
    expect(list.body.apiVersion).toBe("meta.k8s.io/v1");
    expect(list.body.items).toEqual([{ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: store.get("secrets", "shop", "token")!.metadata }]);
    expect(JSON.stringify(list.body)).not.toContain("c2VjcmV0");
    const w = watch("/api/v1/namespaces/shop/secrets?watch=1&allowWatchBookmarks=true&timeoutSeconds=1", { Accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1" });
    await w.ended;
    expect(w.events[0]).toMatchObject({ type: "ADDED", object: { kind: "PartialObjectMetadata", metadata: { name: "token" } } });
    expect(w.events[0].object).not.toHaveProperty("data");
    expect(w.events.find((e) => e.type === "BOOKMARK")?.object.kind).toBe("PartialObjectMetadata");
    expect((await request("/api/v1/namespaces/shop/secrets/token", { headers: { Accept: "application/json" } })).body.data).toEqual({ token: "c2VjcmV0" });
  });

  it("checks resourceVersionMatch, serves the watch-list protocol, answers 406 without JSON in Accept", async () => {
    const rv = store.resourceVersion;
    expect((await request(`/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`)).status).toBe(200);
    expect((await request(`/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status).toBe(200);
    store.upsert("pods", pod("shop", "checkout-9", "node-a"));
    expect((await request(`/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status).toBe(410);
    expect((await request("/api/v1/pods?resourceVersionMatch=NotOlderThan")).status).toBe(422);
    expect((await request("/api/v1/pods?resourceVersion=0&resourceVersionMatch=Exact")).status).toBe(422);
    expect((await request("/api/v1/pods?sendInitialEvents=true")).status).toBe(422);

    const w = watch(`/api/v1/namespaces/shop/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=${rv}&timeoutSeconds=1`);
    await w.ended;
    expect(w.events.map((e) => e.type)).toEqual(["ADDED", "ADDED", "BOOKMARK", ...w.events.slice(3).map(() => "BOOKMARK")]);
    expect(w.events[2].object.metadata).toEqual({ resourceVersion: String(store.resourceVersion), annotations: { "k8s.io/initial-events-end": "true" } });

    const pbOnly = await request("/api/v1/pods", { headers: { Accept: PROTOBUF } });
    expect(pbOnly.status).toBe(406);
    expect(pbOnly.body).toMatchObject({ kind: "Status", reason: "NotAcceptable", code: 406 });
    expect((await request("/apis/monitoring.coreos.com/v1/servicemonitors", { headers: { Accept: "application/cbor" } })).status).toBe(406);
    expect((await request("/api/v1/pods", { headers: { Accept: `${PROTOBUF}, application/json` } })).status).toBe(200);
    expect((await request("/version", { headers: { Accept: `${PROTOBUF}, */*` } })).status).toBe(200);
  });

  it("takes Events and does not keep them", async () => {
    const created = await request("/api/v1/namespaces/shop/events", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ kind: "Event", apiVersion: "v1", metadata: { generateName: "x." }, reason: "Test" }),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: "Event", reason: "Test", metadata: { namespace: "shop" } });
    expect(created.body.metadata.name).toMatch(/^x\./);
    const pb = await request("/apis/events.k8s.io/v1/namespaces/shop/events", { method: "POST", headers: { "Content-Type": PROTOBUF }, body: new Uint8Array(encodeEnvelope("events.k8s.io/v1", "Event", Buffer.alloc(0))) });
    expect(pb.status).toBe(201);
    expect((await request("/api/v1/namespaces/other/events", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ metadata: { namespace: "shop" } }) })).status).toBe(400);
  });
});
