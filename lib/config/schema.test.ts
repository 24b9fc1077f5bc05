import { describe, expect, it } from "vitest";
import { parseConfig, pollTimeoutDefault, redactUserinfo, yamlErrorLine } from "./schema";

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
    // left out: both spellings are recognised (lib/routing's recognisedScraperKeys)
    expect(r.config.clusters[0].scraperAnnotation).toBeUndefined();
    expect(r.config.clusters[0].targetAllocators["per-node"]?.timeoutSeconds).toBe(5);
    expect(r.config.history.retentionDays).toBe(7);
  });

  it("scraperAnnotation: one key, kept as given; a bad one names the field, the value and both spellings", () => {
    const one = parseConfig({ clusters: [{ name: "prod", scraperAnnotation: "cloudwatch.aws/scraper", targetAllocators: { "per-node": ta } }] });
    expect(one.ok && one.config.clusters[0].scraperAnnotation).toBe("cloudwatch.aws/scraper");
    for (const [bad, got] of [["cloudwatch aws/scraper", '"cloudwatch aws/scraper"'], [["cloudwatch.aws/scraper", "cloudwatch.aws.amazon.com/scraper"], "a list"]] as const) {
      const r = parseConfig({ clusters: [{ name: "prod", scraperAnnotation: bad, targetAllocators: { "per-node": ta } }] });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.errors.join("\n")).toMatch(/^clusters\[0\]\.scraperAnnotation: .*cloudwatch\.aws\.amazon\.com\/scraper or cloudwatch\.aws\/scraper \(the one the TAs read\), or leave it out to recognise both/m);
      expect(r.errors.join("\n")).toContain(`(got ${got})`);
    }
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

  it("takes a TA's strategy and fallback as optional facts, and names a bad one with what is expected", () => {
    const r = parseConfig({ clusters: [{ name: "prod", targetAllocators: { "per-node": { ...ta, strategy: "per-node", fallbackStrategy: "none" }, "cluster-scraper": ta } }] });
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.config.clusters[0].targetAllocators["per-node"]).toMatchObject({ strategy: "per-node", fallbackStrategy: "none" });
    expect(r.config.clusters[0].targetAllocators["cluster-scraper"]!.strategy).toBeUndefined();
    expect(r.config.clusters[0].targetAllocators["cluster-scraper"]!.fallbackStrategy).toBeUndefined();
    const bad = parseConfig({ clusters: [{ name: "prod", targetAllocators: { "per-node": { ...ta, strategy: "per_node", fallbackStrategy: "" } } }] });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    const text = bad.errors.join("\n");
    expect(text).toContain('clusters[0].targetAllocators.per-node.strategy: expected "consistent-hashing", "least-weighted", "per-node" (got "per_node")');
    expect(text).toContain('clusters[0].targetAllocators.per-node.fallbackStrategy: expected "consistent-hashing", "least-weighted", "per-node", "none" (none: the TA has no fallback) (got "")');
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
      maxRequestsPerClient: 8,
      requestsPerSecondPerClient: 20,
      requestBurstPerClient: 40,
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

  it("sizes the poll worker's heap: 1 GiB unless set, at least 128 MiB, a whole number", () => {
    const base = { clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }] };
    const dflt = parseConfig(base);
    expect(dflt.ok && dflt.config.pollWorker).toEqual({ maxHeapMiB: 1024 });
    const set = parseConfig({ ...base, pollWorker: { maxHeapMiB: 3072 } });
    expect(set.ok && set.config.pollWorker.maxHeapMiB).toBe(3072);
    const small = parseConfig({ ...base, pollWorker: { maxHeapMiB: 64 } });
    expect(!small.ok && small.errors.join("\n")).toContain("pollWorker.maxHeapMiB: at least 128 MiB");
    const frac = parseConfig({ ...base, pollWorker: { maxHeapMiB: 512.5 } });
    expect(!frac.ok && frac.errors.join("\n")).toContain("pollWorker.maxHeapMiB: expected a whole number of MiB");
    const other = parseConfig({ ...base, pollWorker: { maxHeap: 512 } });
    expect(!other.ok && other.errors.join("\n")).toContain("pollWorker");
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
    // nothing under auth is echoed: its type only
    expect(text).toContain("auth.trustedProxies[0]: expected an IP address or a CIDR range such as 10.0.0.0/8 (got a string)");
    expect(text).not.toContain("proxy.example.com");
    expect(text).toMatch(/auth\.exemptPaths\[0\]: expected a path such as \/api\/healthz/);
    expect(text).toMatch(/auth: .*extra/);
    expect(text).toMatch(/embed\.frameAncestors\[0\]: expected a CSP source/);
    const missing = parseConfig({ ...base, auth: { mode: "token" } });
    expect(missing.ok === false && missing.errors.join("\n")).toContain("auth.tokenFile: mode token needs tokenFile");
    const noProxy = parseConfig({ ...base, auth: { mode: "proxy" } });
    expect(noProxy.ok === false && noProxy.errors.join("\n")).toContain("auth.trustedProxies: mode proxy needs the addresses");
    const headers = parseConfig({ ...base, auth: { mode: "proxy", trustedProxies: ["127.0.0.1"], userHeaders: ["X-Forwarded-User", "X-Forwarded-Email"] } });
    expect(headers.ok && headers.config.auth.userHeaders).toEqual(["X-Forwarded-User", "X-Forwarded-Email"]);
    const badHeaders = parseConfig({ ...base, auth: { mode: "proxy", trustedProxies: ["127.0.0.1"], userHeaders: ["X Forwarded User"] } });
    expect(badHeaders.ok === false && badHeaders.errors.join("\n")).toMatch(/auth\.userHeaders\[0\]: expected an HTTP header name/);
    const noHeaders = parseConfig({ ...base, auth: { mode: "proxy", trustedProxies: ["127.0.0.1"], userHeaders: [] } });
    expect(noHeaders.ok === false && noHeaders.errors.join("\n")).toContain("auth.userHeaders: expected at least one header name");
    const badMode = parseConfig({ ...base, auth: { mode: "basic" } });
    expect(badMode.ok === false && badMode.errors.join("\n")).toContain('auth.mode: expected "none", "proxy" or "token" (got a string)');
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

  describe("fleet", () => {
    const base = { clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }] };
    const withFleet = (fleet: unknown) => parseConfig({ ...base, fleet });

    it("is optional; given, takes the history.prometheus options and fills its defaults", () => {
      const none = parseConfig(base);
      expect(none.ok && none.config.fleet).toBeUndefined();
      const r = withFleet({
        prometheus: { url: "https://thanos.example.com", tls: { ca: "/ca.crt" }, bearerTokenFile: "/secrets/t", headers: { "X-Scope-OrgID": "ops" }, matchers: ['job="allocation-lens"'] },
        dashboardUrl: "https://lens.{cluster}.example.com/",
      });
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(r.config.fleet).toMatchObject({ dashboardUrl: "https://lens.{cluster}.example.com/", staleAfterSeconds: 120, refreshSeconds: 15, prometheus: { timeoutSeconds: 10, matchers: ['job="allocation-lens"'] } });
      expect(withFleet({ prometheus: { url: "http://prometheus:9090" } }).ok).toBe(true);
    });

    it("names each bad field, never echoing a header value, a token or a password", () => {
      const SECRET = "S3cretPa55";
      const r = withFleet({
        prometheus: { url: `https://u:${SECRET}@thanos:10902`, headers: { Cookie: SECRET }, bearerTokenFile: 5, matchers: ["job"] },
        dashboardUrl: `javascript:alert({cluster})`,
        staleAfterSeconds: "soon",
        refreshSeconds: 0,
        colour: SECRET,
      });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      const text = r.errors.join("\n");
      expect(text).toMatch(/fleet\.prometheus\.url: no user or password in the URL/);
      expect(text).toMatch(/fleet\.prometheus\.headers\.Cookie: credentials do not go in headers/);
      expect(text).toMatch(/fleet\.prometheus\.bearerTokenFile: .*\(got a number\)/);
      expect(text).toMatch(/fleet\.prometheus\.matchers\[0\]: expected a PromQL label matcher/);
      expect(text).toMatch(/fleet\.dashboardUrl: expected an http:\/\/ or https:\/\/ URL once \{cluster\} is replaced/);
      expect(text).toContain('fleet.staleAfterSeconds: expected a number of seconds (got "soon")');
      expect(text).toMatch(/fleet\.refreshSeconds: .*\(got 0\)/);
      expect(text).toMatch(/fleet: .*colour/);
      expect(text).not.toContain(SECRET);
    });

    it("wants {cluster} in the dashboard URL and nothing else in braces, and no user in it", () => {
      const err = (dashboardUrl: string) => {
        const r = withFleet({ prometheus: { url: "http://p:9090" }, dashboardUrl });
        return r.ok ? "" : r.errors.join("\n");
      };
      expect(err("https://lens.example.com/")).toMatch(/fleet\.dashboardUrl: expected a URL containing \{cluster\}/);
      expect(err("https://lens.{cluster}.example.com/{pod}")).toMatch(/only \{cluster\} may be written in braces/);
      expect(err("https://admin:pw@lens.{cluster}.example.com/")).toMatch(/no user or password/);
      expect(err("https://admin:pw@lens.{cluster}.example.com/")).not.toContain("pw@");
      expect(err("https://lens.example.com/?cluster={cluster}")).toBe("");
    });
  });

  describe("errors never show a credential", () => {
    const SECRET = "S3cretPa55";
    const base = { clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }] };
    const cases: [string, unknown][] = [
      ["a Prometheus URL with a user and password", { ...base, history: { prometheus: { url: `https://alice:${SECRET}@mimir.example.com/prometheus` } } }],
      ["a URL with userinfo and another fault", { ...base, history: { prometheus: { url: `ftp://alice:${SECRET}@mimir.example.com` } } }],
      ["a malformed URL with userinfo", { ...base, history: { prometheus: { url: `https//alice:${SECRET}@mimir.example.com` } } }],
      ["a password holding an @", { ...base, history: { prometheus: { url: `https://alice:${SECRET}@x@mimir.example.com` } } }],
      ["a TA URL with userinfo", { clusters: [{ name: "prod", targetAllocators: { "per-node": { ...ta, url: `https://bob:${SECRET}@ta:80` } } }] }],
      ["the demo control URL", { ...base, demo: { control: `not a url ${SECRET}` } }],
      ["an Authorization header", { ...base, history: { prometheus: { url: "http://p:9090", headers: { Authorization: `Bearer ${SECRET}` } } } }],
      ["a cookie header with an unprintable value", { ...base, history: { prometheus: { url: "http://p:9090", headers: { Cookie: `sid=${SECRET}\u0001` } } } }],
      ["a header value that is not a string", { ...base, history: { prometheus: { url: "http://p:9090", headers: { "X-Token": { value: SECRET } } } } }],
      ["headers given as a list", { ...base, history: { prometheus: { url: "http://p:9090", headers: [`Authorization: Bearer ${SECRET}`] } } }],
      ["a token inline instead of a file", { ...base, history: { prometheus: { url: "http://p:9090", bearerTokenFile: { token: SECRET } } } }],
      ["a TA token inline", { clusters: [{ name: "prod", targetAllocators: { "per-node": { ...ta, bearerTokenFile: 12345 } } }] }],
      ["a key pasted as PEM in the wrong type", { clusters: [{ name: "prod", targetAllocators: { "per-node": { ...ta, tls: { ...ta.tls, key: [SECRET] } } } }] }],
      ["an auth token file given as a map", { ...base, auth: { mode: "token", tokenFile: { secret: SECRET } } }],
      ["an auth mode that is a token", { ...base, auth: { mode: SECRET } }],
      ["a password under an unknown key", { ...base, history: { prometheus: { url: "http://p:9090", password: SECRET } } }],
      ["a secret under a section of the wrong type", { ...base, history: { prometheus: `https://alice:${SECRET}@p` } }],
      ["a secret in a list where a map goes", { clusters: [{ name: "prod", targetAllocators: [SECRET] }] }],
      ["a secret as a whole cluster", { clusters: [SECRET] }],
    ];
    it.each(cases)("%s", (_, input) => {
      const r = parseConfig(input);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      const text = r.errors.join("\n");
      expect(text.length).toBeGreaterThan(0);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain("12345");
    });

    it("a YAML problem is named by its position, not by the file's text", () => {
      expect(yamlErrorLine('Missing closing "quote at line 4, column 1:\n\n    url: "https://alice:S3cretPa55@mimir\n^')).toBe('YAML: Missing closing "quote at line 4, column 1');
      expect(yamlErrorLine(`Unresolved alias (the anchor must be set before the alias): ${SECRET}`)).not.toContain(SECRET);
      expect(yamlErrorLine(`Something else: ${SECRET}`)).toBe("YAML: Something else");
    });

    it("still shows non-secret values, and a URL without its user information", () => {
      const r = parseConfig({ ...base, history: { prometheus: { url: `ftp://alice:${SECRET}@mimir.example.com/x`, timeoutSeconds: 0 } } });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      const text = r.errors.join("\n");
      expect(text).toContain('history.prometheus.url: expected the http:// or https:// URL of the Prometheus API root, e.g. http://prometheus:9090 or https://mimir/prometheus (got "ftp://***@mimir.example.com/x")');
      expect(text).toContain("history.prometheus.timeoutSeconds");
      expect(text).toContain("(got 0)");
      expect(redactUserinfo("https://u:p@h/x")).toBe("https://***@h/x");
      expect(redactUserinfo("http://h:9090/x")).toBe("http://h:9090/x");
    });
  });

  describe("outbound deadlines and budgets", () => {
    it("fills their defaults", () => {
      const r = parseConfig({ clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }] });
      if (!r.ok) throw new Error(r.errors.join("\n"));
      expect(r.config.clusters[0].targetAllocators["per-node"]).toMatchObject({ maxResponseBytes: 64 * 1024 * 1024, maxBytesPerPoll: 1024 * 1024 * 1024, maxJobs: 10_000 });
      expect(r.config.clusters[0].targetAllocators["per-node"]!.pollTimeoutSeconds).toBeUndefined();
      expect(r.config.clusters[0].kubernetes).toMatchObject({ requestTimeoutSeconds: 30, watchTimeoutSeconds: 300 });
      const withKube = parseConfig({ clusters: [{ name: "prod", kubernetes: { inCluster: true }, targetAllocators: { "per-node": ta } }] });
      expect(withKube.ok && withKube.config.clusters[0].kubernetes).toMatchObject({ requestTimeoutSeconds: 30, watchTimeoutSeconds: 300 });
    });

    it("a poll's deadline defaults to four intervals, at least 30 s", () => {
      expect(pollTimeoutDefault(15)).toBe(60);
      expect(pollTimeoutDefault(1)).toBe(30);
      expect(pollTimeoutDefault(300)).toBe(1200);
    });

    it("names the bad field", () => {
      const r = parseConfig({
        clusters: [
          {
            name: "prod",
            kubernetes: { requestTimeoutSeconds: 0, watchTimeoutSeconds: 1.5 },
            targetAllocators: { "per-node": { ...ta, maxBytesPerPoll: "1Gi", maxJobs: 0 } },
          },
        ],
      });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      const short = parseConfig({ clusters: [{ name: "prod", targetAllocators: { "per-node": { ...ta, timeoutSeconds: 10, pollTimeoutSeconds: 5 } } }] });
      expect(short.ok).toBe(false);
      if (short.ok) return;
      const text = [...r.errors, ...short.errors].join("\n");
      expect(text).toContain('clusters[0].targetAllocators.per-node.maxBytesPerPoll: expected a number of bytes (got "1Gi")');
      expect(text).toMatch(/clusters\[0\]\.targetAllocators\.per-node\.maxJobs: .*\(got 0\)/);
      expect(text).toContain("clusters[0].targetAllocators.per-node.pollTimeoutSeconds: expected at least timeoutSeconds (10): one request may take that long (got 5)");
      expect(text).toMatch(/clusters\[0\]\.kubernetes\.requestTimeoutSeconds: .*\(got 0\)/);
      expect(text).toMatch(/clusters\[0\]\.kubernetes\.watchTimeoutSeconds: .*\(got 1\.5\)/);
    });
  });
});

