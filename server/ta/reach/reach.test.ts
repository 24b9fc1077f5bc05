/**
 * The reaches of a TA against a small Kubernetes API server in the test (test/fixtures/reach.ts): a whole reading through a
 * port-forward with mTLS (the TA sees our client certificate, taken from a Secret), through the service proxy, a tunnel
 * broken while an answer is on its way, the error channel, the refusals (403 on the upgrade, the Secret's errors), and that
 * no certificate or key bytes appear in an error or a log line.
 */
import { afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { generateDemoPki, type DemoPki } from "@allocation-lens/demo-cluster/internal/certs";
import { waitUntil } from "@allocation-lens/test-support/wait";
import { SourceError } from "@/lib/source-error";
import { TaClient } from "@/server/ta/client";
import { TaHttp, taFileReader } from "@/server/ta/http";
import { taTransport, type Reach } from "@/server/ta/reach";
import { readTlsSecret } from "@/server/ta/secret-tls";
import { dribble, jobAnswer, startFakeTa, taConfig, type FakeTa, failure } from "@/test/fixtures/ta";
import { startFakeKube, startMtlsFront, type FakeKube } from "@/test/fixtures/reach";

const NS = "amazon-cloudwatch";
const SVC = "cloudwatch-agent-target-allocator-service";
const SECRET = "agent-client-cert";
const LABELS = { "app.kubernetes.io/name": "cloudwatch-agent-target-allocator" };
const b64 = (s: string) => Buffer.from(s).toString("base64");
/** a line of a PEM's base64 body, which must never show anywhere */
const pemBody = (pem: string) => pem.split("\n")[1];

let pki: DemoPki;
beforeAll(async () => {
  pki = await generateDemoPki();
});

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.restoreAllMocks();
});

async function fakeTa(jobs: Record<string, number>): Promise<FakeTa> {
  const ta = await startFakeTa(jobs);
  cleanups.push(() => ta.close());
  return ta;
}

const address = (url: string) => {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
};

/** the API server with the TA's Service (port 80 -> 8443) and its one Ready pod, whose tunnels reach `backend` */
async function kubeWith(backend: { host: string; port: number }, targetPort: number | string = 8443): Promise<FakeKube> {
  const kube = await startFakeKube(NS);
  cleanups.push(() => kube.close());
  kube.services.set(SVC, { selector: LABELS, ports: [{ name: "https", port: 80, targetPort }] });
  kube.pods.set("ta-aaaa-1", { name: "ta-aaaa-1", labels: LABELS, ready: true, backend, created: "2026-01-01T00:00:00Z", ports: [{ name: "https", containerPort: 8443 }] });
  kube.pods.set("ta-old-0", { name: "ta-old-0", labels: LABELS, ready: false, backend, created: "2026-01-02T00:00:00Z" });
  kube.secrets.set(SECRET, { "tls.crt": b64(pki.clientCertPem), "tls.key": b64(pki.clientKeyPem), "ca.crt": b64(pki.caPem) });
  return kube;
}

const portForward = { portForward: { namespace: NS, service: SVC, port: 80 } };
const mtlsConfig = (extra: Record<string, unknown> = {}) =>
  taConfig("https://ta.invalid", { url: undefined, flavor: "cloudwatch", reach: portForward, tlsSecret: { secret: `${NS}/${SECRET}` }, tls: { serverName: "localhost" }, ...extra });

function client(config: ReturnType<typeof taConfig>, kube: FakeKube, token = "good", reach?: Reach): TaClient {
  const c = new TaClient("c", "per-node", config, 15, { kube: kube.kubeConfig(token), reach });
  cleanups.push(() => c.close());
  return c;
}

/** every console line written while `run` runs */
async function logged<T>(run: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  for (const m of ["log", "info", "warn", "error", "debug"] as const) vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void lines.push(a.map(String).join(" ")));
  const value = await run();
  return { value, lines };
}

