/**
 * The dashboard's configuration file (YAML), validated with zod. Secrets are never inline: TLS material and bearer tokens
 * are file paths read by the server, or a Kubernetes Secret it reads (`tlsSecret`: only its namespace/name is here).
 */
import { z } from "zod";
import { DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION } from "@/lib/routing";
import { FLAVORS, type Role } from "@/lib/model";
import { parseCidr } from "@/lib/auth/cidr";
import { DEFAULT_EXEMPT_PATHS } from "@/lib/auth/paths";
import { DEFAULT_FRAME_ANCESTORS, FRAME_ANCESTOR_PATTERN } from "@/lib/security/headers";
import { parseMatcher } from "@/lib/prometheus/promql";
import { DEFAULT_INBOUND_LIMITS } from "@/lib/inbound/limits";
import { templateProblem } from "@/lib/fleet/link";
import { alertParamsSchema } from "@/lib/alerts/rules";
import { parseSecretRef, serviceUrl } from "@/lib/ta/reach";
import { FALLBACK_NAMES, STRATEGY_NAMES } from "@/lib/analysis/ring";

/** A Kubernetes label or annotation key: an optional DNS-subdomain prefix and "/", then a name. */
const KEY_PATTERN = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const labelName = z.string().regex(KEY_PATTERN, { message: "expected a Kubernetes label key such as app.kubernetes.io/component" });
const SCRAPER_KEY_HINT = `expected one annotation key such as ${DEFAULT_SCRAPER_ANNOTATION} or ${EARLIER_SCRAPER_ANNOTATION} (the one the TAs read), or leave it out to recognise both`;

export const tlsSchema = z
  .object({
    ca: z.string().min(1, "expected the path of the CA certificate (PEM) that signed the TA's server certificate").optional(),
    cert: z.string().min(1, "expected the path of the client certificate (PEM)").optional(),
    key: z.string().min(1, "expected the path of the client key (PEM)").optional(),
    serverName: z.string().optional(),
    insecureSkipVerify: z.boolean().default(false),
  })
  .strict()
  .refine((t) => Boolean(t.cert) === Boolean(t.key), { message: "cert and key go together: give both or neither" });

/** Defaults of the outbound budgets (README, Configuration; docs/security.md, Outbound deadlines and budgets). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** the 5,000-node bench reads about 470 MB per poll from its two TAs */
export const DEFAULT_MAX_BYTES_PER_POLL = 1024 * 1024 * 1024;
export const DEFAULT_MAX_JOBS = 10_000;
export const DEFAULT_KUBE_REQUEST_TIMEOUT_SECONDS = 30;
export const DEFAULT_KUBE_WATCH_TIMEOUT_SECONDS = 300;

/**
 * The deadline of one reading of a TA when `pollTimeoutSeconds` is not set: four poll intervals, at least 30 s. A TA that
 * is slow but sound (the bench's 5,000 nodes take about 3 s) stays far below it; one that dribbles its answers is cut off
 * and marked stale within it, and the next poll starts as usual.
 */
