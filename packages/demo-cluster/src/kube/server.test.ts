/* eslint-disable @typescript-eslint/no-explicit-any -- JSON bodies read off the wire */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitUntil } from "@allocation-lens/test-support/wait";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig, makeInformer, type V1Pod } from "@kubernetes/client-node";
import type { Store } from "../store";
import { startKubeApi, type KubeApiServer } from "./server";
import { demoStore, openWatch as openStream, pod, type Stream } from "../../test/fixtures/kube";

const KUBECTL = "/usr/bin/kubectl";

let store: Store;
let api: KubeApiServer;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "kube-api-test-"));
  store = demoStore();
  api = await startKubeApi(store, { dir, bookmarkIntervalMs: 1000 });
});

afterEach(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});


async function get(pathAndQuery: string, init: RequestInit = {}): Promise<{ status: number; body: any; type: string | null }> {
  const res = await fetch(api.url + pathAndQuery, init);
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* plain text */
  }
  return { status: res.status, body, type: res.headers.get("content-type") };
}

/** Open a watch stream on this test's API server. */
const openWatch = (pathAndQuery: string, headers: Record<string, string> = {}): Stream => openStream(api.url, pathAndQuery, headers);

const names = (items: { metadata: { name: string } }[]) => items.map((o) => o.metadata.name).sort();

describe("kubeconfig", () => {
  it("points at the server over http with insecure-skip-tls-verify and a current context", async () => {
    const text = await readFile(api.kubeconfigPath, "utf8");
    expect(text).toContain(`server: ${api.url}`);
    expect(text).toContain("insecure-skip-tls-verify: true");
    expect(text).toContain("current-context: allocation-lens-demo");
    expect(api.url).toBe(`http://127.0.0.1:${api.port}`);
  });
});