describe("port-forward", () => {
  it("reads a whole TA over TLS through the tunnel, with the client certificate of a Secret: the TA sees it", async () => {
    const ta = await fakeTa({ a: 3, b: 2 });
    const front = await startMtlsFront(address(ta.url), { ca: pki.caPem, cert: pki.serverCertPem, key: pki.serverKeyPem });
    cleanups.push(() => front.close());
    const kube = await kubeWith(front.address);
    const c = client(mtlsConfig(), kube);
    const r = await c.read();
    expect([...r.jobs.keys()]).toEqual(["a", "b"]);
    expect(r.jobs.get("a")!.targets).toHaveLength(3);
    expect(r.requests).toBe(6);
    expect(front.peers.length).toBeGreaterThan(0);
    expect(new Set(front.peers)).toEqual(new Set(["allocation-lens"]));
    // the Ready pod, on the Service port's target port; keep-alive: fewer tunnels than requests
    const tunnels = kube.seen.filter((l) => l.startsWith("TUNNEL"));
    expect(new Set(tunnels)).toEqual(new Set(["TUNNEL ta-aaaa-1 8443"]));
    expect(tunnels.length).toBeLessThanOrEqual(4);
    expect(kube.seen).toContain(`GET /api/v1/namespaces/${NS}/secrets/${SECRET}`);
    // kept alive between requests, closed with the client
    expect(kube.tunnels.get("ta-aaaa-1")!.size).toBeGreaterThan(0);
    c.close();
    await waitUntil(() => kube.tunnels.get("ta-aaaa-1")!.size === 0, "the tunnels close with the client");
  });

  it("fails the TLS handshake when the Secret's certificate is not one the TA trusts", async () => {
    const ta = await fakeTa({ a: 1 });
    const other = await generateDemoPki();
    const front = await startMtlsFront(address(ta.url), { ca: other.caPem, cert: pki.serverCertPem, key: pki.serverKeyPem });
    cleanups.push(() => front.close());
    const kube = await kubeWith(front.address);
    const err = await failure(client(mtlsConfig(), kube).read());
    // as over a direct connection: Node's TLS server may close before the client reads its alert (then a reset)
    expect(["tls", "network"]).toContain(err.kind);
    expect(front.peers).toEqual([]);
  });

  it("reads a plain-HTTP TA, the pod's port found by the container port's name", async () => {
    const ta = await fakeTa({ a: 1 });
    const kube = await kubeWith(address(ta.url), "https");
    const r = await client(taConfig("http://ta.invalid", { url: undefined, reach: portForward }), kube).read();
    expect([...r.jobs.keys()]).toEqual(["a"]);
    expect(kube.seen).toContain("TUNNEL ta-aaaa-1 8443");
  });

  it("a tunnel broken mid-answer fails the request as network; the next request goes to the replacement pod", async () => {
    const ta = await fakeTa({ a: 1 });
    ta.jobRoute = dribble(JSON.stringify(jobAnswer("a", 50)), 20, 16);
    const kube = await kubeWith(address(ta.url));
    const config = taConfig("http://ta.invalid", { url: undefined, reach: portForward, timeoutSeconds: 20 });
    const http = new TaHttp("c/ta/per-node", config, { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 }, taTransport("c/ta/per-node", config, taFileReader("c"), kube.kubeConfig()));
    cleanups.push(() => http.close());
    const pending = failure(http.get("/jobs/a/targets"));
    await waitUntil(() => (kube.tunnels.get("ta-aaaa-1")?.size ?? 0) > 0 && ta.paths.includes("/jobs/a/targets"), "the answer is on its way");
    // the pod is replaced: deleted (its tunnels close), a new one with a new name takes its place
    const old = kube.pods.get("ta-aaaa-1")!;
    kube.pods.delete("ta-aaaa-1");
    kube.pods.set("ta-bbbb-2", { ...old, name: "ta-bbbb-2", created: "2026-01-03T00:00:00Z" });
    kube.breakTunnels("ta-aaaa-1");
    const err = await pending;
    expect(err.kind).toBe("network");
    expect(err.message).toMatch(/port-forward to pod amazon-cloudwatch\/ta-aaaa-1 closed/);
    const again = await http.get("/jobs");
    expect(again.status).toBe(200);
    expect(kube.seen.filter((l) => l.startsWith("TUNNEL")).at(-1)).toBe("TUNNEL ta-bbbb-2 8443");
  });

  it("over TLS too: a tunnel broken mid-answer fails as network, and the next request goes to the replacement pod", async () => {
    const ta = await fakeTa({ a: 1 });
    ta.jobRoute = dribble(JSON.stringify(jobAnswer("a", 50)), 20, 16);
    const front = await startMtlsFront(address(ta.url), { ca: pki.caPem, cert: pki.serverCertPem, key: pki.serverKeyPem });
    cleanups.push(() => front.close());
    const kube = await kubeWith(front.address);
    const config = mtlsConfig({ timeoutSeconds: 20 });
    const http = new TaHttp("c/ta/per-node", config, { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 }, taTransport("c/ta/per-node", config, taFileReader("c"), kube.kubeConfig()));
    cleanups.push(() => http.close());
    const pending = failure(http.get("/jobs/a/targets"));
    await waitUntil(() => ta.paths.includes("/jobs/a/targets"), "the answer is on its way");
    const old = kube.pods.get("ta-aaaa-1")!;
    kube.pods.delete("ta-aaaa-1");
    kube.pods.set("ta-bbbb-2", { ...old, name: "ta-bbbb-2", created: "2026-01-03T00:00:00Z" });
    kube.breakTunnels("ta-aaaa-1");
    expect((await pending).kind).toBe("network");
    expect((await http.get("/jobs")).status).toBe(200);
    expect(kube.seen.filter((l) => l.startsWith("TUNNEL")).at(-1)).toBe("TUNNEL ta-bbbb-2 8443");
  });

  it.each(["http", "https"])("a complete answer followed by the tunnel's end is kept (%s)", async (scheme) => {
    const ta = await fakeTa({ a: 1 });
    ta.routes.set("/jobs", (_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", Connection: "close" });
      res.end(JSON.stringify({ a: { _link: "/jobs/a/targets" } }));
    });
    let backend = address(ta.url);
    if (scheme === "https") {
      const front = await startMtlsFront(backend, { ca: pki.caPem, cert: pki.serverCertPem, key: pki.serverKeyPem });
      cleanups.push(() => front.close());
      backend = front.address;
    }
    const kube = await kubeWith(backend);
    const config = scheme === "https" ? mtlsConfig() : taConfig("http://ta.invalid", { url: undefined, reach: portForward });
    const http = new TaHttp("c/ta/per-node", config, { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 }, taTransport("c/ta/per-node", config, taFileReader("c"), kube.kubeConfig()));
    cleanups.push(() => http.close());
    for (let i = 0; i < 5; i++) expect(JSON.parse((await http.get("/jobs")).body.toString())).toEqual({ a: { _link: "/jobs/a/targets" } });
  });

  it("what the error channel says becomes the message", async () => {
    const kube = await kubeWith({ host: "127.0.0.1", port: 1 });
    kube.pods.get("ta-aaaa-1")!.channelError = "error forwarding port 8443 to pod ta-aaaa-1, uid : dial tcp4 127.0.0.1:8443: connect: connection refused";
    const err = await failure(client(taConfig("http://ta.invalid", { url: undefined, reach: portForward }), kube).read());
    expect(err).toMatchObject({ kind: "network", message: "error forwarding port 8443 to pod ta-aaaa-1, uid : dial tcp4 127.0.0.1:8443: connect: connection refused" });
  });

  it("names the missing permission on a refused upgrade (403), the pod on a 404, and the Service's and pods' permissions", async () => {
    const kube = await kubeWith({ host: "127.0.0.1", port: 1 });
    kube.denied.set("no-pf", new Set(["create pods/portforward"]));
    kube.denied.set("no-pods", new Set(["list pods"]));
    kube.denied.set("no-svc", new Set(["get services"]));
    const config = taConfig("http://ta.invalid", { url: undefined, reach: portForward });
    expect(await failure(client(config, kube, "no-pf").read())).toMatchObject({
      kind: "forbidden",
      status: 403,
      message: "forbidden: the Kubernetes user may not create pods/portforward in namespace amazon-cloudwatch (grant: create on pods/portforward)",
    });
    expect((await failure(client(config, kube, "no-pods").read())).message).toBe(
      "forbidden: the Kubernetes user may not list pods in namespace amazon-cloudwatch (grant: list on pods)",
    );
    expect((await failure(client(config, kube, "no-svc").read())).message).toBe(
      "forbidden: the Kubernetes user may not get services in namespace amazon-cloudwatch (grant: get on services)",
    );
    const gone: Reach = { kind: "port-forward", namespace: NS, service: SVC, pods: async () => ({ pod: "ta-gone-9", port: 8443 }) };
    expect(await failure(client(config, kube, "good", gone).read())).toMatchObject({ kind: "not_found", message: "the pod amazon-cloudwatch/ta-gone-9 does not exist (it was deleted or replaced)" });
    kube.pods.get("ta-aaaa-1")!.ready = false;
    expect((await failure(client(config, kube).read())).message).toBe(`no Ready pod of the Service ${NS}/${SVC} (2 match its selector)`);
  });
});