export function pollTimeoutDefault(pollIntervalSeconds: number): number {
  return Math.max(30, 4 * pollIntervalSeconds);
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const PORT_MESSAGE = "expected the Service's port: a number (1-65535) or its name";

/** Where a TA's Service is, for a reach through the Kubernetes API server (a laptop with only a kubeconfig). */
const reachServiceSchema = z
  .object({
    namespace: z.string().regex(DNS_LABEL, { message: "expected the namespace of the TA's Service, a DNS label such as amazon-cloudwatch" }).max(63),
    service: z.string().regex(DNS_LABEL, { message: "expected the name of the TA's Service, a DNS label such as otel-agent-targetallocator" }).max(63),
    /** the Service's port, its number or its name; default: the Service's only port */
    port: z
      .union(
        [
          z.number().int().min(1, PORT_MESSAGE).max(65535, PORT_MESSAGE),
          z.string().regex(DNS_LABEL, PORT_MESSAGE).max(63, PORT_MESSAGE),
        ],
        { message: PORT_MESSAGE },
      )
      .optional(),
  })
  .strict();

/**
 * How the TA is reached: `direct` (its `url`, from inside the cluster or a routable network), or through the Kubernetes
 * API server with the kubeconfig's credentials: `portForward` (a tunnel to a Ready pod of the Service: TLS and the client
 * certificate go end to end) or `serviceProxy` (the API server's service proxy: plain-HTTP TAs only).
 */
export const reachSchema = z.union(
  [
    z.literal("direct"),
    z.object({ portForward: reachServiceSchema }).strict(),
    z.object({ serviceProxy: reachServiceSchema }).strict(),
  ],
  { message: 'expected "direct", {portForward: {namespace, service, port}} or {serviceProxy: {namespace, service, port}}' },
);

/** The TA's client certificate and key (and possibly its CA) from a Kubernetes Secret, read with the user's credentials. */
const secretDataKey = z.string().regex(/^[-._a-zA-Z0-9]+$/, { message: "expected a key of the Secret's data such as tls.crt" }).max(253);
export const tlsSecretSchema = z
  .object({
    secret: z.string().refine((s) => parseSecretRef(s) !== null, { message: "expected the Secret as namespace/name, such as amazon-cloudwatch/agent-client-cert" }),
    certKey: secretDataKey.default("tls.crt"),
    keyKey: secretDataKey.default("tls.key"),
    /** default: ca.crt when the Secret has it (tls.ca, a file, wins over both) */
    caKey: secretDataKey.optional(),
  })
  .strict();

const taObject = z
  .object({
    /** required for reach direct; with a reach through the API server, only its scheme counts (default: https with tls or tlsSecret) */
    url: z
      .url({ protocol: /^https?$/, message: "expected an http:// or https:// URL of the Target Allocator's service" })
      .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), { message: "no user or password in the URL: the TA is reached with tls and bearerTokenFile" })
      .optional(),
    flavor: z.enum(FLAVORS, { message: `expected ${FLAVORS.map((f) => JSON.stringify(f)).join(" or ")}` }),
    reach: reachSchema.default("direct"),
    tls: tlsSchema.optional(),
    tlsSecret: tlsSecretSchema.optional(),
    bearerTokenFile: z.string().min(1).optional(),
    /** a deadline per request: from sending it to the last byte of the answer */
    timeoutSeconds: z.number({ message: "expected a number of seconds" }).positive().max(120).default(5),
    maxResponseBytes: z.number({ message: "expected a number of bytes" }).int().positive().default(DEFAULT_MAX_RESPONSE_BYTES),
    /** what one poll may read from this TA, all answers together */
    maxBytesPerPoll: z.number({ message: "expected a number of bytes" }).int().positive().default(DEFAULT_MAX_BYTES_PER_POLL),
    /** jobs a TA's /jobs may list */
    maxJobs: z.number({ message: "expected a number of jobs" }).int().positive().max(1_000_000).default(DEFAULT_MAX_JOBS),
    /** a deadline for reading the whole TA once; default pollTimeoutDefault(pollIntervalSeconds) */
    pollTimeoutSeconds: z.number({ message: "expected a number of seconds" }).positive().max(3600).optional(),
    concurrency: z.number().int().min(1).max(64).default(4),
    /**
     * What the TA runs, for the ring-limit check (lib/analysis/ring.ts) when its own metrics (strategy) or discovery do not
     * say: a TA that cannot start exports no metrics, and no metric carries a per-node TA's fallback.
     */
    strategy: z.enum(STRATEGY_NAMES, { message: `expected ${STRATEGY_NAMES.map((s) => JSON.stringify(s)).join(", ")}` }).optional(),
    fallbackStrategy: z.enum(FALLBACK_NAMES, { message: `expected ${FALLBACK_NAMES.map((s) => JSON.stringify(s)).join(", ")} (none: the TA has no fallback)` }).optional(),
    collectors: z
      .object({
        namespace: z.string().min(1, "expected the namespace of the collector pods"),
        selector: z.record(labelName, z.string(), { message: "expected a map of label key to value" }),
      })
      .strict(),
  })
  .strict();
export const taSchema = taObject.superRefine((t, ctx) => {
    if (t.pollTimeoutSeconds !== undefined && t.pollTimeoutSeconds < t.timeoutSeconds) {
      ctx.addIssue({ code: "custom", path: ["pollTimeoutSeconds"], message: `expected at least timeoutSeconds (${t.timeoutSeconds}): one request may take that long` });
    }
    if (t.reach === "direct" && !t.url) {
      ctx.addIssue({ code: "custom", path: ["url"], message: "expected the TA's URL (or a reach through the Kubernetes API: portForward or serviceProxy)" });
    }
    if (t.tlsSecret && (t.tls?.cert || t.tls?.key)) {
      ctx.addIssue({ code: "custom", path: ["tlsSecret"], message: "the client certificate comes from tlsSecret or from tls.cert and tls.key, not both: remove one (tls.ca and tls.serverName may stay)" });
    }
    if (typeof t.reach === "object" && "serviceProxy" in t.reach) {
      if (taScheme(t) === "https") {
        ctx.addIssue({ code: "custom", path: ["reach", "serviceProxy"], message: "the API server's service proxy would not carry the client certificate: use portForward" });
      }
      if (t.bearerTokenFile) {
        ctx.addIssue({ code: "custom", path: ["bearerTokenFile"], message: "the service proxy's Authorization header is the API server's, the TA's token cannot go through it: use portForward" });
      }
    }
  })
  .transform((t) => ({ ...t, url: t.url ?? taReachUrl(t) }));