describe("@kubernetes/client-node against the demo API", () => {
  const client = () => {
    const kc = new KubeConfig();
    kc.loadFromFile(api.kubeconfigPath);
    return kc;
  };

  it("lists pods across namespaces", async () => {
    const core = client().makeApiClient(CoreV1Api);
    const list = await core.listPodForAllNamespaces();
    expect(names(list.items as any)).toEqual(["checkout-1", "collector-a", "collector-b"]);
    expect(list.metadata?.resourceVersion).toBe(String(store.resourceVersion));
    const scoped = await core.listNamespacedPod({ namespace: "shop" });
    expect(names(scoped.items as any)).toEqual(["checkout-1"]);
    const one = await core.readNamespacedPod({ namespace: "shop", name: "checkout-1" });
    expect(one.spec?.nodeName).toBe("node-a");
    await expect(core.readNamespacedPod({ namespace: "shop", name: "nope" })).rejects.toMatchObject({ code: 404 });
    // what answering took, under the keys of the counts
    const ms = api.serveMs();
    expect(api.stats()).toMatchObject({ list: 2, "list:pods": 2, "get:pods": 1, notFound: 1 });
    expect(Object.keys(ms).sort()).toEqual(Object.keys(api.stats()).sort());
    expect(ms["list:pods"]).toBeGreaterThan(0);
    expect(ms.list).toBe(ms["list:pods"]);
  });

  it("runs an informer with a label selector through changes, a compaction and a watch disconnect", async () => {
    const kc = client();
    const core = kc.makeApiClient(CoreV1Api);
    const selector = "app=collector";
    const informer = makeInformer<V1Pod>(kc, "/api/v1/pods", () => core.listPodForAllNamespaces({ labelSelector: selector }), selector);
    const log: string[] = [];
    const errors: unknown[] = [];
    informer.on("add", (p) => log.push(`add ${p.metadata?.name}`));
    informer.on("update", (p) => log.push(`update ${p.metadata?.name}`));
    informer.on("delete", (p) => log.push(`delete ${p.metadata?.name}`));
    informer.on("error", (e) => errors.push(e));
    await informer.start();
    try {
      const current = () => names(informer.list() as any);
      await waitUntil(() => current().length === 2, "initial list");
      expect(current()).toEqual(["collector-a", "collector-b"]);
      await waitUntil(() => api.stats()["watch:pods"] === 1, "the informer's watch");

      store.upsert("pods", pod("observability", "collector-c", "node-b", { app: "collector" }));
      await waitUntil(() => log.includes("add collector-c"), "ADDED");
      store.update("pods", "observability", "collector-b", (p) => ({ ...p, status: { ...p.status, phase: "Failed" } }));
      await waitUntil(() => log.includes("update collector-b"), "MODIFIED");
      store.remove("pods", "observability", "collector-c");
      await waitUntil(() => log.includes("delete collector-c"), "DELETED");
      store.upsert("pods", pod("shop", "unrelated", "node-a", { app: "checkout" }));
      // relabelled out of the selector: the watch says DELETED
      store.update("pods", "observability", "collector-a", (p) => ({ ...p, metadata: { ...p.metadata, labels: { app: "other" } } }));
      await waitUntil(() => log.includes("delete collector-a"), "DELETED on relabel");
      expect(current()).toEqual(["collector-b"]);

      // changes the informer cannot see: the watch is dropped, the log compacted; it must get 410 and re-list
      const listsBefore = api.stats()["list:pods"] ?? 0;
      api.dropWatches();
      store.upsert("pods", pod("observability", "collector-d", "node-a", { app: "collector" }));
      store.remove("pods", "observability", "collector-b");
      store.compact();
      await waitUntil(() => (api.stats()["list:pods"] ?? 0) > listsBefore, "a re-list after 410");
      expect(api.stats()["gone:pods"]).toBe(1);
      await waitUntil(() => current().join() === "collector-d", "the informer to converge");
      expect(log).toContain("add collector-d");
      expect(log).toContain("delete collector-b");
      expect(errors).toEqual([]);
      // and it watches again, live
      await waitUntil(() => api.stats()["watch:pods"] >= 3, "a new watch");
      store.upsert("pods", pod("observability", "collector-e", "node-a", { app: "collector" }));
      await waitUntil(() => current().includes("collector-e"), "a live event after recovery");
      expect(log.filter((l) => l.includes("unrelated"))).toEqual([]);
    } finally {
      await informer.stop();
    }
  });

  it("lists custom objects, and answers 404 when the CRD is missing", async () => {
    const custom = client().makeApiClient(CustomObjectsApi);
    const smons = await custom.listClusterCustomObject({ group: "monitoring.coreos.com", version: "v1", plural: "servicemonitors" });
    expect(names(smons.items)).toEqual(["checkout-smon", "collector-smon"]);
    const pmons = await custom.listNamespacedCustomObject({ group: "monitoring.coreos.com", version: "v1", namespace: "shop", plural: "podmonitors" });
    expect(names(pmons.items)).toEqual(["checkout-pmon"]);
    store.missing.add("podmonitors");
    const err = await custom
      .listClusterCustomObject({ group: "monitoring.coreos.com", version: "v1", plural: "podmonitors" })
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<unknown>).code).toBe(404);
  });
});

