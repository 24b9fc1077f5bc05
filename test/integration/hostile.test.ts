/**
 * Hostile and broken input, through the production code paths (TaClient, ClusterPoller with its @kubernetes/client-node
 * informers, the configuration loader): hand-made Target Allocators on 127.0.0.1, and the demo Kubernetes API behind a small
 * fault-injecting proxy (403, 404, 410, watches that drop every second). Each case must end in a clear source state and
 * message, no crash, bounded memory, and the last good data kept.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { parseConfig, type ClusterConfig, type TaConfig } from "@/lib/config/schema";
import { SourceError } from "@/lib/source-error";
import { unescapeJobId } from "@/lib/routing";
import { TaClient, jobTargetsPath } from "@/server/ta/client";
import { ClusterPoller } from "@/server/poller";
import type { Snapshot, SourceStatus } from "@/lib/snapshot";
import { ConfigError, loadConfigFile } from "@/server/config";
import { until } from "@allocation-lens/test-support/wait";
import { Store } from "@allocation-lens/demo-cluster/internal/store";
import { startKubeApi, type KubeApiServer } from "@allocation-lens/demo-cluster/internal/kube/server";
import { node, pod } from "@allocation-lens/demo-cluster/test/fixtures/kube";
import { listenInFront } from "@/test/fixtures/kube";

// ---------------------------------------------------------------------------------------------------------------------
// a hand-made Target Allocator

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface FakeTa {
  url: string;
  paths: string[];
  hosts: string[];
  routes: Map<string, Route>;
  fallback: Route;
  close(): Promise<void>;
}

const SELECTOR = { "app.kubernetes.io/component": "agent" };
const NS = "agents";

function itemFor(job: string, n: number, labels: Record<string, string> = {}) {
  return { targets: [`10.0.0.${n}:9100`], labels: { __meta_kubernetes_pod_node_name: "node-a", __meta_kubernetes_namespace: "shop", job, ...labels } };
}

function sendJson(res: http.ServerResponse, body: unknown, status = 200) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

/** A TA serving `jobs` (job -> items for collector-a); every route can be replaced by a test. */
async function startFakeTa(jobs: Record<string, unknown[]>): Promise<FakeTa> {
  const ta: FakeTa = { url: "", paths: [], hosts: [], routes: new Map(), fallback: () => {}, close: async () => {} };
  const jobRoutes = new Map(Object.keys(jobs).map((j) => [jobTargetsPath(j), j]));
  ta.fallback = (req, res) => {
    const p = req.url ?? "";
    if (p === "/readyz") return sendJson(res, { status: "ok" });
    if (p === "/jobs") return sendJson(res, Object.fromEntries(Object.keys(jobs).map((j) => [j, { _link: jobTargetsPath(j) }])));
    if (p === "/metrics") {
      res.writeHead(200, { "Content-Type": "text/plain; version=0.0.4" });
      return res.end("# HELP opentelemetry_allocator_targets x\n# TYPE opentelemetry_allocator_targets gauge\nopentelemetry_allocator_targets{job_name=\"x\"} 1\n");
    }
    if (p === "/scrape_configs") return sendJson(res, Object.fromEntries(Object.keys(jobs).map((j) => [j, { job_name: j }])));
    const job = jobRoutes.get(p);
    if (job !== undefined) return sendJson(res, { "collector-a": { _link: "x", targets: jobs[job] } });
    sendJson(res, { error: "not found" }, 404);
  };
  const server = http.createServer((req, res) => {
    ta.paths.push(req.url ?? "");
    ta.hosts.push(req.headers.host ?? "");
    (ta.routes.get((req.url ?? "").split("?")[0]) ?? ta.fallback)(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  ta.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ta.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return ta;
}

function taConfig(url: string, extra: Record<string, unknown> = {}): TaConfig {
  const r = parseConfig({
    clusters: [{ name: "c", targetAllocators: { "per-node": { url, flavor: "upstream", timeoutSeconds: 2, collectors: { namespace: NS, selector: SELECTOR }, ...extra } } }],
  });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.config.clusters[0].targetAllocators["per-node"]!;
}

async function readError(client: TaClient): Promise<SourceError> {
  try {
    await client.read();
  } catch (e) {
    expect(e).toBeInstanceOf(SourceError);
    return e as SourceError;
  }
  throw new Error("expected the read to fail");
}

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("a hostile or broken Target Allocator", () => {
  it("answers HTML: a parse error that says so, with a hint", async () => {
    const ta = await startFakeTa({ a: [itemFor("a", 1)] });
    cleanups.push(() => ta.close());
    ta.routes.set("/jobs", (_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<!doctype html><html><body><h1>Target Allocator</h1><script>alert(1)</script></body></html>");
    });
    const client = new TaClient("c", "per-node", taConfig(ta.url));
    cleanups.push(() => client.close());
    const err = await readError(client);
    expect(err.kind).toBe("parse");
    expect(err.message).toBe("the TA answered HTML instead of JSON");
    expect(err.hint).toMatch(/Accept/);
    expect(err.message).not.toContain("<script>");
  });

  it("answers truncated JSON: a parse error naming the size, not the content", async () => {
    const ta = await startFakeTa({ a: [itemFor("a", 1)] });
    cleanups.push(() => ta.close());
    ta.routes.set(jobTargetsPath("a"), (_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"collector-a": {"targets": [{"targets": ["10.0.0.1:9100"], "labels": {"a":');
    });
    const client = new TaClient("c", "per-node", taConfig(ta.url));
    cleanups.push(() => client.close());
    const err = await readError(client);
    expect(err.kind).toBe("parse");
    expect(err.message).toMatch(/not valid JSON \(\d+ bytes\)/);
    expect(err.source).toContain("/jobs/a/targets");
  });

  it("answers a 200 MB body: the client stops at maxResponseBytes, memory stays bounded", async () => {
    const ta = await startFakeTa({ a: [itemFor("a", 1)] });
    cleanups.push(() => ta.close());
    let sent = 0;
    let closed = false;
    const chunk = Buffer.alloc(64 * 1024, "x");
    ta.routes.set("/jobs", (req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(200 * 1024 * 1024) });
      res.on("close", () => (closed = true));
      const pump = () => {
        while (!closed && sent < 200 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        if (!closed) res.end();
      };
      pump();
    });
    const limit = 1024 * 1024;
    const client = new TaClient("c", "per-node", taConfig(ta.url, { maxResponseBytes: limit }));
    cleanups.push(() => client.close());
    const heapBefore = process.memoryUsage().heapUsed;
    const err = await readError(client);
    expect(err.kind).toBe("too_large");
    expect(err.message).toBe(`answer larger than ${limit} bytes`);
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(true);
    // the connection was cut early: far less than 200 MB left the server (socket buffers account for the rest)
    expect(sent).toBeLessThan(32 * 1024 * 1024);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it("answers JSON of the wrong types: a schema error naming where, never echoing values", async () => {
    const ta = await startFakeTa({ a: [itemFor("a", 1)] });
    cleanups.push(() => ta.close());
    ta.routes.set(jobTargetsPath("a"), (_req, res) => sendJson(res, { "collector-a": { targets: [{ targets: "10.0.0.1:9100", labels: { secret: 42 } }] } }));
    const client = new TaClient("c", "per-node", taConfig(ta.url));
    cleanups.push(() => client.close());
    const err = await readError(client);
    expect(err.kind).toBe("schema");
    expect(err.message).toMatch(/^unexpected shape at collector-a\.targets\.0\.targets: /);
    expect(err.message).not.toContain("10.0.0.1");
    ta.routes.set("/jobs", (_req, res) => sendJson(res, ["a", "b"]));
    ta.routes.delete(jobTargetsPath("a"));
    const err2 = await readError(client);
    expect(err2.kind).toBe("schema");
  });

  it("serves label values with markup: kept verbatim as data (the UI renders them as text), nothing interpreted", async () => {
    const evil = `<script>alert("x")</script>`;
    const ta = await startFakeTa({ a: [itemFor("a", 1, { __meta_kubernetes_pod_node_name: evil, __meta_kubernetes_pod_label_app: `"><img src=x onerror=alert(1)>` })] });
    cleanups.push(() => ta.close());
    const client = new TaClient("c", "per-node", taConfig(ta.url));
    cleanups.push(() => client.close());
    const reading = await client.read();
    const target = reading.jobs.get("a")!.targets[0];
    expect(target).toMatchObject({ node: evil, collector: "collector-a", address: "10.0.0.1:9100" });
    // JSON.stringify is how the API serializes it: a string, in an application/json answer served with nosniff
    expect(JSON.parse(JSON.stringify(target)).node).toBe(evil);
  });

  it("lists job names with ../, %2F, query strings and URLs: each stays one path segment of the configured TA (no SSRF)", async () => {
    const names = ["../../metrics?x=", "%2F..%2F", "..", ".", "a/../../b", "//evil.example/x", "http://169.254.169.254/latest", "job with space", "#frag", "é/ü"];
    const ta = await startFakeTa(Object.fromEntries(names.map((n, i) => [n, [itemFor(n, i + 1)]])));
    cleanups.push(() => ta.close());
    const client = new TaClient("c", "per-node", taConfig(ta.url));
    cleanups.push(() => client.close());
    const reading = await client.read();
    expect([...reading.jobs.keys()].sort()).toEqual([...names].sort());
    const host = new URL(ta.url).host;
    expect(new Set(ta.hosts)).toEqual(new Set([host]));
    const fixed = new Set(["/readyz", "/jobs", "/metrics", "/scrape_configs"]);
    const jobPaths = ta.paths.filter((p) => !fixed.has(p));
    expect(jobPaths).toHaveLength(names.length);
    const requested = new Set<string>();
    for (const p of jobPaths) {
      const m = /^\/jobs\/([^/?#]+)\/targets$/.exec(p);
      expect(m, p).not.toBeNull();
      expect([".", ".."]).not.toContain(m![1]);
      requested.add(unescapeJobId(m![1]));
    }
    expect([...requested].sort()).toEqual([...names].sort());
  });

  it("refuses any request path that would leave the configured TA or be rewritten", async () => {
    const ta = await startFakeTa({});
    cleanups.push(() => ta.close());
    const client = new TaClient("c", "per-node", taConfig(ta.url));
    cleanups.push(() => client.close());
    for (const p of ["//evil.example/x", "http://evil.example/", "/jobs/../metrics", "jobs", "/a/./b"]) {
      await expect(client.http.get(p), p).rejects.toMatchObject({ kind: "config" });
    }
    expect(ta.paths).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// the demo Kubernetes API behind a fault-injecting proxy, driven by the production ClusterPoller

type Fault = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

interface Kube {
  store: Store;
  api: KubeApiServer;
  kubeconfig: string;
  requests: string[];
  faults: Fault[];
  /** end every watch response this many ms after it starts (0 = never) */
  dropWatchesAfterMs: number;
  close(): Promise<void>;
}

async function startKube(dir: string): Promise<Kube> {
  const store = new Store();
  store.upsert("nodes", node("node-a", true, { "topology.kubernetes.io/zone": "z1" }));
  store.upsert("nodes", node("node-b", true, { "topology.kubernetes.io/zone": "z2" }));
  store.upsert("pods", pod(NS, "collector-a", "node-a", SELECTOR));
  const api = await startKubeApi(store, { dir, bookmarkIntervalMs: 200 });
  const upstream = new URL(api.url);
  const kube: Kube = { store, api, kubeconfig: "", requests: [], faults: [], dropWatchesAfterMs: 0, close: async () => {} };
  const proxy = http.createServer((req, res) => {
    kube.requests.push(req.url ?? "");
    for (const f of kube.faults) if (f(req, res)) return;
    const up = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
      if (kube.dropWatchesAfterMs && /[?&]watch=(true|1)/.test(req.url ?? "")) {
        setTimeout(() => {
          ur.destroy();
          res.end();
        }, kube.dropWatchesAfterMs).unref();
      }
    });
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  kube.kubeconfig = path.join(dir, "proxy-kubeconfig.yaml");
  await listenInFront(proxy, kube, api);
  return kube;
}

const statusOf = (s: Snapshot | undefined, suffix: string): SourceStatus | undefined => s?.sources.find((x) => x.source.endsWith(suffix));


function clusterConfig(kubeconfig: string, taUrl: string, ta: Record<string, unknown> = {}): ClusterConfig {
  const r = parseConfig({
    clusters: [
      {
        name: "hostile",
        kubernetes: { kubeconfig },
        pollIntervalSeconds: 1,
        targetAllocators: { "per-node": { url: taUrl, flavor: "upstream", timeoutSeconds: 2, collectors: { namespace: NS, selector: SELECTOR }, ...ta } },
      },
    ],
  });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.config.clusters[0];
}

describe("a hostile or broken Kubernetes API, through the poller", () => {
  let dir: string;
  let kube: Kube;
  let ta: FakeTa;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-hostile-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function setup(): Promise<ClusterPoller> {
    kube = await startKube(fs.mkdtempSync(path.join(dir, "k-")));
    ta = await startFakeTa({ a: [itemFor("a", 1), itemFor("a", 2, { __meta_kubernetes_pod_node_name: "node-b" })] });
    const poller = new ClusterPoller(clusterConfig(kube.kubeconfig, ta.url));
    cleanups.push(() => kube.close(), () => ta.close(), () => poller.stop());
    poller.start();
    return poller;
  }

  it("a TA that turns hostile keeps its last good data, marked stale with the error", async () => {
    const poller = await setup();
    const good = await until(() => poller.latest, (s) => statusOf(s, "ta/per-node")?.state === "ok" && s.analysis.targets.length === 2, 20_000, "first good poll", 100);
    expect(good.analysis.targets).toHaveLength(2);
    ta.routes.set("/jobs", (_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<html>maintenance</html>");
    });
    const stale = await until(() => poller.latest, (s) => statusOf(s, "ta/per-node")?.state === "stale", 20_000, "stale", 100);
    expect(statusOf(stale, "ta/per-node")!.error).toMatchObject({ kind: "parse", message: "the TA answered HTML instead of JSON" });
    expect(stale.analysis.targets).toHaveLength(2);
  });

  it("403 on every resource: each source says the service account lacks list/watch and how to grant it; TA data still served", async () => {
    const poller = await setup();
    kube.faults.push((_req, res) => {
      sendJson(res, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Forbidden", code: 403, message: "forbidden: User \"system:serviceaccount:x:y\" cannot list resource" }, 403);
      return true;
    });
    const s = await until(() => poller.latest, (s) => ["nodes", "pods/per-node", "servicemonitors", "podmonitors"].every((k) => statusOf(s, `kube/${k}`)?.state === "error"), 20_000, "403 states", 100);
    for (const [k, resource] of [["nodes", "nodes"], ["pods/per-node", "pods"], ["servicemonitors", "servicemonitors"]] as const) {
      const st = statusOf(s, `kube/${k}`)!;
      expect(st.error).toMatchObject({ kind: "forbidden", status: 403, message: `the service account lacks list/watch on ${resource}` });
      expect(st.error!.hint).toContain(`grant list and watch on ${resource}`);
    }
    expect(statusOf(s, "ta/per-node")?.state).toBe("ok");
    expect(s.analysis.targets.length).toBe(2);
  });

  it("404 for the monitor CRDs: reported as not installed, with the fix; nodes and pods still read", async () => {
    const poller = await setup();
    kube.store.missing.add("servicemonitors");
    kube.store.missing.add("podmonitors");
    const s = await until(() => poller.latest, (s) => statusOf(s, "kube/servicemonitors")?.state === "error" && statusOf(s, "kube/nodes")?.state === "ok", 20_000, "404 states", 100);
    expect(statusOf(s, "kube/servicemonitors")!.error).toMatchObject({ kind: "not_found", message: "the ServiceMonitor CRD is not installed" });
    expect(statusOf(s, "kube/podmonitors")!.error!.hint).toContain("PodMonitor CRD");
    expect(s.analysis.nodes.length).toBe(2);
  });

  it("410 Gone on a watch: the informer lists again and carries on", async () => {
    let gone = 0;
    const poller = await setup();
    kube.faults.push((req, res) => {
      if (!/\/api\/v1\/nodes\?.*watch=/.test(req.url ?? "") || gone >= 2) return false;
      gone++;
      sendJson(res, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410, message: "too old resource version" }, 410);
      return true;
    });
    kube.store.upsert("nodes", node("node-c", true));
    await until(() => poller.latest, (s) => statusOf(s, "kube/nodes")?.state === "ok" && gone >= 2, 20_000, "after 410", 100);
    kube.store.upsert("nodes", node("node-d", true));
    await until(() => poller.latest, (s) => JSON.stringify(s.analysis).includes("node-d"), 20_000, "node-d seen after 410", 100);
    const lists = kube.requests.filter((u) => /^\/api\/v1\/nodes(\?(?!.*watch=).*)?$/.test(u)).length;
    expect(lists).toBeGreaterThanOrEqual(2);
  });

  it("watches that drop every second: data kept and current, no hot loop, no crash", async () => {
    const poller = await setup();
    kube.dropWatchesAfterMs = 1000;
    await until(() => poller.latest, (s) => statusOf(s, "kube/nodes")?.state === "ok", 20_000, "first list", 100);
    const startedAt = kube.requests.length;
    const t0 = Date.now();
    kube.store.upsert("nodes", node("node-late", true));
    await new Promise((r) => setTimeout(r, 4000));
    kube.store.upsert("nodes", node("node-later", true));
    const s = await until(() => poller.latest, (s) => JSON.stringify(s.analysis).includes("node-later"), 20_000, "node-later seen", 100);
    expect(JSON.stringify(s.analysis)).toContain("node-late");
    const seconds = (Date.now() - t0) / 1000;
    const perResourcePerSecond = (kube.requests.length - startedAt) / seconds / 4; // 4 watched resources
    expect(perResourcePerSecond).toBeLessThan(5);
  });

  it("a pod without status: an ineligible collector, not a crash", async () => {
    const poller = await setup();
    const bare = pod(NS, "collector-bare", "node-b", SELECTOR);
    delete (bare as { status?: unknown }).status;
    kube.store.upsert("pods", bare);
    const s = await until(() => poller.latest, (s) => JSON.stringify(s.analysis).includes("collector-bare"), 20_000, "bare pod seen", 100);
    expect(statusOf(s, "kube/pods/per-node")?.state).toBe("ok");
    expect(s.analysis.targets.length).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// broken configuration

describe("a broken configuration", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-config-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const load = (text: string) => {
    const f = path.join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
    fs.writeFileSync(f, text);
    try {
      loadConfigFile(f);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as ConfigError).problems;
    }
    throw new Error("expected a ConfigError");
  };

  it("unknown keys and wrong types: one line per problem, naming the field", () => {
    const problems = load(
      `clusters:\n  - name: prod\n    pollIntervalSeconds: "often"\n    targetAllocators:\n      per-node: { url: "https://ta", flavor: upstream, collectors: { namespace: x, selector: {} }, retries: 3 }\nauth: { mode: token, tokenFile: 7 }\nembed: { frameAncestors: "*" }\nextra: true\n`,
    );
    const text = problems.join("\n");
    expect(text).toContain('clusters[0].pollIntervalSeconds: expected a number of seconds (got "often")');
    expect(text).toMatch(/clusters\[0\]\.targetAllocators\.per-node: .*retries/);
    expect(text).toMatch(/auth\.tokenFile: .*\(got a number\)/);
    expect(text).toMatch(/embed\.frameAncestors: /);
    expect(text).toMatch(/\(top level\): .*extra/);
  });

  it("not YAML at all, or unreadable: a clear one-line reason", () => {
    expect(load("clusters: [\n")[0]).toMatch(/^YAML: /);
    expect(() => loadConfigFile(path.join(dir, "missing.yaml"))).toThrow(/cannot read the file: ENOENT/);
  });

  it("unreadable certificate files: the TA source reports which file and how to fix it; the poller runs on", async () => {
    const kube = await startKube(fs.mkdtempSync(path.join(dir, "k-")));
    cleanups.push(() => kube.close());
    const log: string[] = [];
    const poller = new ClusterPoller(
      clusterConfig(kube.kubeconfig, "https://127.0.0.1:1", { flavor: "cloudwatch", tls: { ca: path.join(dir, "nope/ca.crt"), cert: path.join(dir, "nope/c.crt"), key: path.join(dir, "nope/c.key") } }),
      (line) => log.push(line),
    );
    cleanups.push(() => poller.stop());
    poller.start();
    const s = await until(() => poller.latest, (s) => statusOf(s, "kube/nodes")?.state === "ok", 20_000, "snapshot", 100);
    const st = statusOf(s, "ta/per-node")!;
    expect(st.state).toBe("error");
    expect(st.error).toMatchObject({ kind: "config" });
    // the answer names which file and why, the server log where it is
    expect(st.error!.message).toBe("cannot read the configured CA certificate file (ENOENT; see the server log)");
    expect(st.error!.hint).toMatch(/tls paths/);
    expect(JSON.stringify(s)).not.toContain(dir);
    expect(log.filter((l) => l.includes(`CA certificate file ${path.join(dir, "nope/ca.crt")}: ENOENT`))).toHaveLength(1);
  });
});
