/**
 * What a laptop user of a real cluster finds in the demo, with real clients: the TAs' operator objects (`kubectl get
 * configmaps,services,deployments,secrets`), port-forward to a TA pod with real kubectl (its WebSocket-tunnelled SPDY,
 * and plain SPDY with KUBECTL_PORT_FORWARD_WEBSOCKETS=false) and with @kubernetes/client-node's PortForward (WebSocket
 * channels), HTTP to the upstream TA and mTLS to the cloudwatch TA through the tunnel (servername `<svc>.<ns>.svc`),
 * the service proxy, the user without port-forward permission, and the `ta-pod-replaced` fault.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import path from "node:path";
import { PassThrough } from "node:stream";
import { promisify } from "node:util";
import { KubeConfig, PortForward } from "@kubernetes/client-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startProcess, type Proc } from "@allocation-lens/test-support/processes";
import { waitFor } from "@allocation-lens/test-support/wait";
import { fault, KUBECTL, startDemo, tlsGet, truth, type Demo, type TaInfo } from "./harness";

const run = promisify(execFile);
const HAVE_KUBECTL = existsSync(KUBECTL);
if (!HAVE_KUBECTL) console.warn(`skipping the port-forward acceptance tests: ${KUBECTL} is not installed`);

/** GET over plain HTTP to 127.0.0.1:port, a fresh connection each time. */
function httpGet(port: number, pathname: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: pathname, agent: false, timeout: 10_000 }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
  });
}

/** GET over mTLS to 127.0.0.1:port (a fresh connection) with the demo's client certificate, verifying the TA as `servername`. */
const mtlsGet = (port: number, ta: TaInfo, pathname: string, servername: string) => tlsGet({ ...ta, url: `https://127.0.0.1:${port}` }, pathname, { servername, timeoutMs: 10_000 });