/** http or https: the URL's scheme, or, without a URL, https when a client certificate or a CA is configured. */
export function taScheme(t: { url?: string; tls?: { ca?: string; cert?: string }; tlsSecret?: unknown }): "http" | "https" {
  if (t.url) return t.url.startsWith("https:") ? "https" : "http";
  return t.tls || t.tlsSecret ? "https" : "http";
}

/** The URL of a TA reached through the API server (its Host header): the Service's cluster DNS name. */
function taReachUrl(t: { url?: string; reach: z.infer<typeof reachSchema>; tls?: { ca?: string; cert?: string }; tlsSecret?: unknown }): string {
  if (t.reach === "direct") return t.url ?? "";
  const r = "portForward" in t.reach ? t.reach.portForward : t.reach.serviceProxy;
  return serviceUrl(taScheme(t), r.namespace, r.service, r.port);
}

/** Where a Kubernetes API is reached and with which deadlines: a cluster's informers, and the Lease API (`lease.kubernetes`). */
const kubernetesObject = z
  .object({
    kubeconfig: z.string().min(1).optional(),
    context: z.string().min(1).optional(),
    inCluster: z.boolean().default(false),
    /** a deadline for each list (the informers' first read and every re-list) */
    requestTimeoutSeconds: z.number({ message: "expected a number of seconds" }).positive().max(600).default(DEFAULT_KUBE_REQUEST_TIMEOUT_SECONDS),
    /** asked of the API server for each watch (it ends the watch then, the informer re-watches); a watch not ended 15 s after it is cut */
    watchTimeoutSeconds: z.number({ message: "expected a whole number of seconds" }).int().min(1).max(3600).default(DEFAULT_KUBE_WATCH_TIMEOUT_SECONDS),
  })
  .strict();
export const kubernetesSchema = kubernetesObject.default({ inCluster: false, requestTimeoutSeconds: DEFAULT_KUBE_REQUEST_TIMEOUT_SECONDS, watchTimeoutSeconds: DEFAULT_KUBE_WATCH_TIMEOUT_SECONDS });

/** How discovered TAs are reached: `auto` is direct inside the cluster, else port-forward (HTTPS) or the service proxy (HTTP). */
export const DISCOVER_REACH = ["auto", "direct", "port-forward", "service-proxy"] as const;
export const DEFAULT_DISCOVER = { namespaces: [] as string[], reach: "auto" as const, intervalSeconds: 30 };

/**
 * `targetAllocators: auto` or `targetAllocators: {discover: {...}}`: the TAs are found from the operators' ConfigMaps,
 * Services and Deployments (lib/discovery/operators.ts), rediscovered every `intervalSeconds`.
 */
export const discoverSchema = z
  .object({
    /** where to look; empty: every namespace (needs list on configmaps, services and deployments cluster-wide) */
    namespaces: z
      .array(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: "expected a namespace name (a DNS label)" }).max(63))
      .default([]),
    reach: z.enum(DISCOVER_REACH, { message: `expected ${DISCOVER_REACH.map((r) => JSON.stringify(r)).join(", ")}` }).default("auto"),
    intervalSeconds: z.number({ message: "expected a number of seconds" }).min(5).max(3600).default(DEFAULT_DISCOVER.intervalSeconds),
  })
  .strict();

type TaEntries = Partial<Record<Role, TaConfig>>;

/** A ZodError's issues under `prefix`, re-added to `ctx` (the role entries are checked one by one, by the mode they are in). */
function addIssues(ctx: z.RefinementCtx, prefix: PropertyKey[], error: z.ZodError): void {
  for (const issue of error.issues) {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
    ctx.addIssue({ code: "custom", path: [...prefix, ...issue.path], message: keys.length ? `unknown key ${keys.join(", ")}` : issue.message });
  }
}

const ENTRY_ROLES = ["per-node", "cluster-scraper"] as const satisfies readonly Role[];