describe("service proxy", () => {
  it("reads a plain-HTTP TA through the API server with the kubeconfig's credentials, the TA seeing its own paths", async () => {
    const ta = await fakeTa({ a: 2 });
    const kube = await kubeWith({ host: "127.0.0.1", port: 1 });
    kube.proxied.set("otel-agent-targetallocator:targetallocation", ta.url);
    const config = taConfig("http://ta.invalid", { url: undefined, reach: { serviceProxy: { namespace: NS, service: "otel-agent-targetallocator", port: "targetallocation" } } });
    const r = await client(config, kube).read();
    expect(r.jobs.get("a")!.targets).toHaveLength(2);
    expect(ta.paths).toContain("/jobs/a/targets");
    expect(kube.seen).toContain(`GET /api/v1/namespaces/${NS}/services/otel-agent-targetallocator:targetallocation/proxy/jobs`);
    expect(new Set(kube.proxyAuth)).toEqual(new Set(["Bearer good"]));
  });

  it("names the missing permission when the API server refuses, and still refuses an unsafe path before anything is read", async () => {
    const ta = await fakeTa({ a: 1 });
    const kube = await kubeWith({ host: "127.0.0.1", port: 1 });
    kube.proxied.set("ta:80", ta.url);
    kube.denied.set("no-proxy", new Set(["get services/proxy"]));
    const config = taConfig("http://ta.invalid", { url: undefined, reach: { serviceProxy: { namespace: NS, service: "ta", port: 80 } } });
    expect(await failure(client(config, kube, "no-proxy").read())).toMatchObject({
      kind: "forbidden",
      message: "forbidden: the Kubernetes user may not get services/proxy in namespace amazon-cloudwatch (grant: get on services/proxy)",
    });
    const seen = kube.seen.length;
    expect(await failure(client(config, kube).http.get("/jobs/../../../secrets"))).toMatchObject({ kind: "config" });
    expect(await failure(client(config, kube).http.get("//evil/x"))).toMatchObject({ kind: "config" });
    expect(kube.seen.length).toBe(seen);
  });

  it("is refused for an https TA: the proxy would not carry the client certificate", async () => {
    const kube = await kubeWith({ host: "127.0.0.1", port: 1 });
    const config = taConfig("https://ta.invalid", { flavor: "cloudwatch" });
    let err: unknown;
    try {
      taTransport("c/ta/per-node", config, taFileReader("c"), kube.kubeConfig(), { kind: "service-proxy", namespace: NS, service: SVC });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ kind: "config", message: "the API server's service proxy would not carry the client certificate: use port-forward" });
  });
});

