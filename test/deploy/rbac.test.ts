/**
 * The RBAC under deploy/ grants exactly the Kubernetes API calls the dashboard makes: nothing more, nothing less.
 *
 * For the base and every overlay: the rendered configuration's cluster is given to the real informers
 * (server/kube/informers.ts), which run against the demo Kubernetes API through a recording proxy until every informer has
 * listed and is watching; each request becomes (group, resource, verb, namespace or cluster-wide). That list must be the
 * one informers.ts declares (`kubeApiCalls`), and the grants the rendered Roles, ClusterRoles and their bindings give the
 * dashboard's ServiceAccount must be that same list: a cluster-wide grant where the calls are namespaced, an extra verb or
 * resource, a wildcard, or a call without a grant fails. With `lease` (replicas), the Lease election's calls are observed
 * the same way (a replica that creates its membership Lease and a cluster's, lists the membership, then renews them: get,
 * list, create, update) and declared by leaseApiCalls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import type { ClusterConfig } from "@/lib/config/schema";
import { waitUntil } from "@allocation-lens/test-support/wait";
import { Store } from "@allocation-lens/demo-cluster/internal/store";
import { startKubeApi, type KubeApiServer } from "@allocation-lens/demo-cluster/internal/kube/server";
import { kubeApiCalls, startKubeSources, type KubeApiCall } from "@/server/kube/informers";
import { deployment, find, grantedCalls, key, keys, kustomizations, render, renderedConfig, type Call } from "./manifests-support";
import { CoordinationV1Api, KubeConfig } from "@kubernetes/client-node";
import { leaseApiCalls, leaseCalls } from "@/server/lease/elector";
import { memberCalls, ShardedLeases } from "@/server/lease/shards";
import type { LeaseConfig } from "@/lib/config/schema";

/** A request to the Kubernetes API as an RBAC request: what an API server's authorizer would check. */
function callOf(method: string, url: string): Call {
  const u = new URL(url, "http://kube.invalid");
  const seg = u.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  let group: string;
  let rest: string[];
  if (seg[0] === "api" && seg.length > 2) [group, rest] = ["", seg.slice(2)];
  else if (seg[0] === "apis" && seg.length > 3) [group, rest] = [seg[1], seg.slice(3)];
  else return { group: "(non-resource)", resource: u.pathname, verb: method.toLowerCase(), namespace: undefined };
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) [namespace, rest] = [rest[1], rest.slice(2)];
  const [resource, name] = rest;
  const watch = u.searchParams.get("watch") === "true" || u.searchParams.get("watch") === "1";
  const writes: Record<string, string> = { POST: "create", PUT: "update", PATCH: "patch", DELETE: "delete" };
  const verb = method !== "GET" ? (writes[method] ?? method.toLowerCase()) : watch ? "watch" : name ? "get" : "list";
  return { group, resource, verb, namespace };
}

