import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Flavor } from "@allocation-lens/allocation/model";
import { generateDemoPki, type DemoPki } from "../certs";
import { startTaServer, type TaFaults, type TaServer } from "./server";
import type { TaState } from "./state";
import { request, type ClientOptions } from "../../test/fixtures/ta-client";
import { COLLECTORS, EMPTY_JOB, fixtureState, KUBELET, NODE_EXPORTER, SECRET_PASSWORD, SECRET_TOKEN, WEB } from "../../test/fixtures/ta-state";
import { goQueryEscape } from "./encode";
import { SECRET_PLACEHOLDER } from "./scrape";

const esc = goQueryEscape;
let pki: DemoPki;
beforeAll(async () => {
  pki = await generateDemoPki();
});

interface Harness {
  ta: TaServer;
  faults: TaFaults;
  setState(s: TaState): void;
  get(path: string, o?: ClientOptions): ReturnType<typeof request>;
}

async function harness(flavor: Flavor, withTls: boolean, ready = true): Promise<Harness> {
  let state = fixtureState(flavor, ready);
  const faults: TaFaults = {};
  const ta = await startTaServer({
    flavor,
    getState: () => state,
    getFaults: () => faults,
    tls: withTls ? { caPem: pki.caPem, certPem: pki.serverCertPem, keyPem: pki.serverKeyPem } : undefined,
  });
  const tls = withTls ? { ca: pki.caPem, cert: pki.clientCertPem, key: pki.clientKeyPem } : undefined;
  return {
    ta,
    faults,
    setState: (s) => (state = s),
    get: (path, o = {}) => request(ta.url, path, { tls, ...o }),
  };
}

const cases: { flavor: Flavor; tls: boolean }[] = [
  { flavor: "upstream", tls: false },
  { flavor: "cloudwatch", tls: true },
];

