import { describe, expect, it } from "vitest";
import { parseConfig } from "./schema";

const ta = {
  url: "https://127.0.0.1:8443",
  flavor: "cloudwatch",
  tls: { ca: "/ca.crt", cert: "/c.crt", key: "/c.key" },
  collectors: { namespace: "amazon-cloudwatch", selector: { "app.kubernetes.io/component": "amazon-cloudwatch-agent" } },
};

describe("parseConfig", () => {
  it("accepts a minimal cluster and fills defaults", () => {
    const r = parseConfig({ clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.clusters[0].pollIntervalSeconds).toBe(15);
    expect(r.config.clusters[0].scraperAnnotation).toBe("cloudwatch.aws.amazon.com/scraper");
    expect(r.config.clusters[0].targetAllocators["per-node"]?.timeoutSeconds).toBe(5);
    expect(r.config.history.retentionDays).toBe(7);
  });

  it("names every bad field, the bad value and what is expected", () => {
    const r = parseConfig({
      clusters: [
        {
          name: "Prod_1",
          pollIntervalSeconds: "fast",
          targetAllocators: { "per-node": { ...ta, flavor: "cw", url: "ftp://x" }, extra: {} },
          colour: "red",
        },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = r.errors.join("\n");
    expect(text).toContain('clusters[0].name: expected a DNS label such as prod-eu-1 (got "Prod_1")');
    expect(text).toContain('clusters[0].pollIntervalSeconds: expected a number of seconds (got "fast")');
    expect(text).toContain('clusters[0].targetAllocators.per-node.flavor: expected "upstream" or "cloudwatch" (got "cw")');
    expect(text).toMatch(/clusters\[0\]\.targetAllocators\.per-node\.url: .*http/);
    expect(text).toMatch(/clusters\[0\]\.targetAllocators: .*extra/);
    expect(text).toMatch(/clusters\[0\]: .*colour/);
  });

  it("rejects a cluster without any TA, half a key pair, and duplicate names", () => {
    const r = parseConfig({
      clusters: [
        { name: "a", targetAllocators: {} },
        { name: "a", targetAllocators: { "per-node": { ...ta, tls: { cert: "/c.crt" } } } },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = r.errors.join("\n");
    expect(text).toContain("clusters[0].targetAllocators: expected at least one of per-node, cluster-scraper");
    expect(text).toContain("cert and key go together");
    expect(text).toContain('clusters[1].name: duplicate cluster name "a"');
  });

  it("defaults auth to none with the probes exempt, and embedding to 'self'", () => {
    const r = parseConfig({ clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.auth).toEqual({
      mode: "none",
      trustedProxies: [],
      exemptPaths: ["/api/healthz", "/api/readyz"],
      allowAnonymous: false,
      maxFailedAttempts: 10,
      failureWindowSeconds: 60,
    });
    expect(r.config.embed).toEqual({ frameAncestors: ["'self'"] });
    expect(r.config.server).toEqual({
      maxBodyBytes: 65536,
      headersTimeoutSeconds: 10,
      requestTimeoutSeconds: 30,
      keepAliveTimeoutSeconds: 5,
      idleTimeoutSeconds: 60,
      maxConnections: 256,
      maxHeaderBytes: 16384,
      maxHeadersCount: 100,
    });
  });

  it("validates the server limits and the new auth fields", () => {
    const base = { clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }] };
    const partial = parseConfig({ ...base, server: { maxBodyBytes: 4096 }, auth: { mode: "none", allowAnonymous: true } });
    expect(partial.ok && partial.config.server).toMatchObject({ maxBodyBytes: 4096, requestTimeoutSeconds: 30 });
    expect(partial.ok && partial.config.auth.allowAnonymous).toBe(true);
    const bad = parseConfig({
      ...base,
      server: { maxBodyBytes: 10, headersTimeoutSeconds: 60, requestTimeoutSeconds: 30, maxConnections: 0 },
      auth: { mode: "token", tokenFile: "/t", allowAnonymous: true, maxFailedAttempts: 0 },
    });
    expect(bad.ok).toBe(false);
    const errors = !bad.ok ? bad.errors.join("\n") : "";
    expect(errors).toContain("server.maxBodyBytes");
    expect(errors).toContain("server.maxConnections");
    expect(errors).toContain("auth.allowAnonymous: allowAnonymous only applies to mode none");
    expect(errors).toContain("auth.maxFailedAttempts");
    const order = parseConfig({ ...base, server: { headersTimeoutSeconds: 60, requestTimeoutSeconds: 30 } });
    expect(!order.ok && order.errors.join("\n")).toContain("server.headersTimeoutSeconds: must not exceed requestTimeoutSeconds");
    const demo = parseConfig({ ...base, demo: { control: "http://127.0.0.1:9" } });
    expect(!demo.ok && demo.errors.join("\n")).toContain("demo.controlTokenFile");
  });

  it("validates auth and embed: modes, proxy addresses, token file, exempt paths, frame-ancestors", () => {
    const base = { clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }] };
    const ok = parseConfig({
      ...base,
      auth: { mode: "proxy", trustedProxies: ["10.0.0.0/8", "fd00::/8", "192.168.1.7"], exemptPaths: ["/api/healthz", "/metrics"] },
      embed: { frameAncestors: ["'self'", "https://portal.example.com"] },
    });
    expect(ok.ok).toBe(true);
    const r = parseConfig({
      ...base,
      auth: { mode: "proxy", trustedProxies: ["proxy.example.com"], exemptPaths: ["api/healthz"], extra: 1 },
      embed: { frameAncestors: ["https://x.example; script-src *"] },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = r.errors.join("\n");
    expect(text).toContain('auth.trustedProxies[0]: expected an IP address or a CIDR range such as 10.0.0.0/8 (got "proxy.example.com")');
    expect(text).toMatch(/auth\.exemptPaths\[0\]: expected a path such as \/api\/healthz/);
    expect(text).toMatch(/auth: .*extra/);
    expect(text).toMatch(/embed\.frameAncestors\[0\]: expected a CSP source/);
    const missing = parseConfig({ ...base, auth: { mode: "token" } });
    expect(missing.ok === false && missing.errors.join("\n")).toContain("auth.tokenFile: mode token needs tokenFile");
    const noProxy = parseConfig({ ...base, auth: { mode: "proxy" } });
    expect(noProxy.ok === false && noProxy.errors.join("\n")).toContain("auth.trustedProxies: mode proxy needs the addresses");
    const badMode = parseConfig({ ...base, auth: { mode: "basic" } });
    expect(badMode.ok === false && badMode.errors.join("\n")).toContain('auth.mode: expected "none", "proxy" or "token" (got "basic")');
  });

  describe("history.prometheus", () => {
    const base = { clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }] };
    const withProm = (prometheus: unknown) => parseConfig({ ...base, history: { prometheus } });

    it("is optional; given, fills its defaults and keeps a Mimir path prefix, headers and matchers", () => {
      const none = parseConfig(base);
      expect(none.ok && none.config.history.prometheus).toBeUndefined();
      const r = withProm({
        url: "https://mimir.example.com/prometheus",
        tls: { ca: "/tls/ca.crt", cert: "/tls/c.crt", key: "/tls/c.key" },
        bearerTokenFile: "/secrets/token",
        headers: { "X-Scope-OrgID": "tenant-1" },
        matchers: ['job="allocation-lens"', 'namespace=~"lens-.*"'],
      });
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(r.config.history.prometheus).toMatchObject({ url: "https://mimir.example.com/prometheus", timeoutSeconds: 10, headers: { "X-Scope-OrgID": "tenant-1" } });
      expect(r.config.history.prometheus?.matchers).toHaveLength(2);
      const minimal = withProm({ url: "http://prometheus:9090" });
      expect(minimal.ok && minimal.config.history.prometheus).toMatchObject({ headers: {}, matchers: [], timeoutSeconds: 10 });
    });

    it("names each bad field and the fix", () => {
      const r = withProm({
        url: "ftp://prometheus:9090",
        timeoutSeconds: "slow",
        headers: { Authorization: "Bearer x", "bad header": "v" },
        matchers: ["job=lens", 'cluster="x"'],
        tls: { cert: "/c.crt" },
        extra: 1,
      });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      const text = r.errors.join("\n");
      expect(text).toMatch(/history\.prometheus\.url: expected the http:\/\/ or https:\/\/ URL of the Prometheus API root.*\(got "ftp:/);
      expect(text).toContain('history.prometheus.timeoutSeconds: expected a number of seconds (got "slow")');
      expect(text).toMatch(/history\.prometheus\.headers\.Authorization: .*bearerTokenFile/);
      expect(text).toMatch(/history\.prometheus\.headers\.bad header: expected an HTTP header name/);
      expect(text).toMatch(/history\.prometheus\.matchers\[0\]: expected a PromQL label matcher such as job="allocation-lens".*\(got "job=lens"\)/);
      expect(text).toMatch(/history\.prometheus\.matchers\[1\]: the cluster label is set by the dashboard/);
      expect(text).toContain("cert and key go together");
      expect(text).toMatch(/history\.prometheus: .*extra/);
    });

    it("refuses credentials in the URL, and a query string", () => {
      const r = withProm({ url: "https://user:secret@prometheus:9090" });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.errors.join("\n")).toMatch(/history\.prometheus\.url: no user or password in the URL: put a token in a file and name it in bearerTokenFile/);
      const q = withProm({ url: "http://prometheus:9090/?x=1" });
      expect(!q.ok && q.errors.join("\n")).toMatch(/no query or fragment/);
    });
  });
});