/** A forwarding proxy in front of the demo Kubernetes API that records every request the informers send. */
async function recordingProxy(target: string): Promise<{ url: string; calls: Call[]; close(): Promise<void> }> {
  const t = new URL(target);
  const calls: Call[] = [];
  const server = http.createServer((req, res) => {
    calls.push(callOf(req.method ?? "GET", req.url ?? "/"));
    const up = http.request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on("error", () => res.destroy());
    res.on("close", () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}


/** Run the informers of `cluster` against the demo API until each has listed and is watching; the calls they made. */
async function observeCalls(cluster: ClusterConfig, api: KubeApiServer, dir: string): Promise<Call[]> {
  const proxy = await recordingProxy(api.url);
  const kubeconfig = path.join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}.yaml`);
  const kc = YAML.parse(fs.readFileSync(api.kubeconfigPath, "utf8"));
  kc.clusters[0].cluster.server = proxy.url;
  fs.writeFileSync(kubeconfig, YAML.stringify(kc), { mode: 0o600 });
  const sources = startKubeSources({ ...cluster, kubernetes: { ...cluster.kubernetes, inCluster: false, kubeconfig } }, () => undefined);
  try {
    const settled = () => {
      if (!sources.statuses().every((s) => s.state === "ok")) return false;
      const watched = new Set(proxy.calls.filter((c) => c.verb === "watch").map((c) => key({ ...c, verb: "list" })));
      return proxy.calls.filter((c) => c.verb === "list").every((c) => watched.has(key(c)));
    };
    await waitUntil(settled, () => `every informer to list and watch: ${JSON.stringify(sources.statuses())}, calls ${keys(proxy.calls).join("; ")}`, 20_000);
  } finally {
    await sources.stop();
    await proxy.close();
  }
  return [...proxy.calls];
}

/** Run the Lease election of one cluster against the demo API until it has created its Lease and renewed it; the calls it made. */
async function observeLeaseCalls(lease: LeaseConfig, api: KubeApiServer): Promise<Call[]> {
  const proxy = await recordingProxy(api.url);
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser({ name: "demo", server: proxy.url, skipTLSVerify: true }, { name: "demo" });
  const prefix = `${lease.name}-rbac-${Math.random().toString(36).slice(2, 8)}`;
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const s = new ShardedLeases(
    { lease: (name) => leaseCalls(coordination, lease.namespace, name), members: memberCalls(coordination, lease.namespace, prefix) },
    { namespace: lease.namespace, prefix, me: { identity: "rbac-test", address: "127.0.0.1:3000", durationSeconds: 2 }, renewSeconds: 0.2, clusters: ["prod"] },
    () => undefined,
  );
  const e = s.elections.get("prod")!;
  try {
    s.start();
    await waitUntil(() => e.counts.writes >= 2, () => `the election to create and renew its Lease: calls ${keys(proxy.calls).join("; ")}`, 10_000);
  } finally {
    await s.stop();
    await proxy.close();
  }
  // stop() releases the Leases: an update like the renewals
  return [...proxy.calls];
}


let api: KubeApiServer;
let tmp: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rbac-test-"));
  api = await startKubeApi(new Store(), { dir: tmp });
});

afterAll(async () => {
  await api?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("the call list", () => {
  it("maps requests to RBAC requests as an API server does", () => {
    expect(callOf("GET", "/api/v1/namespaces/amazon-cloudwatch/pods?labelSelector=a%3Db")).toEqual({ group: "", resource: "pods", verb: "list", namespace: "amazon-cloudwatch" });
    expect(callOf("GET", "/api/v1/namespaces/amazon-cloudwatch/pods?watch=true&resourceVersion=3")).toMatchObject({ verb: "watch", namespace: "amazon-cloudwatch" });
    expect(callOf("GET", "/api/v1/nodes/node-a")).toEqual({ group: "", resource: "nodes", verb: "get", namespace: undefined });
    expect(callOf("GET", "/apis/monitoring.coreos.com/v1/servicemonitors?watch=1")).toEqual({ group: "monitoring.coreos.com", resource: "servicemonitors", verb: "watch", namespace: undefined });
    expect(callOf("DELETE", "/api/v1/namespaces/x/pods/p")).toMatchObject({ verb: "delete" });
    expect(callOf("POST", "/apis/coordination.k8s.io/v1/namespaces/lens/leases")).toEqual({ group: "coordination.k8s.io", resource: "leases", verb: "create", namespace: "lens" });
    expect(callOf("PUT", "/apis/coordination.k8s.io/v1/namespaces/lens/leases/l")).toMatchObject({ verb: "update" });
    expect(callOf("GET", "/version")).toMatchObject({ group: "(non-resource)" });
  });
});

describe.each(kustomizations())("%s: RBAC against the calls the informers make", (kustomization) => {
  const objs = render(kustomization);
  const { config } = renderedConfig(objs);
  const pod = deployment(objs).spec.template.spec;
  const sa = find(objs, "ServiceAccount").find((s) => s.metadata.name === pod.serviceAccountName);

  it("the rendered RBAC has a clean shape: bindings to the dashboard's ServiceAccount only, no wildcards, no unbound roles", () => {
    expect(sa, `ServiceAccount ${pod.serviceAccountName}`).toBeDefined();
    expect(grantedCalls(objs, sa!.metadata).problems).toEqual([]);
  });

  it("grants exactly the calls the informers and the Lease election make, per namespace: nothing more, nothing less", async () => {
    const declared: Call[] = [...config.clusters.flatMap((c): KubeApiCall[] => kubeApiCalls(c)), ...leaseApiCalls(config.lease)];
    const observed: Call[] = [];
    for (const cluster of config.clusters) observed.push(...(await observeCalls(cluster, api, tmp)));
    if (config.lease) observed.push(...(await observeLeaseCalls(config.lease, api)));
    // informers.ts and elector.ts say what they call, and that is what they call
    expect(keys(observed)).toEqual(keys(declared));
    const { granted } = grantedCalls(objs, sa!.metadata);
    expect(keys(granted), "granted (left) against called (right)").toEqual(keys(observed));
  });
});