describe("tlsSecret", () => {
  it("names the missing permission, the Secret and the key, never a value; no PEM bytes in any error or log line", async () => {
    const ta = await fakeTa({ a: 1 });
    const front = await startMtlsFront(address(ta.url), { ca: pki.caPem, cert: pki.serverCertPem, key: pki.serverKeyPem });
    cleanups.push(() => front.close());
    const kube = await kubeWith(front.address);
    kube.denied.set("no-secrets", new Set(["get secrets"]));
    kube.secrets.set("half", { "tls.crt": b64(pki.clientCertPem) });
    const kc = kube.kubeConfig();
    const { value: errors, lines } = await logged(async () => [
      await failure(readTlsSecret(kube.kubeConfig("no-secrets"), { secret: `${NS}/${SECRET}` })),
      await failure(readTlsSecret(kc, { secret: `${NS}/missing` })),
      await failure(readTlsSecret(kc, { secret: `${NS}/half` })),
      await failure(readTlsSecret(kc, { secret: `${NS}/${SECRET}`, caKey: "root.crt" })),
      // a TLS failure with the Secret's material: the TA trusts another CA
      await failure(client(mtlsConfig({ tls: { serverName: "wrong.example" } }), kube).read()),
    ]);
    expect(errors[0]).toMatchObject({ kind: "forbidden", message: "forbidden: the Kubernetes user may not get secrets in namespace amazon-cloudwatch (grant: get on secrets)" });
    expect(errors[1]).toMatchObject({ kind: "not_found", message: "the Secret amazon-cloudwatch/missing does not exist" });
    expect(errors[2]).toMatchObject({ kind: "config", message: "the Secret amazon-cloudwatch/half has no key tls.key" });
    expect(errors[3]).toMatchObject({ kind: "config", message: "the Secret amazon-cloudwatch/agent-client-cert has no key root.crt" });
    expect(errors[4].kind).toBe("tls");
    const text = [...errors.flatMap((e) => [e.message, e.hint ?? "", e.detail ?? "", JSON.stringify(e)]), ...lines].join("\n");
    for (const pem of [pki.clientKeyPem, pki.clientCertPem, pki.caPem]) {
      expect(text).not.toContain(pemBody(pem));
      expect(text).not.toContain(b64(pem).slice(0, 40));
    }
    expect(text).not.toContain("BEGIN");
  });

  it("a failed read fails that reading and is tried again at the next one", async () => {
    const ta = await fakeTa({ a: 1 });
    const front = await startMtlsFront(address(ta.url), { ca: pki.caPem, cert: pki.serverCertPem, key: pki.serverKeyPem });
    cleanups.push(() => front.close());
    const kube = await kubeWith(front.address);
    kube.denied.set("later", new Set(["get secrets"]));
    const c = client(mtlsConfig(), kube, "later");
    expect((await failure(c.read())).kind).toBe("forbidden");
    kube.denied.delete("later"); // the grant arrives
    const r = await c.read();
    expect([...r.jobs.keys()]).toEqual(["a"]);
    expect(kube.seen.filter((l) => l.endsWith(`/secrets/${SECRET}`))).toHaveLength(2);
    await c.read();
    expect(kube.seen.filter((l) => l.endsWith(`/secrets/${SECRET}`))).toHaveLength(2); // held in memory once read
  });

  it("works for a direct reach too, and needs the cluster's Kubernetes access", async () => {
    const ta = await fakeTa({ a: 1 });
    const front = await startMtlsFront(address(ta.url), { ca: pki.caPem, cert: pki.serverCertPem, key: pki.serverKeyPem });
    cleanups.push(() => front.close());
    const kube = await kubeWith(front.address);
    const config = taConfig(`https://localhost:${front.address.port}`, { flavor: "cloudwatch", tlsSecret: { secret: `${NS}/${SECRET}` } });
    const r = await client(config, kube).read();
    expect([...r.jobs.keys()]).toEqual(["a"]);
    expect(front.peers).toContain("allocation-lens");
    let err: unknown;
    try {
      new TaClient("c", "per-node", config);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ kind: "config" });
  });
});