/**
 * The cluster's TAs: each role's full entry, or, with `discover` (or the string `auto`), entries that override the
 * discovered TA field by field (any field of an entry, all optional; an entry with url, flavor and collectors stands alone).
 */
const targetAllocatorsSchema = z
  .preprocess(
    (v) => (v === "auto" ? { discover: {} } : v),
    z
      .object(
        { discover: discoverSchema.optional(), "per-node": z.unknown().optional(), "cluster-scraper": z.unknown().optional() },
        { message: 'expected a map with per-node and/or cluster-scraper entries, or "auto"' },
      )
      .strict(),
  )
  .superRefine((t, ctx) => {
    for (const role of ENTRY_ROLES) {
      const entry = t[role];
      if (entry === undefined) continue;
      const r = (t.discover ? taObject.partial() : taSchema).safeParse(entry);
      if (!r.success) addIssues(ctx, [role], r.error);
    }
    if (!t.discover && t["per-node"] === undefined && t["cluster-scraper"] === undefined) {
      ctx.addIssue({ code: "custom", path: [], message: 'expected at least one of per-node, cluster-scraper (or "auto" to discover them)' });
    }
  })
  .transform((t) => {
    if (!t.discover) {
      const entries: TaEntries = {};
      for (const role of ENTRY_ROLES) if (t[role] !== undefined) entries[role] = taSchema.parse(t[role]);
      return { entries, discover: undefined };
    }
    const overrides: Partial<Record<Role, Record<string, unknown>>> = {};
    for (const role of ENTRY_ROLES) if (t[role] !== undefined) overrides[role] = t[role] as Record<string, unknown>;
    return { entries: {} as TaEntries, discover: { ...t.discover, overrides } };
  });

export const clusterSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: "expected a DNS label such as prod-eu-1" }),
    kubernetes: kubernetesSchema,
    // One key: a TA reads exactly one. Left out, the dashboard recognises both spellings (SCRAPER_ANNOTATIONS).
    scraperAnnotation: z.string({ message: SCRAPER_KEY_HINT }).regex(KEY_PATTERN, { message: SCRAPER_KEY_HINT }).optional(),
    pollIntervalSeconds: z.number({ message: "expected a number of seconds" }).min(1).max(3600).default(15),
    targetAllocators: targetAllocatorsSchema,
  })
  .strict()
  // `targetAllocators` holds the TAs read now (with discovery: filled by it at run time); `discover` how to find them
  .transform(({ targetAllocators, ...c }) => ({ ...c, targetAllocators: targetAllocators.entries, discover: targetAllocators.discover }));

const DEFAULT_AUTH = {
  mode: "none" as const,
  trustedProxies: [] as string[],
  exemptPaths: [...DEFAULT_EXEMPT_PATHS] as string[],
  allowAnonymous: false,
  maxFailedAttempts: 10,
  failureWindowSeconds: 60,
};

/** Who may read the dashboard (see lib/auth/decide.ts). Default: everyone (`none`), for local use on loopback. */
export const authSchema = z
  .object({
    mode: z.enum(["none", "proxy", "token"], { message: 'expected "none", "proxy" or "token"' }).default("none"),
    trustedProxies: z
      .array(z.string().refine((s) => parseCidr(s) !== null, { message: "expected an IP address or a CIDR range such as 10.0.0.0/8" }))
      .default([]),
    tokenFile: z.string().min(1, "expected the path of a file with one bearer token per line").optional(),
    /** proxy mode: the request headers naming the user (default X-Auth-Request-User, X-Auth-Request-Email) */
    userHeaders: z
      .array(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: "expected an HTTP header name such as X-Forwarded-User" }))
      .min(1, "expected at least one header name")
      .optional(),
    exemptPaths: z
      .array(z.string().regex(/^\/[A-Za-z0-9._~\/-]*(\/\*)?$/, { message: "expected a path such as /api/healthz (or a prefix ending in /*)" }))
      .default([...DEFAULT_EXEMPT_PATHS]),
    /** mode none on a non-loopback address: the server refuses to start unless this says it is meant (lib/auth/exposure.ts) */
    allowAnonymous: z.boolean({ message: "expected true or false" }).default(false),
    /** token mode: failed attempts per client address (IPv6: per /64) within failureWindowSeconds before it gets 429 */
    maxFailedAttempts: z.number({ message: "expected a number of attempts" }).int().min(1).max(10_000).default(DEFAULT_AUTH.maxFailedAttempts),
    failureWindowSeconds: z.number({ message: "expected a number of seconds" }).positive().max(86_400).default(DEFAULT_AUTH.failureWindowSeconds),
  })
  .strict()
  .superRefine((a, ctx) => {
    if (a.allowAnonymous && a.mode !== "none") {
      ctx.addIssue({ code: "custom", path: ["allowAnonymous"], message: "allowAnonymous only applies to mode none: remove it" });
    }
    if (a.mode === "proxy" && a.trustedProxies.length === 0) {
      ctx.addIssue({ code: "custom", path: ["trustedProxies"], message: "mode proxy needs the addresses of the authenticating proxy (IPs or CIDR ranges)" });
    }
    if (a.mode === "token" && !a.tokenFile) {
      ctx.addIssue({ code: "custom", path: ["tokenFile"], message: "mode token needs tokenFile: a file with one bearer token per line" });
    }
  });