describe("reach and tlsSecret", () => {
  const one = (t: Record<string, unknown>) => parseConfig({ clusters: [{ name: "prod", targetAllocators: { "per-node": t } }] });
  const noUrl = Object.fromEntries(Object.entries(ta).filter(([k]) => k !== "url" && k !== "tls"));
  const pf = { portForward: { namespace: "amazon-cloudwatch", service: "cloudwatch-agent-target-allocator-service", port: 80 } };

  it("defaults to direct, where the url is required", () => {
    const r = one(ta);
    expect(r.ok && r.config.clusters[0].targetAllocators["per-node"]!.reach).toBe("direct");
    const missing = one(noUrl);
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.errors.join("\n")).toContain("per-node.url: expected the TA's URL (or a reach through the Kubernetes API: portForward or serviceProxy)");
  });

  it("a port-forward needs no url: the Service's name stands in, https with a client certificate from a Secret", () => {
    const r = one({ ...noUrl, reach: pf, tlsSecret: { secret: "amazon-cloudwatch/agent-client-cert" } });
    if (!r.ok) throw new Error(r.errors.join("\n"));
    const t = r.config.clusters[0].targetAllocators["per-node"]!;
    expect(t.url).toBe("https://cloudwatch-agent-target-allocator-service.amazon-cloudwatch.svc:80");
    expect(t.tlsSecret).toEqual({ secret: "amazon-cloudwatch/agent-client-cert", certKey: "tls.crt", keyKey: "tls.key" });
    const plain = one({ ...noUrl, flavor: "upstream", reach: { serviceProxy: { namespace: "opentelemetry", service: "otel-agent-targetallocator", port: "targetallocation" } } });
    expect(plain.ok && plain.config.clusters[0].targetAllocators["per-node"]!.url).toBe("http://otel-agent-targetallocator.opentelemetry.svc");
  });

  it("refuses a service proxy for an https TA or with a bearer token, a Secret beside tls.cert, and a bad reach", () => {
    const proxied = { serviceProxy: { namespace: "ns", service: "ta" } };
    const errors = [
      one({ ...ta, reach: proxied }),
      one({ ...noUrl, reach: proxied, tlsSecret: { secret: "ns/cert" } }),
      one({ ...noUrl, flavor: "upstream", reach: proxied, bearerTokenFile: "/t" }),
      one({ ...ta, tlsSecret: { secret: "ns/cert" } }),
      one({ ...ta, reach: "tunnel" }),
      one({ ...noUrl, reach: { portForward: { namespace: "Bad_NS", service: "ta", port: 0 } } }),
    ].flatMap((r) => (r.ok ? ["(accepted)"] : r.errors));
    expect(errors).not.toContain("(accepted)");
    const text = errors.join("\n");
    expect(text.match(/reach\.serviceProxy: the API server's service proxy would not carry the client certificate: use portForward/g)).toHaveLength(2);
    expect(text).toContain("per-node.bearerTokenFile: the service proxy's Authorization header is the API server's");
    expect(text).toContain("per-node.tlsSecret: the client certificate comes from tlsSecret or from tls.cert and tls.key, not both: remove one (tls.ca and tls.serverName may stay)");
    expect(text).toContain('per-node.reach: expected "direct", {portForward: {namespace, service, port}} or {serviceProxy: {namespace, service, port}} (got "tunnel")');
    expect(text).toContain('reach.portForward.namespace: expected the namespace of the TA\'s Service, a DNS label such as amazon-cloudwatch (got "Bad_NS")');
    expect(text).toMatch(/reach\.portForward\.port: expected the Service's port: a number \(1-65535\) or its name \(got 0\)/);
  });

  it("tls.ca and serverName combine with tlsSecret; its errors show the Secret's namespace/name and nothing else", () => {
    expect(one({ ...ta, tls: { ca: "/ca.crt", serverName: "ta.ns.svc" }, tlsSecret: { secret: "ns/cert", caKey: "ca.crt" } }).ok).toBe(true);
    const pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----";
    const bad = [
      one({ ...ta, tls: undefined, tlsSecret: { secret: pem } }),
      one({ ...ta, tls: undefined, tlsSecret: { secret: "ns/cert", keyKey: pem, certKey: "" } }),
      one({ ...ta, tls: { cert: "/c", key: "/k" }, tlsSecret: { secret: "ns/cert", extra: pem } }),
    ].flatMap((r) => (r.ok ? ["(accepted)"] : r.errors));
    const text = bad.join("\n");
    expect(text).not.toContain("(accepted)");
    expect(text).not.toContain("MIGHAgEA");
    expect(text).not.toContain("PRIVATE");
    expect(text).toContain("per-node.tlsSecret.secret: expected the Secret as namespace/name, such as amazon-cloudwatch/agent-client-cert (got a string)");
    expect(text).toMatch(/per-node\.tlsSecret\.keyKey: expected a key of the Secret's data such as tls\.crt \(got a string\)/);
    // where the value is a Secret's place it shows
    expect(text).toContain('per-node.tlsSecret: the client certificate comes from tlsSecret');
  });
});

describe("lease", () => {
  const ta = { url: "http://ta:80", flavor: "upstream", collectors: { namespace: "otel", selector: { app: "c" } } };
  const withLease = (lease: unknown) => parseConfig({ clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }], lease });

  it("is off without the block, and takes its defaults with a namespace and a peer token file", () => {
    const off = parseConfig({ clusters: [{ name: "prod", targetAllocators: { "per-node": ta } }] });
    expect(off.ok && off.config.lease).toBeUndefined();
    const on = withLease({ namespace: "allocation-lens", peerTokenFile: "/etc/peer/token" });
    expect(on.ok && on.config.lease).toEqual({ namespace: "allocation-lens", name: "allocation-lens", durationSeconds: 15, renewSeconds: 5, peerTokenFile: "/etc/peer/token" });
  });

  it("accepts its own kubernetes settings, shaped as a cluster's", () => {
    const on = withLease({ namespace: "lens", peerTokenFile: "/t", kubernetes: { inCluster: true } });
    expect(on.ok && on.config.lease?.kubernetes).toMatchObject({ inCluster: true, requestTimeoutSeconds: 30 });
  });

  it("names each bad field", () => {
    const bad = withLease({ namespace: "Not_A_Label", durationSeconds: 10, renewSeconds: 6, kubernetes: { incluster: true } });
    expect(bad.ok).toBe(false);
    const errors = bad.ok ? [] : bad.errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^lease\.namespace: expected the namespace of the Leases.* \(got "Not_A_Label"\)$/),
        expect.stringMatching(/^lease\.peerTokenFile: expected the path of the file holding the replicas' shared peer token/),
        expect.stringMatching(/^lease\.kubernetes: .*incluster/),
      ]),
    );
    const slow = withLease({ namespace: "lens", peerTokenFile: "/t", durationSeconds: 10, renewSeconds: 6 });
    expect(slow.ok ? [] : slow.errors).toEqual(['lease.renewSeconds: expected at most half of durationSeconds (10): a holder must get two renewals in before its Lease runs out (got 6)']);
  });
});

