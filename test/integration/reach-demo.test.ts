/**
 * The reaches against the embedded demo cluster's Kubernetes API, as a laptop user with only its kubeconfig would use
 * them: the cloudwatch TAs (HTTPS, TLS 1.3, client certificate required) through pods/portforward with the client
 * certificate of the demo's Secret, the upstream TA (plain HTTP) through the service proxy, the TA pod replaced (the
 * next reading goes to the new pod), and the user without port-forward or secrets permission.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startDemoCluster, type DemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";
import { NO_PORTFORWARD_CONTEXT } from "@allocation-lens/demo-cluster/internal/kube/kubeconfig";
import { waitFor } from "@allocation-lens/test-support/wait";
import type { Role } from "@/lib/model";
import { SourceError } from "@/lib/source-error";
import { TaClient, type TaReading } from "@/server/ta/client";
import { taConfig, failure } from "@/test/fixtures/ta";

const SECRET = "amazon-cloudwatch/amazon-cloudwatch-observability-agent-client-cert";

let cloudwatch: DemoCluster;
let upstream: DemoCluster;
const clients: TaClient[] = [];

beforeAll(async () => {
  [cloudwatch, upstream] = await Promise.all([startDemoCluster({ nodes: 4, seed: 5, flavor: "cloudwatch" }), startDemoCluster({ nodes: 4, seed: 6, flavor: "upstream" })]);
});
afterAll(async () => {
  for (const c of clients) c.close();
  await Promise.all([cloudwatch?.close(), upstream?.close()]);
});

function ta(demo: DemoCluster, role: Role) {
  const info = demo.info.targetAllocators[role];
  if (!info) throw new Error(`the demo has no ${role} TA`);
  return info;
}

function client(demo: DemoCluster, role: Role, extra: Record<string, unknown>, context?: string): TaClient {
  const config = taConfig("http://unused.invalid", { url: undefined, flavor: demo.info.flavor, timeoutSeconds: 5, ...extra });
  const c = new TaClient("demo", role, config, 5, { kube: { kubeconfig: demo.info.kubeconfig, context, inCluster: false } });
  clients.push(c);
  return c;
}

/** the same TA read directly (its URL on 127.0.0.1 and the TLS files the demo wrote) */
function direct(demo: DemoCluster, role: Role): TaClient {
  const info = ta(demo, role);
  const c = new TaClient("demo", role, taConfig(info.url, { flavor: demo.info.flavor, ...(info.ca ? { tls: { ca: info.ca, cert: info.cert, key: info.key } } : {}) }), 5);
  clients.push(c);
  return c;
}

const portForwardTo = (demo: DemoCluster, role: Role) => {
  const info = ta(demo, role);
  return { portForward: { namespace: info.namespace, service: info.service, port: info.servicePort } };
};

const shape = (r: TaReading) => ({ jobs: [...r.jobs.keys()].sort(), collectors: r.collectors, ready: r.ready });

describe("the demo cluster through its Kubernetes API", () => {
  it.each(["per-node", "cluster-scraper"] as const)("reads the cloudwatch %s TA through a port-forward with mTLS, the client certificate from the Secret", async (role) => {
    const c = client(cloudwatch, role, { reach: portForwardTo(cloudwatch, role), tlsSecret: { secret: SECRET } });
    const r = await c.read();
    expect(c.http.reach).toBe("port-forward");
    expect(r.jobs.size).toBeGreaterThan(0);
    expect(r.metrics).not.toBeNull();
    expect(shape(r)).toEqual(shape(await direct(cloudwatch, role).read()));
  });

  it("reads the upstream TA through the service proxy", async () => {
    const info = ta(upstream, "per-node");
    const c = client(upstream, "per-node", { reach: { serviceProxy: { namespace: info.namespace, service: info.service, port: info.servicePort } } });
    const r = await c.read();
    expect(c.http.reach).toBe("service-proxy");
    expect(r.jobs.size).toBeGreaterThan(0);
    expect(shape(r)).toEqual(shape(await direct(upstream, "per-node").read()));
  });

  it("reads the upstream TA through a port-forward too (plain HTTP over the tunnel)", async () => {
    const r = await client(upstream, "per-node", { reach: portForwardTo(upstream, "per-node") }).read();
    expect(r.jobs.size).toBeGreaterThan(0);
  });

  it("the TA pod replaced: its tunnels close, and a reading goes to the replacement", async () => {
    const c = client(cloudwatch, "per-node", { reach: portForwardTo(cloudwatch, "per-node"), tlsSecret: { secret: SECRET } });
    await c.read();
    const before = cloudwatch.taPods.podName("per-node");
    cloudwatch.faults.apply({ fault: "ta-pod-replaced", role: "per-node", readyAfterMs: 0 });
    const after = cloudwatch.taPods.podName("per-node");
    expect(after).not.toBe(before);
    // a reading may fail while the tunnels it kept are going (as network: the source turns stale); one goes through soon
    const failures: SourceError[] = [];
    const r = await waitFor(
      "a reading through the replacement pod",
      () =>
        c.read().catch((e: SourceError) => {
          failures.push(e);
          return undefined;
        }),
      { timeoutMs: 20_000, last: () => failures.at(-1)?.message },
    );
    expect(r.jobs.size).toBeGreaterThan(0);
    for (const f of failures) expect(f.kind).toBe("network");
  });

  it("names the missing permission for the user without port-forward or secrets", async () => {
    const info = ta(cloudwatch, "per-node");
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const files = { tls: { ca: info.ca, cert: info.cert, key: info.key } };
    const pf = await failure(client(cloudwatch, "per-node", { reach: portForwardTo(cloudwatch, "per-node"), ...files }, NO_PORTFORWARD_CONTEXT).read());
    expect(pf).toMatchObject({
      kind: "forbidden",
      message: "forbidden: the Kubernetes user may not create pods/portforward in namespace amazon-cloudwatch (grant: create on pods/portforward)",
    });
    const secret = await failure(client(cloudwatch, "per-node", { reach: portForwardTo(cloudwatch, "per-node"), tlsSecret: { secret: SECRET } }, NO_PORTFORWARD_CONTEXT).read());
    expect(secret).toMatchObject({ kind: "forbidden", message: "forbidden: the Kubernetes user may not get secrets in namespace amazon-cloudwatch (grant: get on secrets)" });
    log.mockRestore();
  });

  it("the service proxy is refused for the https TA before any request", () => {
    const info = ta(cloudwatch, "per-node");
    const config = taConfig(info.url, { flavor: "cloudwatch", tls: { ca: info.ca, cert: info.cert, key: info.key } });
    const kube = { kubeconfig: cloudwatch.info.kubeconfig, inCluster: false };
    expect(() => new TaClient("demo", "per-node", config, 5, { kube, reach: { kind: "service-proxy", namespace: info.namespace, service: info.service, port: info.servicePort } })).toThrow(
      "the API server's service proxy would not carry the client certificate: use port-forward",
    );
  });
});