/** The limits of the dashboard's own HTTP server (lib/inbound/limits.ts): body size, timeouts, connections, headers. */
export const serverSchema = z
  .object({
    maxBodyBytes: z.number({ message: "expected a number of bytes" }).int().min(1024).max(16 * 1024 * 1024).default(DEFAULT_INBOUND_LIMITS.maxBodyBytes),
    headersTimeoutSeconds: z.number({ message: "expected a number of seconds" }).positive().max(300).default(DEFAULT_INBOUND_LIMITS.headersTimeoutSeconds),
    requestTimeoutSeconds: z.number({ message: "expected a number of seconds" }).positive().max(600).default(DEFAULT_INBOUND_LIMITS.requestTimeoutSeconds),
    keepAliveTimeoutSeconds: z.number({ message: "expected a number of seconds" }).positive().max(600).default(DEFAULT_INBOUND_LIMITS.keepAliveTimeoutSeconds),
    idleTimeoutSeconds: z.number({ message: "expected a number of seconds" }).positive().max(3600).default(DEFAULT_INBOUND_LIMITS.idleTimeoutSeconds),
    maxConnections: z.number({ message: "expected a number of connections" }).int().min(1).max(100_000).default(DEFAULT_INBOUND_LIMITS.maxConnections),
    maxHeaderBytes: z.number({ message: "expected a number of bytes" }).int().min(1024).max(1024 * 1024).default(DEFAULT_INBOUND_LIMITS.maxHeaderBytes),
    maxHeadersCount: z.number({ message: "expected a number of headers" }).int().min(10).max(2000).default(DEFAULT_INBOUND_LIMITS.maxHeadersCount),
    maxRequestsPerClient: z.number({ message: "expected a number of requests" }).int().min(8).max(100_000).default(DEFAULT_INBOUND_LIMITS.maxRequestsPerClient),
    requestsPerSecondPerClient: z.number({ message: "expected a number of requests a second" }).positive().max(100_000).default(DEFAULT_INBOUND_LIMITS.requestsPerSecondPerClient),
    requestBurstPerClient: z.number({ message: "expected a number of requests" }).int().min(10).max(1_000_000).default(DEFAULT_INBOUND_LIMITS.requestBurstPerClient),
  })
  .strict()
  .refine((s) => s.headersTimeoutSeconds <= s.requestTimeoutSeconds, { path: ["headersTimeoutSeconds"], message: "must not exceed requestTimeoutSeconds" });

/**
 * The poll worker thread (server/poll): the V8 heap it may use. V8 sizes its garbage collections by this limit: with the
 * default of a 64-bit Node (4 GiB) it lets the heap grow to several times what is live before it collects: a worker
 * holding about 100 MB (5,000 nodes, 145,000 targets) kept 300 to 480 MB, and 160 to 210 MB under this default.
 * A worker that runs out is started again and says so in the log, with this setting named.
 */
export const DEFAULT_POLL_WORKER = { maxHeapMiB: 1024 };
export const pollWorkerSchema = z
  .object({
    maxHeapMiB: z
      .number({ message: "expected a number of MiB" })
      .int("expected a whole number of MiB")
      .min(128, "at least 128 MiB")
      .max(65536)
      .default(DEFAULT_POLL_WORKER.maxHeapMiB),
  })
  .strict();

/** How portals may embed the views: the CSP frame-ancestors sources. */
export const embedSchema = z
  .object({
    frameAncestors: z
      .array(z.string().regex(FRAME_ANCESTOR_PATTERN, { message: "expected a CSP source such as 'self', https://portal.example.com or *.example.com" }))
      .min(1, "expected at least one source ('none' forbids embedding)")
      .refine((a) => !a.includes("'none'") || a.length === 1, { message: "'none' cannot be combined with other sources" })
      .default([...DEFAULT_FRAME_ANCESTORS]),
  })
  .strict();