function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      KUBECTL,
      ["--kubeconfig", api.kubeconfigPath, "--cache-dir", path.join(dir, "kubectl-cache"), "--request-timeout=10s", ...args],
      { timeout: 20_000, env: { ...process.env, KUBECONFIG: "" } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(!existsSync(KUBECTL))("real kubectl against the demo API", () => {
  it("gets nodes and pods across namespaces as tables", async () => {
    const r = await kubectl(["get", "nodes,pods", "-A"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    for (const n of ["node/node-a", "node/node-b", "pod/collector-a", "pod/collector-b", "pod/checkout-1"]) expect(r.stdout).toContain(n);
    expect(r.stdout).toMatch(/NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION/);
    expect(r.stdout).toMatch(/node\/node-a\s+Ready\s+control-plane\s+\S+\s+v1\.32\.4/);
    expect(r.stdout).toMatch(/NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/);
    expect(r.stdout).toMatch(/observability\s+pod\/collector-b\s+0\/1\s+Running\s+0/);
  });

  it("gets service and pod monitors, one pod by name, JSON and wide output", async () => {
    const m = await kubectl(["get", "servicemonitors,podmonitors", "-A"]);
    expect(m.code).toBe(0);
    for (const n of ["checkout-smon", "collector-smon", "checkout-pmon"]) expect(m.stdout).toContain(n);
    const one = await kubectl(["get", "pod", "checkout-1", "-n", "shop"]);
    expect(one.stdout).toMatch(/checkout-1\s+1\/1\s+Running/);
    const wide = await kubectl(["get", "po", "-A", "-o", "wide"]);
    expect(wide.stdout).toMatch(/IP\s+NODE/);
    expect(wide.stdout).toMatch(/checkout-1\s.*node-a/);
    const json = await kubectl(["get", "smon", "-n", "shop", "-o", "json"]);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.items.map((i: any) => i.metadata.name)).toEqual(["checkout-smon"]);
    const missing = await kubectl(["get", "pod", "nope", "-n", "shop"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('pods "nope" not found');
    const sel = await kubectl(["get", "pods", "-A", "-l", "tier in (agent),app=collector", "-o", "name"]);
    expect(sel.stdout.trim().split("\n").sort()).toEqual(["pod/collector-a", "pod/collector-b"]);
  });

  it("says the resource type is unknown when both monitor CRDs are missing", async () => {
    store.missing.add("servicemonitors");
    store.missing.add("podmonitors");
    const r = await kubectl(["get", "servicemonitors", "-A"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the server doesn\'t have a resource type "servicemonitors"');
  });

  it("watches pods and prints one added after the watch started", async () => {
    const child = spawn(
      KUBECTL,
      ["--kubeconfig", api.kubeconfigPath, "--cache-dir", path.join(dir, "kubectl-cache"), "--request-timeout=30s", "get", "pods", "-A", "-w"],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, KUBECONFIG: "" } },
    );
    const killer = setTimeout(() => child.kill("SIGKILL"), 25_000);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    try {
      await waitUntil(() => out.includes("checkout-1"), "the initial list", 15_000);
      await waitUntil(() => api.stats()["watch:pods"] === 1, "kubectl's watch", 15_000);
      store.upsert("pods", pod("shop", "arrived-later", "node-b", { app: "late" }));
      await waitUntil(() => out.includes("arrived-later"), "the watched pod", 15_000);
      expect(out).toMatch(/shop\s+arrived-later\s+1\/1\s+Running\s+0/);
      expect(out.match(/NAMESPACE/g)).toHaveLength(1); // headers once
      expect(err).toBe("");
    } finally {
      clearTimeout(killer);
      child.kill("SIGKILL");
    }
  });
});

describe("raw HTTP", () => {
  it("serves discovery documents", async () => {
    const version = await get("/version");
    expect(version.body.gitVersion).toMatch(/^v1\.32\./);
    expect((await get("/api")).body).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    const core = await get("/api/v1");
    expect(core.type).toBe("application/json");
    const pods = core.body.resources.find((r: any) => r.name === "pods");
    expect(pods).toMatchObject({ namespaced: true, kind: "Pod", shortNames: ["po"], verbs: ["get", "list", "watch"] });
    expect(core.body.resources.find((r: any) => r.name === "nodes")).toMatchObject({ namespaced: false, shortNames: ["no"] });
    const apis = await get("/apis");
    expect(apis.body.groups.map((g: any) => g.name)).toEqual(["apps", "authorization.k8s.io", "coordination.k8s.io", "discovery.k8s.io", "monitoring.coreos.com"]);
    expect(core.body.resources.find((r: any) => r.name === "namespaces")).toMatchObject({ namespaced: false, verbs: ["get", "list", "watch"] });
    expect((await get("/apis/discovery.k8s.io/v1")).body).toMatchObject({
      kind: "APIResourceList",
      groupVersion: "discovery.k8s.io/v1",
      resources: [{ name: "endpointslices", kind: "EndpointSlice", namespaced: true, verbs: ["get", "list", "watch"] }],
    });
    expect((await get("/apis/authorization.k8s.io/v1")).body.resources).toMatchObject([{ name: "selfsubjectaccessreviews", kind: "SelfSubjectAccessReview", verbs: ["create"] }]);
    expect((await get("/apis/discovery.k8s.io")).body).toMatchObject({ kind: "APIGroup", name: "discovery.k8s.io", preferredVersion: { groupVersion: "discovery.k8s.io/v1" } });
    expect(core.body.resources.map((r: any) => r.name)).toEqual(["configmaps", "endpoints", "namespaces", "nodes", "pods", "pods/portforward", "secrets", "services", "services/proxy"]);
    expect((await get("/apis/apps/v1")).body.resources).toMatchObject([
      { name: "daemonsets", kind: "DaemonSet", namespaced: true, shortNames: ["ds"] },
      { name: "deployments", kind: "Deployment", namespaced: true, shortNames: ["deploy"] },
    ]);
    expect((await get("/apis/apps")).body).toMatchObject({ kind: "APIGroup", name: "apps", preferredVersion: { groupVersion: "apps/v1" } });
    const mon = await get("/apis/monitoring.coreos.com/v1");
    expect(mon.body.resources.map((r: any) => [r.name, r.shortNames[0]])).toEqual([
      ["podmonitors", "pmon"],
      ["servicemonitors", "smon"],
    ]);
    store.missing.add("podmonitors");
    expect((await get("/apis/monitoring.coreos.com/v1")).body.resources.map((r: any) => r.name)).toEqual(["servicemonitors"]);
    store.missing.add("servicemonitors");
    expect((await get("/apis")).body.groups.map((g: any) => g.name)).toEqual(["apps", "authorization.k8s.io", "coordination.k8s.io", "discovery.k8s.io"]);
    expect((await get("/apis/monitoring.coreos.com/v1")).status).toBe(404);
    for (const h of ["/healthz", "/readyz", "/livez"]) expect(await get(h)).toMatchObject({ status: 200, body: "ok" });
  });

  it("lists with label and field selectors", async () => {
    store.upsert("pods", pod("shop", "checkout-2", "node-b", { app: "checkout", tier: "web", canary: "true" }));
    const list = await get("/api/v1/pods?labelSelector=" + encodeURIComponent("tier in (agent,web),app notin (collector)"));
    expect(list.body).toMatchObject({ kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: String(store.resourceVersion) } });
    expect(names(list.body.items)).toEqual(["checkout-1", "checkout-2"]);
    expect(names((await get("/api/v1/pods?labelSelector=" + encodeURIComponent("app==checkout,!canary"))).body.items)).toEqual(["checkout-1"]);
    expect(names((await get("/api/v1/pods?labelSelector=canary")).body.items)).toEqual(["checkout-2"]);
    expect(names((await get("/api/v1/pods?labelSelector=" + encodeURIComponent("app!=checkout"))).body.items)).toEqual(["collector-a", "collector-b"]);
    expect(names((await get("/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-b")).body.items)).toEqual(["checkout-2", "collector-b"]);
    expect(names((await get("/api/v1/namespaces/shop/pods?fieldSelector=spec.nodeName%3Dnode-a")).body.items)).toEqual(["checkout-1"]);
    expect(names((await get("/api/v1/pods?fieldSelector=metadata.namespace%3Dobservability,metadata.name%3Dcollector-a")).body.items)).toEqual(["collector-a"]);
    const bad = await get("/api/v1/pods?labelSelector=" + encodeURIComponent("a in b"));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
    expect((await get("/api/v1/pods?fieldSelector=spec.bogus%3Dx")).body.message).toBe("field label not supported: spec.bogus");
    const node = await get("/api/v1/nodes/node-a");
    expect(node.body).toMatchObject({ kind: "Node", apiVersion: "v1", metadata: { name: "node-a" } });
    const smon = await get("/apis/monitoring.coreos.com/v1/namespaces/shop/servicemonitors/checkout-smon");
    expect(smon.body).toMatchObject({ kind: "ServiceMonitor", apiVersion: "monitoring.coreos.com/v1" });
    expect((await get("/apis/monitoring.coreos.com/v1/servicemonitors")).body.kind).toBe("ServiceMonitorList");
  });

  it("renders meta.k8s.io Tables when asked", async () => {
    const accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    const t = await get("/api/v1/pods", { headers: { accept } });
    expect(t.body.kind).toBe("Table");
    expect(t.body.apiVersion).toBe("meta.k8s.io/v1");
    expect(t.body.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"]);
    const row = t.body.rows.find((r: any) => r.cells[0] === "collector-b");
    expect(row.cells.slice(1, 4)).toEqual(["0/1", "Running", 0]);
    expect(row.object).toMatchObject({ kind: "PartialObjectMetadata", metadata: { name: "collector-b", namespace: "observability" } });
    const nodes = await get("/api/v1/nodes", { headers: { accept } });
    expect(nodes.body.rows.map((r: any) => r.cells.slice(0, 3))).toEqual([
      ["node-a", "Ready", "control-plane"],
      ["node-b", "NotReady", "<none>"],
    ]);
    const mons = await get("/apis/monitoring.coreos.com/v1/podmonitors", { headers: { accept } });
    expect(mons.body.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Age"]);
  });

  it("answers 410 Gone for a list and a watch from an expired resourceVersion", async () => {
    const old = store.resourceVersion;
    store.upsert("pods", pod("shop", "checkout-2", "node-b"));
    store.compact();
    const list = await get(`/api/v1/pods?resourceVersion=${old}`);
    expect(list.status).toBe(410);
    expect(list.body).toMatchObject({ kind: "Status", status: "Failure", reason: "Expired", code: 410 });
    expect(list.body.message).toMatch(/^too old resource version: /);
    const w = openWatch(`/api/v1/pods?watch=true&resourceVersion=${old}`);
    expect(await w.status).toBe(200);
    await w.ended;
    expect(w.events).toHaveLength(1);
    expect(w.events[0]).toMatchObject({ type: "ERROR", object: { kind: "Status", reason: "Expired", code: 410 } });
    // a resourceVersion from the future (the demo cluster restarted under the client) also makes it re-list
    const future = openWatch(`/api/v1/pods?watch=true&resourceVersion=${store.resourceVersion + 100}`);
    await future.ended;
    expect(future.events.map((e) => [e.type, e.object.code])).toEqual([["ERROR", 410]]);
    expect(api.stats()["gone:pods"]).toBe(3);
    // the current resourceVersion is still fine
    expect((await get(`/api/v1/pods?resourceVersion=${store.resourceVersion}`)).status).toBe(200);
  });

  it("watches: initial ADDED, replay from a resourceVersion, live events with kind and apiVersion, selector transitions", async () => {
    const fresh = openWatch("/api/v1/namespaces/observability/pods?watch=1");
    await waitUntil(() => fresh.events.length === 2, "initial ADDED events");
    expect(fresh.events.map((e) => [e.type, e.object.metadata.name]).sort()).toEqual([
      ["ADDED", "collector-a"],
      ["ADDED", "collector-b"],
    ]);
    const rv = store.resourceVersion;
    store.upsert("pods", pod("observability", "collector-c", "node-a", { app: "collector" }));
    store.update("pods", "observability", "collector-a", (p) => ({ ...p, metadata: { ...p.metadata, labels: { app: "moved" } } }));
    store.remove("pods", "observability", "collector-b");
    const replay = openWatch(`/api/v1/pods?watch=true&resourceVersion=${rv}&labelSelector=app%3Dcollector`);
    await waitUntil(() => replay.events.length === 3, "replayed events");
    expect(replay.events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ["ADDED", "collector-c"],
      ["DELETED", "collector-a"], // no longer matches the selector
      ["DELETED", "collector-b"],
    ]);
    for (const e of replay.events) expect(e.object).toMatchObject({ kind: "Pod", apiVersion: "v1" });
    store.update("pods", "observability", "collector-a", (p) => ({ ...p, metadata: { ...p.metadata, labels: { app: "collector" } } }));
    await waitUntil(() => replay.events.length === 4, "live event");
    expect(replay.events[3]).toMatchObject({ type: "ADDED", object: { metadata: { name: "collector-a" } } });
    await waitUntil(() => fresh.events.length === 6, "events on the namespaced watch");
    expect(fresh.events.slice(2).map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED", "MODIFIED"]);
    fresh.close();
    replay.close();
    await waitUntil(() => api.stats().watch === 2, "stats");
  });

  it("sends bookmarks when asked, honours timeoutSeconds, ends streams on dropWatches", async () => {
    const started = Date.now();
    const w = openWatch(`/api/v1/nodes?watch=true&resourceVersion=${store.resourceVersion}&allowWatchBookmarks=true&timeoutSeconds=2`);
    await w.ended;
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(5000);
    const bookmarks = w.events.filter((e) => e.type === "BOOKMARK");
    expect(bookmarks.length).toBeGreaterThanOrEqual(1);
    expect(bookmarks[0].object).toEqual({ kind: "Node", apiVersion: "v1", metadata: { resourceVersion: String(store.resourceVersion) } });

    const noBookmarks = openWatch(`/api/v1/nodes?watch=true&resourceVersion=${store.resourceVersion}`);
    const another = openWatch(`/apis/monitoring.coreos.com/v1/servicemonitors?watch=true`);
    await waitUntil(() => another.events.length === 2, "initial monitors");
    await new Promise((r) => setTimeout(r, 1300));
    expect(noBookmarks.events).toEqual([]);
    api.dropWatches();
    await Promise.all([noBookmarks.ended, another.ended]);
  });

  it("answers 404 Status for a missing CRD and unknown paths, 405 for other methods", async () => {
    store.missing.add("servicemonitors");
    for (const p of [
      "/apis/monitoring.coreos.com/v1/servicemonitors",
      "/apis/monitoring.coreos.com/v1/namespaces/shop/servicemonitors/checkout-smon",
      "/apis/monitoring.coreos.com/v1/servicemonitors?watch=true",
    ]) {
      const r = await get(p);
      expect(r.status, p).toBe(404);
      expect(r.body).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "the server could not find the requested resource",
        reason: "NotFound",
        code: 404,
      });
    }
    expect((await get("/apis/monitoring.coreos.com/v1/podmonitors")).status).toBe(200);
    for (const p of ["/nope", "/api/v1/replicationcontrollers", "/api/v1/namespaces/shop/nodes", "/apis/apps/v1/statefulsets"]) {
      const r = await get(p);
      expect(r.status, p).toBe(404);
      expect(r.body.kind).toBe("Status");
    }
    const post = await get("/api/v1/namespaces/shop/pods", { method: "POST", body: "{}" });
    expect(post.status).toBe(405);
    expect(post.body).toMatchObject({ kind: "Status", reason: "MethodNotAllowed", code: 405 });
    expect((await get("/api/v1/nodes/node-a", { method: "DELETE" })).status).toBe(405);
    expect(api.stats()).toMatchObject({ notFound: 7, methodNotAllowed: 2 });
  });
});