describe.each(cases)("TA server, $flavor flavor (tls: $tls)", ({ flavor, tls }) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(flavor, tls);
  });
  afterAll(() => h?.ta.close());
  const linkPrefix = flavor === "upstream" ? "/debug/jobs/" : "/jobs/";

  it("GET /jobs lists jobs with targets, sorted, with escaped links", async () => {
    const r = await h.get("/jobs");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.body.endsWith("}\n")).toBe(true);
    const body = JSON.parse(r.body);
    expect(Object.keys(body)).toEqual([KUBELET, WEB, NODE_EXPORTER].sort());
    expect(body[NODE_EXPORTER]).toEqual({ _link: "/jobs/serviceMonitor%2Fobs%2Fnode-exporter%2F0/targets" });
    expect(body[WEB]._link).toBe(`/jobs/${esc(WEB)}/targets`);
    expect(body[EMPTY_JOB]).toBeUndefined();
  });

  it("GET /jobs/{job}/targets lists every collector, unassigned targets nowhere", async () => {
    const r = await h.get(`/jobs/${esc(NODE_EXPORTER)}/targets`);
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body);
    expect(Object.keys(body)).toEqual(COLLECTORS);
    expect(body["agent-a"]._link).toBe(`${linkPrefix}${esc(NODE_EXPORTER)}/targets?collector_id=agent-a`);
    const all = COLLECTORS.flatMap((c) => body[c].targets.map((i: { targets: string[] }) => i.targets[0]));
    expect(all.sort()).toEqual(["10.0.1.10:9100", "10.0.2.10:9100", "10.0.3.10:9100"]);
    expect(body["agent-b"].targets[0]).toEqual({
      targets: ["10.0.2.10:9100"],
      labels: { __address__: "10.0.2.10:9100", __meta_kubernetes_namespace: "obs", __meta_kubernetes_pod_node_name: "node-2" },
    });
    const kubelet = JSON.parse((await h.get(`/jobs/${KUBELET}/targets`)).body);
    expect(kubelet["agent-b"].targets).toEqual([]);
  });

  it("an unknown job lists every collector with []", async () => {
    const body = JSON.parse((await h.get(`/jobs/${esc("serviceMonitor/none/x/0")}/targets`)).body);
    expect(Object.keys(body)).toEqual(COLLECTORS);
    for (const c of COLLECTORS) expect(body[c].targets).toEqual([]);
  });

  it("?collector_id= answers the HTTP SD array; [] for unknown job or collector", async () => {
    const r = await h.get(`/jobs/${esc(NODE_EXPORTER)}/targets?collector_id=agent-c`);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.body.endsWith("]\n")).toBe(true);
    expect(JSON.parse(r.body)).toEqual([
      { targets: ["10.0.3.10:9100"], labels: { __address__: "10.0.3.10:9100", __meta_kubernetes_namespace: "obs", __meta_kubernetes_pod_node_name: "node-3" } },
    ]);
    for (const p of [`/jobs/${esc(NODE_EXPORTER)}/targets?collector_id=nobody`, `/jobs/nojob/targets?collector_id=agent-a`, `/jobs/${KUBELET}/targets?collector_id=agent-b`]) {
      const x = await h.get(p);
      expect([x.status, x.body]).toEqual([200, "[]\n"]);
    }
  });

  it("markup in label values is JSON-escaped as the flavor's encoder does", async () => {
    const r = await h.get(`/jobs/${esc(WEB)}/targets?collector_id=agent-b`);
    expect(JSON.parse(r.body)[0].labels.__meta_kubernetes_pod_label_app).toBe('<script>&"x"');
    expect(r.body.includes("<script>")).toBe(flavor === "cloudwatch");
  });

  it("an unescaped slash in the job is a plain-text 404; unknown paths too", async () => {
    for (const p of [`/jobs/${NODE_EXPORTER}/targets`, "/nope", "/jobs/x/targets/extra", "/debug/jobs"]) {
      const r = await h.get(p);
      expect(r.status).toBe(404);
      expect(r.headers["content-type"]).toMatch(/^text\/plain/);
      expect(r.body).toBe("404 page not found\n");
    }
  });

  it("only GET is served", async () => {
    for (const method of ["POST", "PUT", "DELETE"]) {
      const r = await h.get("/jobs", { method });
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe("GET");
    }
  });

  it("GET /scrape_configs lists every job sorted; secrets in clear only over TLS", async () => {
    const r = await h.get("/scrape_configs");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(r.body);
    expect(Object.keys(body)).toEqual([KUBELET, WEB, EMPTY_JOB, NODE_EXPORTER].sort());
    expect(Object.keys(body[KUBELET])).toEqual([...Object.keys(body[KUBELET])].sort());
    const expected = tls ? [SECRET_TOKEN, SECRET_PASSWORD, "oauth-sekret"] : [SECRET_PLACEHOLDER, SECRET_PLACEHOLDER, SECRET_PLACEHOLDER];
    expect([body[KUBELET].authorization.credentials, body[KUBELET].basic_auth.password, body[EMPTY_JOB].oauth2.client_secret]).toEqual(expected);
    expect(body[KUBELET].basic_auth.username).toBe("scraper");
    expect(r.body.includes(SECRET_TOKEN)).toBe(tls);
  });

  it("answers HTML for Accept: text/html on upstream only", async () => {
    const jobs = await h.get("/jobs", { headers: { Accept: "text/html,application/xhtml+xml" } });
    const sc = await h.get("/scrape_configs", { headers: { Accept: "text/html" } });
    if (flavor === "upstream") {
      expect(jobs.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(jobs.body).toContain("<table>");
      expect(jobs.body).toContain("podMonitor/apps/web &amp; &lt;api&gt;/0");
      expect(jobs.body).not.toContain("<api>");
      expect(sc.body).toContain("&lt;secret&gt;");
      expect(sc.body).not.toContain(SECRET_TOKEN);
    } else {
      expect(jobs.headers["content-type"]).toBe("application/json");
      expect(() => JSON.parse(sc.body)).not.toThrow();
    }
  });

  it("/livez 200 and /readyz 503 until ready, empty bodies", async () => {
    const live = await h.get("/livez");
    expect([live.status, live.body]).toEqual([200, ""]);
    expect((await h.get("/readyz")).status).toBe(200);
    h.setState(fixtureState(flavor, false));
    const notReady = await h.get("/readyz");
    expect([notReady.status, notReady.body]).toEqual([503, ""]);
    h.setState(fixtureState(flavor, true));
  });

  it("/metrics speaks the flavor's names, with http durations measured per route", async () => {
    await h.get("/jobs");
    const r = await h.get("/metrics", { headers: { Accept: "text/plain", "Accept-Encoding": "gzip" } });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(r.headers["content-encoding"]).toBe("gzip");
    const text = r.body;
    if (flavor === "upstream") {
      const scope = 'otel_scope_name="targetallocator",otel_scope_schema_url="",otel_scope_version=""';
      expect(text).toContain(`# TYPE opentelemetry_allocator_targets_per_collector gauge`);
      expect(text).toContain(`opentelemetry_allocator_targets_per_collector{collector_name="agent-a",${scope},strategy="per-node"} 2`);
      expect(text).toContain(`opentelemetry_allocator_targets{job_name="${NODE_EXPORTER}",${scope}} 6`);
      expect(text).toContain(`opentelemetry_allocator_targets_remaining{${scope}} 7`);
      expect(text).toContain(`opentelemetry_allocator_targets_unassigned{${scope}} 1`);
      expect(text).toContain(`opentelemetry_allocator_collectors_allocatable{${scope},strategy="per-node"} 3`);
      expect(text).toContain(`opentelemetry_allocator_collectors_discovered{${scope}} 3`);
      expect(text).toContain(`opentelemetry_allocator_events_total{${scope},source="EventSourcePrometheusCR"} 2`);
      expect(text).toContain(`opentelemetry_allocator_time_to_allocate_bucket{method="SetTargets",${scope},strategy="per-node",le="5"} 1`);
      expect(text).toMatch(new RegExp(`opentelemetry_allocator_http_duration_seconds_count\\{${scope},path="/jobs"\\} [1-9]`));
    } else {
      expect(text).toContain('cloudwatch_agent_allocator_targets_per_collector{collector_name="agent-b",strategy="per-node"} 2');
      expect(text).toContain('cloudwatch_agent_allocator_collectors_allocatable{strategy="per-node"} 3');
      expect(text).toContain("# TYPE cloudwatch_agent_allocator_targets_remaining counter");
      expect(text).toContain("cloudwatch_agent_allocator_targets_remaining 7");
      expect(text).toContain("cloudwatch_agent_allocator_targets_unassigned 1");
      expect(text).toContain('cloudwatch_agent_allocator_events{source="EventSourcePrometheusCR"} 2');
      expect(text).toContain('cloudwatch_agent_allocator_time_to_allocate_bucket{method="SetTargets",strategy="per-node",le="0.005"} 1');
      expect(text).toContain("amazon_cloudwatch_agent_allocator_collectors_discovered 3");
      expect(text).toContain(`amazon_cloudwatch_agent_allocator_targets{job_name="${NODE_EXPORTER}"} 6`);
      expect(text).toMatch(/amazon_cloudwatch_agent_allocator_http_duration_seconds_bucket\{path="\/jobs",le="\+Inf"\} [1-9]/);
      expect(text).not.toContain("otel_scope_name");
      expect(text).not.toContain("opentelemetry_allocator");
    }
    expect(h.ta.requests()).toBeGreaterThan(5);
    expect(h.ta.requestLog().some((e) => e.path === "/metrics")).toBe(true);
  });

  it("faults: slow responses, malformed payloads, outage resets connections", async () => {
    h.faults.slowMs = 300;
    expect((await h.get("/livez")).ms).toBeGreaterThanOrEqual(280);
    h.faults.slowMs = 0;

    h.faults.malformed = true;
    const jobs = await h.get("/jobs");
    expect(jobs.status).toBe(200);
    expect(() => JSON.parse(jobs.body)).toThrow();
    const items = JSON.parse((await h.get(`/jobs/${esc(NODE_EXPORTER)}/targets?collector_id=agent-a`)).body);
    expect(typeof items[0].targets).toBe("string");
    const byJob = JSON.parse((await h.get(`/jobs/${esc(NODE_EXPORTER)}/targets`)).body);
    expect(Array.isArray(byJob["agent-a"].targets)).toBe(false);
    h.faults.malformed = false;

    const before = h.ta.requests();
    h.faults.outageUntil = Date.now() + 60_000;
    await expect(h.get("/livez", { timeoutMs: 3000 })).rejects.toThrow(/ECONNRESET|socket hang up|disconnected|EPIPE/);
    expect(h.ta.requests()).toBe(before);
    h.faults.outageUntil = Date.now() - 1;
    expect((await h.get("/livez")).status).toBe(200);
  });
});