/** An HTTP header name (RFC 9110 token), and names that carry credentials: those come from files (bearerTokenFile, tls). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);

/**
 * A Prometheus-compatible query endpoint (Prometheus, Thanos Query, Mimir) holding the `allocation_lens_` series that it
 * scraped from dashboards: the churn view reads this dashboard's long ranges from it (history.prometheus), the fleet view
 * every dashboard's latest figures (fleet.prometheus). `url` is the API root (the part before `/api/v1/query`), possibly
 * with a path prefix such as `/prometheus` for Mimir.
 */
export const historyPrometheusSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/, message: "expected the http:// or https:// URL of the Prometheus API root, e.g. http://prometheus:9090 or https://mimir/prometheus" })
      .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), { message: "no user or password in the URL: put a token in a file and name it in bearerTokenFile" })
      .refine((u) => !/[?#]/.test(u), { message: "no query or fragment: give the API root only (the dashboard appends /api/v1/query_range)" }),
    tls: tlsSchema.optional(),
    bearerTokenFile: z.string().min(1, "expected the path of a file holding the bearer token").optional(),
    headers: z
      .record(z.string(), z.string({ message: "expected a header value (a string)" }), { message: "expected a map of header name to value, e.g. {X-Scope-OrgID: tenant-1}" })
      .superRefine((h, ctx) => {
        for (const [name, value] of Object.entries(h)) {
          if (!HEADER_NAME.test(name)) ctx.addIssue({ code: "custom", path: [name], message: "expected an HTTP header name such as X-Scope-OrgID" });
          else if (SECRET_HEADERS.has(name.toLowerCase())) ctx.addIssue({ code: "custom", path: [name], message: "credentials do not go in headers: use bearerTokenFile or tls" });
          if (!/^[\t\x20-\x7e]*$/.test(value)) ctx.addIssue({ code: "custom", path: [name], message: "expected a printable ASCII header value" });
        }
      })
      .default({}),
    timeoutSeconds: z.number({ message: "expected a number of seconds" }).positive().max(300).default(10),
    maxResponseBytes: z.number().int().positive().default(64 * 1024 * 1024),
    matchers: z
      .array(
        z.string().superRefine((m, ctx) => {
          const r = parseMatcher(m);
          if (!r.ok) ctx.addIssue({ code: "custom", message: r.message });
        }),
        { message: 'expected a list of label matchers such as ["job=\\"allocation-lens\\""]' },
      )
      .default([]),
  })
  .strict();

/**
 * The fleet view (GET /api/v1/fleet): one row per cluster whose dashboard the backend scrapes. `dashboardUrl` is a template
 * of each cluster's own dashboard: `{cluster}` is replaced by the cluster's name (a DNS label; other names get no link).
 */
export const fleetSchema = z
  .object({
    prometheus: historyPrometheusSchema,
    dashboardUrl: z
      .string({ message: "expected a URL template such as https://lens.{cluster}.example.com/" })
      .superRefine((t, ctx) => {
        const problem = templateProblem(t);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional(),
    /** a cluster whose last sample is older than this is shown as stopped (a few scrape intervals) */
    staleAfterSeconds: z.number({ message: "expected a number of seconds" }).min(1).max(86_400).default(120),
    /** the backend is asked at most once per this many seconds, whatever the number of browsers */
    refreshSeconds: z.number({ message: "expected a number of seconds" }).min(1).max(3600).default(15),
  })
  .strict();

/** Defaults of `lease` (README, Configuration: Replicas). */
export const DEFAULT_LEASE = { name: "allocation-lens", durationSeconds: 15, renewSeconds: 5 } as const;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * Replicas: with `lease`, each cluster is polled by the one replica holding its coordination.k8s.io/v1 Lease
 * `<name>-<cluster>` in `namespace`; the others ask it for the answers (server/lease). Without it every replica polls.
 */
export const leaseSchema = z
  .object({
    namespace: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: "expected the namespace of the Leases, a DNS label such as allocation-lens" }).max(63),
    /** the prefix of the Lease names: `<name>-<cluster>` */
    name: z.string().regex(DNS_SUBDOMAIN, { message: "expected a DNS name prefix such as allocation-lens" }).max(190).default(DEFAULT_LEASE.name),
    durationSeconds: z.number({ message: "expected a whole number of seconds" }).int().min(2).max(3600).default(DEFAULT_LEASE.durationSeconds),
    renewSeconds: z.number({ message: "expected a number of seconds" }).positive().max(1800).default(DEFAULT_LEASE.renewSeconds),
    /** where the Lease API is reached; default: the first cluster's `kubernetes` */
    kubernetes: kubernetesObject.optional(),
    /** the token the replicas authenticate each other with (the same file, from one Secret, in every replica) */
    peerTokenFile: z.string({ message: "expected the path of the file holding the replicas' shared peer token" }).min(1, "expected the path of the file holding the replicas' shared peer token"),
  })
  .strict()
  .superRefine((l, ctx) => {
    if (l.renewSeconds * 2 > l.durationSeconds) {
      ctx.addIssue({ code: "custom", path: ["renewSeconds"], message: `expected at most half of durationSeconds (${l.durationSeconds}): a holder must get two renewals in before its Lease runs out` });
    }
  });

