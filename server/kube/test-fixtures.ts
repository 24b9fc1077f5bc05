import "server-only";
/**
 * The demo Kubernetes API (packages/demo-cluster/src/kube) on 127.0.0.1 behind a small proxy that can misbehave like a stuck API
 * server: lists that never answer, and watches that send their headers and then nothing, never ending (whatever
 * timeoutSeconds asked). For the tests of the informers and the poller.
 */
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import YAML from "yaml";
import { Store } from "@allocation-lens/demo-cluster/internal/store";
import { startKubeApi } from "@allocation-lens/demo-cluster/internal/kube/server";
import { node, pod } from "@allocation-lens/demo-cluster/internal/kube/test-fixtures";
import { NS, SELECTOR } from "@/server/ta/test-fixtures";

export interface TestKube {
  store: Store;
  kubeconfig: string;
  /** request URLs seen by the proxy */
  requests: string[];
  /** lists (GET without watch) are held open without an answer */
  stallLists: boolean;
  /** watches get their headers and then nothing: the stream never ends */
  stallWatches: boolean;
  close(): Promise<void>;
}

const isWatch = (url: string) => /[?&]watch=(true|1)/.test(url);

export async function startTestKube(dir: string): Promise<TestKube> {
  fs.mkdirSync(dir, { recursive: true });
  const store = new Store();
  store.upsert("nodes", node("node-a", true, { "topology.kubernetes.io/zone": "z1" }));
  store.upsert("pods", pod(NS, "collector-a", "node-a", SELECTOR));
  const api = await startKubeApi(store, { dir, bookmarkIntervalMs: 200 });
  const upstream = new URL(api.url);
  const kube: TestKube = { store, kubeconfig: path.join(dir, "proxy-kubeconfig.yaml"), requests: [], stallLists: false, stallWatches: false, close: async () => {} };
  const proxy = http.createServer((req, res) => {
    const url = req.url ?? "";
    kube.requests.push(url);
    if (isWatch(url) ? kube.stallWatches : kube.stallLists) {
      if (isWatch(url)) {
        res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
        res.flushHeaders();
      }
      return; // held open
    }
    const up = http.request({ host: upstream.hostname, port: upstream.port, path: url, method: req.method, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on("error", () => res.destroy());
    res.on("close", () => up.destroy());
    req.pipe(up);
  });
  await listenInFront(proxy, kube, api);
  return kube;
}

/**
 * Starts `proxy` (a server in front of the demo Kubernetes API `api`) on 127.0.0.1, points `kube.kubeconfig` at it and
 * makes `kube.close` stop both.
 */
export async function listenInFront(proxy: http.Server, kube: { kubeconfig: string; close: () => Promise<void> }, api: { close(): Promise<void> }): Promise<void> {
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  fs.writeFileSync(
    kube.kubeconfig,
    YAML.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "t", cluster: { server: url, "insecure-skip-tls-verify": true } }],
      users: [{ name: "t", user: { token: "t" } }],
      contexts: [{ name: "t", context: { cluster: "t", user: "t" } }],
      "current-context": "t",
    }),
  );
  kube.close = async () => {
    proxy.closeAllConnections();
    await new Promise<void>((r) => proxy.close(() => r()));
    await api.close();
  };
}