describe("TA transport", () => {
  it("cloudwatch negotiates TLS 1.3 and refuses clients without a certificate or with TLS 1.2", async () => {
    const h = await harness("cloudwatch", true);
    try {
      expect(h.ta.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const ok = await h.get("/livez");
      expect(ok.status).toBe(200);
      expect(ok.protocol).toBe("TLSv1.3");
      // TLS 1.3: the server checks the client certificate after the client's Finished and answers with alert 116
      await expect(request(h.ta.url, "/livez", { tls: { ca: pki.caPem } })).rejects.toThrow(/certificate required|ECONNRESET/);
      await expect(
        request(h.ta.url, "/livez", { tls: { ca: pki.caPem, cert: pki.clientCertPem, key: pki.clientKeyPem, maxVersion: "TLSv1.2" } }),
      ).rejects.toThrow(/protocol version/);
      await expect(request(h.ta.url.replace("https:", "http:"), "/livez", { timeoutMs: 3000 })).rejects.toThrow();
    } finally {
      await h.ta.close();
    }
  });

  it("cloudwatch refuses to start without TLS", async () => {
    await expect(startTaServer({ flavor: "cloudwatch", getState: () => fixtureState("cloudwatch"), getFaults: () => ({}) })).rejects.toThrow(/HTTPS/);
  });

  it("upstream over HTTPS: TLS 1.2+ with required client certificates, secrets in clear", async () => {
    const h = await harness("upstream", true);
    try {
      const r = await h.get("/scrape_configs", { tls: { ca: pki.caPem, cert: pki.clientCertPem, key: pki.clientKeyPem, maxVersion: "TLSv1.2" } });
      expect(r.protocol).toBe("TLSv1.2");
      expect(r.body).toContain(SECRET_TOKEN);
      await expect(request(h.ta.url, "/livez", { tls: { ca: pki.caPem } })).rejects.toThrow(/certificate|ECONNRESET/);
    } finally {
      await h.ta.close();
    }
  });
});

describe("TA server connections", () => {
  it("an idle keep-alive connection stays open past Node's 5 s default, as the real allocators' servers keep theirs", async () => {
    const { default: http } = await import("node:http");
    const h = await harness("upstream", false);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let closedAfterMs: number | null = null;
    const t0 = Date.now();
    try {
      const get = () =>
        new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
          const req = http.get(`${h.ta.url}/readyz`, { agent }, (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
          });
          req.once("socket", (socket) => socket.once("close", () => (closedAfterMs ??= Date.now() - t0)));
          req.on("error", reject);
        });
      const first = await get();
      // idle for longer than Node's default keepAliveTimeout (5 s; Node closes such a socket at about 6 s): the property
      // is the time itself
      await new Promise((r) => setTimeout(r, 7_000));
      expect(closedAfterMs).toBeNull();
      const second = await get();
      expect([first.status, second.status, second.reused]).toEqual([200, 200, true]);
    } finally {
      agent.destroy();
      await h.ta.close();
    }
  }, 20_000);
});