export const alertsConfigSchema = alertParamsSchema
  .partial()
  .extend({ runbookBaseUrl: z.url({ protocol: /^https?$/, message: "expected an http(s) URL" }).optional() })
  .strict();

export const configSchema = z
  .object({
    clusters: z.array(clusterSchema).min(1, "expected at least one cluster"),
    history: z
      .object({
        path: z.string().min(1).optional(),
        retentionDays: z.number().positive().max(365).default(7),
        maxBytes: z.number().int().positive().default(256 * 1024 * 1024),
        prometheus: historyPrometheusSchema.optional(),
      })
      .strict()
      .default({ retentionDays: 7, maxBytes: 256 * 1024 * 1024 }),
    auth: authSchema.default({ ...DEFAULT_AUTH, trustedProxies: [], exemptPaths: [...DEFAULT_EXEMPT_PATHS] }),
    embed: embedSchema.default({ frameAncestors: [...DEFAULT_FRAME_ANCESTORS] }),
    server: serverSchema.default({ ...DEFAULT_INBOUND_LIMITS }),
    pollWorker: pollWorkerSchema.default({ ...DEFAULT_POLL_WORKER }),
    fleet: fleetSchema.optional(),
    /**
     * The thresholds the Alerts view judges with (lib/alerts/rules.ts; the chart writes its `alerts.*` values here, the same
     * the PrometheusRule uses) and where its runbook links point. Each absent one takes the shipped default.
     */
    alerts: alertsConfigSchema.default({}),

    lease: leaseSchema.optional(),
    /**
     * Present only when the dashboard runs on the embedded demo cluster: enables the fault panel. The control API wants its
     * per-run token, read from controlTokenFile (the demo writes both into the configuration it generates).
     */
    demo: z
      .object({
        control: z.url(),
        controlTokenFile: z.string().min(1, "expected the path of the file holding the demo control API's token"),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.clusters.forEach((cl, i) => {
      if (seen.has(cl.name)) ctx.addIssue({ code: "custom", path: ["clusters", i, "name"], message: `duplicate cluster name "${cl.name}"` });
      seen.add(cl.name);
      if (c.lease && `${c.lease.name}-${cl.name}`.length > 253) {
        ctx.addIssue({ code: "custom", path: ["lease", "name"], message: `the Lease name "${c.lease.name}-${cl.name}" is over 253 characters: shorten the prefix` });
      }
    });
  });

export type Config = z.infer<typeof configSchema>;
export type ClusterConfig = z.infer<typeof clusterSchema>;
export type TaConfig = z.infer<typeof taSchema>;
export type DiscoverConfig = NonNullable<ClusterConfig["discover"]>;
export type AuthConfig = z.infer<typeof authSchema>;
export type EmbedConfig = z.infer<typeof embedSchema>;
export type ServerConfig = z.infer<typeof serverSchema>;
export type HistoryPrometheusConfig = z.infer<typeof historyPrometheusSchema>;
export type FleetConfig = z.infer<typeof fleetSchema>;
export type TlsConfig = z.infer<typeof tlsSchema>;
export type TlsSecretConfig = z.infer<typeof tlsSecretSchema>;
export type ReachConfig = z.infer<typeof reachSchema>;
export type LeaseConfig = z.infer<typeof leaseSchema>;
export type KubernetesConfig = z.infer<typeof kubernetesSchema>;

/**
 * Fields whose bad value an error may show: names, enums, numbers and non-secret places (a URL shows without its user
 * information). Any other value is described by its type only: an error goes to stderr and, during startup, to
 * /api/readyz, and a value in the wrong place may be a secret.
 */
const ECHOED_FIELDS = new Set([
  "name",
  "flavor",
  "strategy",
  "fallbackStrategy",
  "url",
  "control",
  "namespace",
  "context",
  "inCluster",
  "scraperAnnotation",
  "pollIntervalSeconds",
  "timeoutSeconds",
  "maxResponseBytes",
  "maxBytesPerPoll",
  "maxJobs",
  "pollTimeoutSeconds",
  "requestTimeoutSeconds",
  "watchTimeoutSeconds",
  "concurrency",
  "serverName",
  "insecureSkipVerify",
  "path",
  "retentionDays",
  "maxBytes",
  "matchers",
  "frameAncestors",
  "dashboardUrl",
  "staleAfterSeconds",
  "refreshSeconds",
  "durationSeconds",
  "renewSeconds",
  "reach",
  "intervalSeconds",
  "service",
  "port",
]);
const URL_FIELDS = new Set(["url", "control", "dashboardUrl"]);
/** Path segments under which nothing is shown: credentials, headers, the whole auth section. */
const SECRET_SEGMENT = /auth|token|secret|passw|key|credential|cookie|bearer|header|cert|private/i;

/** `scheme://***@host...`: a URL-ish text without anything before its last `@` (a user, a password). */
export function redactUserinfo(text: string): string {
  const at = text.lastIndexOf("@");
  if (at < 0) return text;
  const scheme = /^[a-z][a-z0-9+.-]*:\/*/i.exec(text)?.[0] ?? "";
  return `${scheme.length <= at ? scheme : ""}***@${text.slice(at + 1)}`;
}

const typeOf = (v: unknown) => (Array.isArray(v) ? "a list" : v === null ? "null" : typeof v === "object" ? "a map" : typeof v === "string" ? "a string" : `a ${typeof v}`);

/** What an error shows of the bad value at `path`: the value itself when it is known not to be secret, else its type. */
export function shownValue(path: readonly PropertyKey[], value: unknown): string {
  if (value === undefined) return "";
  const keys = path.filter((p): p is string => typeof p === "string");
  const field = keys.at(-1);
  // a Secret's namespace/name (tlsSecret.secret) is a place, not a value: shown when it has that shape and nothing else
  const secretRef = keys.at(-2) === "tlsSecret" && field === "secret" && typeof value === "string" && parseSecretRef(value) !== null;
  const secret = !secretRef && (keys.some((k) => SECRET_SEGMENT.test(k)) || field === undefined || !ECHOED_FIELDS.has(field));
  // a URL field shows a URL (without user information), not whatever text was put there
  const notUrl = URL_FIELDS.has(field!) && (typeof value !== "string" || !/^[a-z][a-z0-9+.-]*:\/\/[^\s]*$/i.test(value));
  if (secret || notUrl || (value !== null && typeof value === "object")) return ` (got ${typeOf(value)})`;
  const text = typeof value === "string" ? JSON.stringify(redactUserinfo(value).slice(0, 80)) : String(value);
  return ` (got ${text})`;
}

/**
 * One line per problem: `clusters[0].targetAllocators.per-node.flavor: expected "upstream" or "cloudwatch" (got "cw")`.
 * Values show only as shownValue allows (never a credential); path segments that are map keys show without user info.
 */
export function formatConfigIssues(error: z.ZodError, input: unknown): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${redactUserinfo(String(p))}`)).join("");
    let got: unknown = input;
    for (const p of issue.path) got = got && typeof got === "object" ? (got as Record<PropertyKey, unknown>)[p as PropertyKey] : undefined;
    const unknownKeys = issue.code === "unrecognized_keys" ? ` ${issue.keys.map((k) => redactUserinfo(k)).join(", ")}` : "";
    return `${path || "(top level)"}: ${issue.message}${unknownKeys}${issue.code === "unrecognized_keys" ? "" : shownValue(issue.path, got)}`;
  });
}

/**
 * One line for a YAML problem, without the file's text: the parser's message up to its position ("... at line 3,
 * column 12"); an unresolved alias without its name (an unquoted value starting with `*` is an alias: a password may).
 */
export function yamlErrorLine(message: string): string {
  const first = message.split("\n")[0];
  if (/^Unresolved alias/i.test(first)) return "YAML: an alias (*name) that no anchor defines: quote a value that starts with *";
  const at = /^(.*? at line \d+, column \d+)/.exec(first);
  if (at) return `YAML: ${at[1]}`;
  return `YAML: ${first.replace(/:.*$/, "")}`;
}

export function parseConfig(input: unknown): { ok: true; config: Config } | { ok: false; errors: string[] } {
  const result = configSchema.safeParse(input);
  return result.success ? { ok: true, config: result.data } : { ok: false, errors: formatConfigIssues(result.error, input) };
}