/** A local listener whose every connection is one client-node PortForward WebSocket to `pod`:`port`. */
async function clientNodeForward(kubeconfig: string, namespace: string, pod: string, port: number) {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const pf = new PortForward(kc);
  const sockets = new Set<{ close(): void }>();
  const errors: string[] = [];
  const server = net.createServer((conn) => {
    const err = new PassThrough();
    err.on("data", (c: Buffer) => errors.push(c.toString()));
    pf.portForward(namespace, pod, [port], conn, err, conn).then(
      (ws) => {
        const w = ws as unknown as { close(): void; on(e: string, f: () => void): void };
        sockets.add(w);
        w.on("close", () => {
          sockets.delete(w);
          conn.destroy();
        });
      },
      (e: Error) => {
        errors.push(`connect: ${e.message}`);
        conn.destroy();
      },
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as net.AddressInfo).port,
    errors,
    open: () => sockets.size,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.skipIf(!HAVE_KUBECTL)("port-forward, service proxy and operator objects", () => {
  let upstream: Demo;
  let cloudwatch: Demo;
  let procs: Proc[] = [];
  const kubectl = async (demo: Demo, args: string[], env: Record<string, string> = {}) =>
    (await run(KUBECTL, ["--kubeconfig", demo.info.kubeconfig, "--cache-dir", path.join(demo.dir, "kubectl-cache"), ...args], { timeout: 20_000, env: { ...process.env, ...env } })).stdout;

  /** kubectl port-forward to 0:<containerPort>; resolves with the local port it prints. */
  async function kubectlForward(demo: Demo, ta: TaInfo, pod: string, env: Record<string, string> = {}, context?: string): Promise<{ proc: Proc; port: number }> {
    const args = ["--kubeconfig", demo.info.kubeconfig, "--cache-dir", path.join(demo.dir, "kubectl-cache"), ...(context ? ["--context", context] : []), "port-forward", "-v=6", "-n", ta.namespace, `pod/${pod}`, `0:${ta.containerPort}`];
    const proc = startProcess(KUBECTL, args, { env: { ...process.env, ...env } });
    procs.push(proc);
    const port = await waitFor("kubectl's Forwarding line", () => {
      const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(proc.output());
      return m ? Number(m[1]) : undefined;
    }, { timeoutMs: 15_000, last: () => proc.output() });
    return { proc, port };
  }

  beforeAll(async () => {
    [upstream, cloudwatch] = await Promise.all([startDemo(["--flavor", "upstream", "--nodes", "4", "--seed", "3"]), startDemo(["--flavor", "cloudwatch", "--nodes", "4", "--seed", "3"])]);
  }, 90_000);
  afterEach(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    procs = [];
  });
  afterAll(async () => {
    await Promise.all([upstream?.stop(), cloudwatch?.stop()]);
  });

  it("kubectl get configmaps,services,deployments,secrets lists each TA's objects with their columns", async () => {
    const up = await kubectl(upstream, ["get", "configmaps,services,deployments,secrets", "-n", "opentelemetry"]);
    expect(up).toMatch(/^NAME\s+DATA\s+AGE\nconfigmap\/otel-agent-targetallocator\s+1\s/m);
    expect(up).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nservice\/otel-agent-targetallocator\s+ClusterIP\s+\d+\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s/m);
    expect(up).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\ndeployment\.apps\/otel-agent-targetallocator\s+1\/1\s+1\s+1\s/m);
    const cw = await kubectl(cloudwatch, ["get", "configmaps,services,deployments,secrets", "-n", "amazon-cloudwatch"]);
    for (const name of ["configmap/cloudwatch-agent-target-allocator", "configmap/cloudwatch-agent-cluster-scraper-target-allocator", "service/cloudwatch-agent-target-allocator-service", "deployment.apps/cloudwatch-agent-cluster-scraper-target-allocator"]) {
      expect(cw).toContain(name);
    }
    expect(cw).toMatch(/^secret\/amazon-cloudwatch-observability-agent-client-cert\s+kubernetes\.io\/tls\s+3\s/m);
    // the Secret's values are base64 PEM, as the real API serves them
    const secret = JSON.parse(await kubectl(cloudwatch, ["get", "secret", "-n", "amazon-cloudwatch", "amazon-cloudwatch-observability-agent-client-cert", "-o", "json"]));
    expect(Buffer.from(secret.data["tls.crt"], "base64").toString()).toBe(readFileSync(cloudwatch.info.targetAllocators["per-node"]!.cert!, "utf8"));
    expect(Buffer.from(secret.data["ca.crt"], "base64").toString()).toBe(readFileSync(cloudwatch.info.targetAllocators["per-node"]!.ca!, "utf8"));
    // the TA pods run, Ready, under the names the JSON line gives
    const pods = await kubectl(cloudwatch, ["get", "pods", "-n", "amazon-cloudwatch"]);
    for (const role of ["per-node", "cluster-scraper"] as const) expect(pods).toMatch(new RegExp(`^${cloudwatch.info.targetAllocators[role]!.pod}\\s+1/1\\s+Running\\s`, "m"));
  });

  for (const transport of ["websocket", "spdy"] as const) {
    const env: Record<string, string> = transport === "spdy" ? { KUBECTL_PORT_FORWARD_WEBSOCKETS: "false" } : {};
    it(`kubectl port-forward (${transport === "websocket" ? "SPDY tunnelled in a WebSocket" : "plain SPDY upgrade"}): HTTP to the upstream TA, twice through one process`, async () => {
      const ta = upstream.info.targetAllocators["per-node"]!;
      const pod = (await truth(upstream.info)).taPods["per-node"]!;
      const { proc, port } = await kubectlForward(upstream, ta, pod, env);
      // the transport kubectl used: the WebSocket tunnel without falling back, or SPDY without trying the tunnel
      if (transport === "websocket") {
        expect(proc.output()).toMatch(/negotiated protocol: portforward\.k8s\.io/);
        expect(proc.output()).not.toMatch(/fallback to secondary dialer/);
      } else {
        expect(proc.output()).not.toMatch(/WebSocket Upgrade/);
        expect(proc.output()).toMatch(/portforward 101 Switching Protocols/);
      }
      const direct = await httpGet(Number(new URL(ta.url).port), "/jobs");
      for (let i = 0; i < 2; i++) {
        const r = await httpGet(port, "/jobs");
        expect(r.status).toBe(200);
        expect(JSON.parse(r.body)).toEqual(JSON.parse(direct.body));
      }
      const stats = await httpGet(port, "/jobs/kubelet/targets");
      expect(stats.status).toBe(200);
    });

    it(`kubectl port-forward (${transport}): mTLS to the cloudwatch TA with servername <svc>.<ns>.svc, twice`, async () => {
      const ta = cloudwatch.info.targetAllocators["cluster-scraper"]!;
      const pod = (await truth(cloudwatch.info)).taPods["cluster-scraper"]!;
      const { port } = await kubectlForward(cloudwatch, ta, pod, env);
      for (let i = 0; i < 2; i++) {
        const r = await mtlsGet(port, ta, "/jobs", `${ta.service}.${ta.namespace}.svc`);
        expect(r.status).toBe(200);
        expect(Object.keys(JSON.parse(r.body)).length).toBeGreaterThan(0);
      }
    });
  }

  it("client-node PortForward: HTTP to the upstream TA and mTLS to a cloudwatch TA through the tunnel", async () => {
    const up = upstream.info.targetAllocators["per-node"]!;
    const f1 = await clientNodeForward(upstream.info.kubeconfig, up.namespace, (await truth(upstream.info)).taPods["per-node"]!, up.containerPort);
    const cw = cloudwatch.info.targetAllocators["per-node"]!;
    const f2 = await clientNodeForward(cloudwatch.info.kubeconfig, cw.namespace, (await truth(cloudwatch.info)).taPods["per-node"]!, cw.containerPort);
    try {
      const a = await httpGet(f1.port, "/jobs");
      expect(a.status).toBe(200);
      expect(Object.keys(JSON.parse(a.body))).toContain("kubelet");
      const b = await mtlsGet(f2.port, cw, "/jobs", `${cw.service}.${cw.namespace}.svc`);
      expect(b.status).toBe(200);
      expect(Object.keys(JSON.parse(b.body))).toContain("kubelet");
      // a name the certificate does not carry fails verification
      await expect(mtlsGet(f2.port, cw, "/jobs", "other.amazon-cloudwatch.svc")).rejects.toThrow(/altnames|Hostname/i);
      expect(f1.errors.join("")).toBe("");
    } finally {
      await Promise.all([f1.close(), f2.close()]);
    }
  });

  it("port-forward refusals: an unknown pod is 404 before the upgrade; a port the pod does not serve is an error on channel 1", async () => {
    const ta = upstream.info.targetAllocators["per-node"]!;
    const missing = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${upstream.info.kubeApi}/api/v1/namespaces/opentelemetry/pods/nope/portforward?ports=8080`, {
        headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol": "v4.channel.k8s.io" },
      });
      req.on("upgrade", () => reject(new Error("upgraded for a pod that does not exist")));
      req.on("response", (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ kind: "Status", message: 'pods "nope" not found', code: 404 });

    const collector = (await truth(upstream.info)).collectors[0].id;
    const wrongPod = await clientNodeForward(upstream.info.kubeconfig, ta.namespace, collector, 8080);
    const wrongPort = await clientNodeForward(upstream.info.kubeconfig, ta.namespace, (await truth(upstream.info)).taPods["per-node"]!, 9999);
    try {
      for (const f of [wrongPod, wrongPort]) {
        await httpGet(f.port, "/jobs").catch(() => undefined);
        await waitFor("the error on channel 1", () => f.errors.join("").match(/error forwarding port \d+ to pod .*connection refused/), { timeoutMs: 10_000, last: () => f.errors });
      }
    } finally {
      await Promise.all([wrongPod.close(), wrongPort.close()]);
    }
  });

  it("service proxy: the upstream TA's /jobs through kubectl get --raw; a cloudwatch TA fails without a client certificate; unknown Service 404", async () => {
    const ta = upstream.info.targetAllocators["per-node"]!;
    const direct = await httpGet(Number(new URL(ta.url).port), "/jobs");
    for (const spec of ["otel-agent-targetallocator:80", "otel-agent-targetallocator:targetallocation", "http:otel-agent-targetallocator:80", "otel-agent-targetallocator"]) {
      const out = await kubectl(upstream, ["get", "--raw", `/api/v1/namespaces/opentelemetry/services/${spec}/proxy/jobs`]);
      expect(JSON.parse(out), spec).toEqual(JSON.parse(direct.body));
    }
    const targets = await fetch(`${upstream.info.kubeApi}/api/v1/namespaces/opentelemetry/services/otel-agent-targetallocator:80/proxy/jobs/kubelet/targets?collector_id=x`);
    expect(targets.status).toBe(200);
    expect(targets.headers.get("content-type")).toMatch(/json/);
    const cw = await fetch(`${cloudwatch.info.kubeApi}/api/v1/namespaces/amazon-cloudwatch/services/https:cloudwatch-agent-target-allocator-service:80/proxy/jobs`);
    expect(cw.status).toBe(503);
    expect(await cw.json()).toMatchObject({ kind: "Status", code: 503, message: "error trying to reach service: remote error: tls: certificate required" });
    const unknown = await fetch(`${upstream.info.kubeApi}/api/v1/namespaces/opentelemetry/services/nope:80/proxy/jobs`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ kind: "Status", message: 'services "nope" not found' });
  });

  it("the no-portforward user: 403 on port-forward and secrets, everything else works; the main user is unchanged", async () => {
    const ctx = ["--context", "allocation-lens-demo-no-portforward"];
    const ta = cloudwatch.info.targetAllocators["per-node"]!;
    const pod = (await truth(cloudwatch.info)).taPods["per-node"]!;
    const denied = await kubectl(cloudwatch, [...ctx, "get", "secrets", "-n", "amazon-cloudwatch"]).then(() => "", (e: { stderr: string }) => e.stderr);
    expect(denied).toContain('secrets is forbidden: User "demo-viewer" cannot list resource "secrets" in API group "" in the namespace "amazon-cloudwatch"');
    expect(await kubectl(cloudwatch, [...ctx, "get", "pods,configmaps,services", "-n", "amazon-cloudwatch"])).toContain(pod);
    const raw = await fetch(`${cloudwatch.info.kubeApi}/api/v1/namespaces/amazon-cloudwatch/pods/${pod}/portforward?ports=8443`, {
      method: "POST",
      headers: { Authorization: "Bearer allocation-lens-demo-no-portforward-token" },
    });
    expect(raw.status).toBe(403);
    expect(await raw.json()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `pods "${pod}" is forbidden: User "demo-viewer" cannot create resource "pods/portforward" in API group "" in the namespace "amazon-cloudwatch"`,
      reason: "Forbidden",
      details: { name: pod, kind: "pods" },
      code: 403,
    });
    const getSecret = await fetch(`${cloudwatch.info.kubeApi}/api/v1/namespaces/amazon-cloudwatch/secrets/amazon-cloudwatch-observability-agent-client-cert`, { headers: { Authorization: "Bearer allocation-lens-demo-no-portforward-token" } });
    expect(getSecret.status).toBe(403);
    expect((await getSecret.json()).message).toBe('secrets "amazon-cloudwatch-observability-agent-client-cert" is forbidden: User "demo-viewer" cannot get resource "secrets" in API group "" in the namespace "amazon-cloudwatch"');
    // kubectl port-forward as that user exits with the refusal
    const proc = startProcess(KUBECTL, ["--kubeconfig", cloudwatch.info.kubeconfig, "--cache-dir", path.join(cloudwatch.dir, "kubectl-cache"), ...ctx, "port-forward", "-n", ta.namespace, `pod/${pod}`, `0:${ta.containerPort}`]);
    procs.push(proc);
    const code = await Promise.race([proc.exited, new Promise<string>((r) => setTimeout(() => r("still running"), 15_000))]);
    expect(code, proc.output()).not.toBe(0);
    expect(proc.output()).toMatch(/forbidden|Forbidden/);
    // without a token and with the main one, secrets are readable
    expect((await fetch(`${cloudwatch.info.kubeApi}/api/v1/namespaces/amazon-cloudwatch/secrets`)).status).toBe(200);
  });

  it("ta-pod-replaced: the pod is DELETED, its tunnels close, a new Ready pod is ADDED and forwards to the same TA", async () => {
    const ta = cloudwatch.info.targetAllocators["cluster-scraper"]!;
    const before = (await truth(cloudwatch.info)).taPods["cluster-scraper"]!;
    const watch = startProcess(KUBECTL, ["--kubeconfig", cloudwatch.info.kubeconfig, "--cache-dir", path.join(cloudwatch.dir, "kubectl-cache"), "get", "pods", "-n", ta.namespace, "-w", "--output-watch-events"]);
    procs.push(watch);
    await waitFor("the initial watch list", () => watch.output().includes(before), { timeoutMs: 15_000, last: () => watch.output() });
    const { proc, port } = await kubectlForward(cloudwatch, ta, before);
    const f = await clientNodeForward(cloudwatch.info.kubeconfig, ta.namespace, before, ta.containerPort);
    try {
      // an open client-node tunnel: a kept-alive TLS connection
      const agent = new https.Agent({ keepAlive: true, ca: readFileSync(ta.ca!), cert: readFileSync(ta.cert!), key: readFileSync(ta.key!), servername: `${ta.service}.${ta.namespace}.svc` });
      const first = await new Promise<number>((resolve, reject) => https.get({ host: "127.0.0.1", port: f.port, path: "/jobs", agent }, (r) => (r.resume(), r.on("end", () => resolve(r.statusCode ?? 0)))).on("error", reject));
      expect(first).toBe(200);
      expect((await mtlsGet(port, ta, "/jobs", `${ta.service}.${ta.namespace}.svc`)).status).toBe(200);
      expect(f.open()).toBe(1);

      const did = await fault(cloudwatch.info, { fault: "ta-pod-replaced", role: "cluster-scraper" });
      expect(did).toContain(before);
      const after = (await truth(cloudwatch.info)).taPods["cluster-scraper"]!;
      expect(after).not.toBe(before);
      await waitFor("the client-node tunnel closed", () => f.open() === 0, { timeoutMs: 10_000 });
      // kubectl's session to the deleted pod ends too
      await waitFor("kubectl port-forward to the deleted pod exited", () => proc.child.exitCode !== null || proc.child.signalCode !== null, { timeoutMs: 15_000, last: () => proc.output() });
      await waitFor("DELETED and ADDED in the watch", () => new RegExp(`DELETED\\s+${before}`).test(watch.output()) && new RegExp(`ADDED\\s+${after}\\s+1/1\\s+Running`).test(watch.output()), {
        timeoutMs: 10_000,
        last: () => watch.output(),
      });
      // the replacement forwards to the same TA; DELETE /faults leaves it in place
      const again = await kubectlForward(cloudwatch, ta, after);
      expect((await mtlsGet(again.port, ta, "/jobs", `${ta.service}.${ta.namespace}.svc`)).status).toBe(200);
      const healed = await fetch(`${cloudwatch.info.control}/faults`, { method: "DELETE", headers: { Authorization: `Bearer ${cloudwatch.info.controlToken}` } });
      expect(healed.status).toBe(200);
      expect((await truth(cloudwatch.info)).taPods["cluster-scraper"]).toBe(after);
      agent.destroy();
    } finally {
      await f.close();
    }
  });
});