describe("parseConfig: discovered Target Allocators", () => {
  it('takes "auto" as discovery with defaults, and no TA entry yet', () => {
    const r = parseConfig({ clusters: [{ name: "laptop", kubernetes: { kubeconfig: "/k", context: "c" }, targetAllocators: "auto" }] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.clusters[0].discover).toEqual({ namespaces: [], reach: "auto", intervalSeconds: 30, overrides: {} });
    expect(r.config.clusters[0].targetAllocators).toEqual({});
  });

  it("keeps partial entries beside discover as overrides, checked field by field", () => {
    const ok = parseConfig({ clusters: [{ name: "c", targetAllocators: { discover: { namespaces: ["obs"], reach: "port-forward" }, "per-node": { timeoutSeconds: 9 } } }] });
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    expect(ok.config.clusters[0].discover).toMatchObject({ namespaces: ["obs"], reach: "port-forward", overrides: { "per-node": { timeoutSeconds: 9 } } });
    const badReach = parseConfig({ clusters: [{ name: "c", targetAllocators: { discover: { reach: "tunnel" } } }] });
    expect(badReach.ok).toBe(false);
    if (!badReach.ok) expect(badReach.errors.join("\n")).toContain('clusters[0].targetAllocators.discover.reach: expected "auto", "direct", "port-forward", "service-proxy" (got "tunnel")');
    const bad = parseConfig({ clusters: [{ name: "c", targetAllocators: { discover: {}, "per-node": { timeoutSeconds: "slow", colour: 1 } } }] });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    const text = bad.errors.join("\n");
    expect(text).toContain('clusters[0].targetAllocators.per-node.timeoutSeconds: expected a number of seconds (got "slow")');
    expect(text).toContain("clusters[0].targetAllocators.per-node: unknown key colour");
  });

  it("without discover, an entry must be whole and one is required", () => {
    const partial = parseConfig({ clusters: [{ name: "c", targetAllocators: { "per-node": { timeoutSeconds: 9 } } }] });
    expect(partial.ok).toBe(false);
    if (!partial.ok) expect(partial.errors.join("\n")).toMatch(/targetAllocators\.per-node\.flavor/);
    const none = parseConfig({ clusters: [{ name: "c", targetAllocators: {} }] });
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.errors.join("\n")).toMatch(/expected at least one of per-node, cluster-scraper \(or "auto"/);
  });
});