describe("Kubernetes access", () => {
  it("a kubeconfig that cannot be loaded, or a context it does not have, is a config error naming neither its content nor a token", async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const path = await import("node:path");
    const dir = mkdtempSync(path.join(tmpdir(), "reach-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const broken = path.join(dir, "broken.yaml");
    writeFileSync(broken, "users: [ {name: u, user: {token: sekrit-token-value}\n");
    const good = path.join(dir, "good.yaml");
    writeFileSync(good, "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: sekrit-token-value}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n");
    const config = taConfig("http://ta.invalid", { url: undefined, reach: portForward });
    const errors: unknown[] = [];
    for (const kube of [{ kubeconfig: broken }, { kubeconfig: path.join(dir, "absent.yaml") }, { kubeconfig: good, context: "nope" }]) {
      try {
        new TaClient("c", "per-node", config, 15, { kube: { inCluster: false, ...kube } });
      } catch (e) {
        errors.push(e);
      }
    }
    expect(errors).toHaveLength(3);
    for (const e of errors) expect(e).toMatchObject({ kind: "config" });
    expect((errors[2] as SourceError).message).toBe("the kubeconfig has no cluster for the context nope");
    expect(JSON.stringify(errors.map((e) => [(e as SourceError).message, (e as SourceError).detail]))).not.toContain("sekrit");
  });
});
