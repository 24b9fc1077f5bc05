/**
 * The informers against the demo Kubernetes API behind a proxy that plays a stuck API server: a list that never answers
 * and a watch that never ends are detected by their deadlines, reported as the source's error (its cached objects kept)
 * and followed by a fresh list with backoff once the server answers again.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig, type ClusterConfig } from "@/lib/config/schema";
import * as k8s from "@kubernetes/client-node";
import { SourceError } from "@/lib/source-error";
import { errnoOf, isRestartRefusal, startKubeSources, type KubeSources } from "@/server/kube/informers";
import { startTestKube, type TestKube } from "@/test/fixtures/kube";
import { until } from "@allocation-lens/test-support/wait";
import { NS, SELECTOR } from "@/test/fixtures/ta";
import { node } from "@allocation-lens/demo-cluster/test/fixtures/kube";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-informers-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function cluster(kubeconfig: string, kubernetes: Record<string, unknown>): ClusterConfig {
  const r = parseConfig({
    clusters: [
      {
        name: "k",
        kubernetes: { kubeconfig, ...kubernetes },
        targetAllocators: { "per-node": { url: "http://127.0.0.1:1", flavor: "upstream", collectors: { namespace: NS, selector: SELECTOR } } },
      },
    ],
  });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.config.clusters[0];
}

async function start(kubernetes: Record<string, unknown>, prepare: (k: TestKube) => void = () => {}): Promise<{ kube: TestKube; sources: KubeSources; log: string[] }> {
  const kube = await startTestKube(fs.mkdtempSync(path.join(dir, "k-")));
  cleanups.push(() => kube.close());
  prepare(kube);
  const log: string[] = [];
  const sources = startKubeSources(cluster(kube.kubeconfig, kubernetes), () => {}, { log: (l) => log.push(l), watchGraceSeconds: 1 });
  cleanups.push(() => sources.stop());
  return { kube, sources, log };
}

describe("Kubernetes informers with deadlines", () => {
  it("a list that never answers fails at requestTimeoutSeconds, and the informer lists again with backoff until it answers", async () => {
    const { kube, sources, log } = await start({ requestTimeoutSeconds: 1 }, (k) => (k.stallLists = true));
    const failed = await until(() => ({ ...sources.nodes.status }), (s) => s.state === "error", 5_000, "list timeout reported");
    expect(failed.error).toMatchObject({ kind: "timeout", message: "listing nodes took longer than 1 s" });
    expect(failed.error!.hint).toContain("kubernetes.requestTimeoutSeconds");
    expect(log.filter((l) => l.includes("k/kube/nodes: timeout"))).toHaveLength(1);
    kube.stallLists = false;
    await until(() => ({ ...sources.nodes.status }), (s) => s.state === "ok", 10_000, "recovered after the list answers");
    expect(sources.nodes.list().map((n) => n.metadata?.name)).toEqual(["node-a"]);
    expect(log.some((l) => l.includes("k/kube/nodes: recovered"))).toBe(true);
  });

  it("asks the server to end each watch (timeoutSeconds), cuts one still open past it, keeps the cached objects and lists again", async () => {
    const { kube, sources } = await start({ watchTimeoutSeconds: 1 });
    await until(() => ({ ...sources.nodes.status }), (s) => s.state === "ok", 5_000, "first list");
    await until(() => kube.requests, (r) => r.some((u) => u.startsWith("/api/v1/nodes?") && /watch=true/.test(u)), 5_000, "a watch of nodes");
    const watches = kube.requests.filter((u) => /watch=true/.test(u));
    expect(watches.length).toBeGreaterThan(0);
    for (const u of watches) expect(u).toMatch(/[?&]timeoutSeconds=1(&|$)/);

    kube.stallWatches = true; // the watch open now ends after its 1 s; the next one hangs
    const cut = await until(() => ({ ...sources.nodes.status }), (s) => s.state === "error", 8_000, "the hanging watch cut");
    expect(cut.error).toMatchObject({ kind: "timeout" });
    expect(cut.error!.message).toMatch(/still open 2 s after it should have ended \(1 s asked of the API server\)/);
    expect(sources.nodes.list().map((n) => n.metadata?.name)).toEqual(["node-a"]); // stale, not gone

    kube.stallWatches = false;
    const lists = kube.requests.filter((u) => /^\/api\/v1\/nodes(\?(?!.*watch=).*)?$/.test(u)).length;
    kube.store.upsert("nodes", node("node-b", true));
    await until(() => sources.nodes.list().map((n) => n.metadata?.name), (names) => names.includes("node-b"), 10_000, "node-b after recovery");
    expect(sources.nodes.status.state).toBe("ok");
    expect(kube.requests.filter((u) => /^\/api\/v1\/nodes(\?(?!.*watch=).*)?$/.test(u)).length).toBeGreaterThan(lists);
  });
});

describe("a refused connection is told from an answer", () => {
  it("carries the system error code of a real refused connection, and only refused or reset connections retry at once", async () => {
    // a port that was just free: nothing listens on it
    const net = await import("node:net");
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "c", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: "u", token: "t" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    const err = await kc.makeApiClient(k8s.CoreV1Api).listNode().then(() => undefined, (e: unknown) => e);
    expect(err, "the list fails").toBeDefined();
    expect(errnoOf(err)).toBe("ECONNREFUSED");
    const network = (errno?: string) => new SourceError({ source: "s", kind: "network", message: "m", errno });
    expect(isRestartRefusal(network("ECONNREFUSED"))).toBe(true);
    expect(isRestartRefusal(network("ECONNRESET"))).toBe(true);
    expect(isRestartRefusal(network("ENOTFOUND"))).toBe(false);
    expect(isRestartRefusal(network(undefined))).toBe(false);
    expect(isRestartRefusal(new SourceError({ source: "s", kind: "forbidden", status: 403, message: "m" }))).toBe(false);
    // the code is for the retry policy only: not in what an answer carries
    expect(JSON.stringify(network("ECONNREFUSED"))).not.toContain("ECONNREFUSED");
  });
});
