/**
 * The JSON API's answers (`/api/v1/*`): one zod schema per endpoint, built from the schemas of their parts, and the
 * TypeScript type of each answer and part as `z.infer` of its schema. This file is where an answer's shape is declared:
 * the view builders (lib/views) and the analysis (lib/analysis/types.ts) use these types, lib/api/openapi.ts builds
 * docs/openapi.json from the schemas (API_ROUTES in lib/api/routes.ts says which schema answers which route), and the
 * acceptance tests parse real answers with them. Objects are strict: a field a builder adds without its schema fails the
 * type check (object literals) or the acceptance tests (spreads). Value lists of the vocabulary (roles, flavors, classes...)
 * come from lib/model.ts; the API's own (source states, error kinds, churn sources) are declared here, below everything
 * they are built from, and re-exported by the modules that speak of them (lib/snapshot.ts, lib/source-error.ts...).
 */
import { z } from "zod";
import type { MonitorRef, Role, TargetClass } from "@/lib/model";
import { FLAVORS, OWNERSHIPS, ROLES, TARGET_CLASSES } from "@/lib/model";

/** The kinds of a source's failure (lib/source-error.ts: SourceError). */
export const SOURCE_ERROR_KINDS = [
  "network", // connection refused/reset, DNS
  "timeout",
  "tls", // handshake, certificate
  "http", // non-2xx answer
  "too_large",
  "parse", // not JSON / not Prometheus text
  "schema", // JSON of the wrong shape
  "forbidden", // 401/403
  "not_found", // 404 (for a CRD: not installed)
  "config",
] as const;

/**
 * `starting` (never answered yet), `ok`, `stale` (failed at the last poll, its last good data is still used) or `error`
 * (failed and never succeeded).
 */
export const SOURCE_STATES = ["starting", "ok", "stale", "error"] as const;

/** Which source the churn view is asked to read (lib/views/churn-source.ts). */
export const CHURN_SOURCES = ["auto", "local", "prometheus"] as const;

export const roleSchema = z.enum(ROLES).meta({ description: "which agent a TA serves" });
export const flavorSchema = z.enum(FLAVORS);
export const targetClassSchema = z.enum(TARGET_CLASSES);
export const ownershipSchema = z.enum(OWNERSHIPS);
export const nodeStateSchema = z.enum(["healthy", "degraded", "no_collector", "ghosts", "idle"]);
export type NodeState = z.infer<typeof nodeStateSchema>;
export const sourceStateSchema = z.enum(SOURCE_STATES);
export const checkStatusSchema = z.enum(["pass", "warn", "fail", "unknown"]);
export type CheckStatus = z.infer<typeof checkStatusSchema>;

const ms = z.number().meta({ description: "milliseconds since the Unix epoch" });
const nullableMs = ms.nullable();

/** `Partial<Record<Role, T>>`: an object with optional per-node and cluster-scraper keys. */
const byRole = <T extends z.ZodType>(value: T) =>
  z.object({ "per-node": value.optional(), "cluster-scraper": value.optional() } satisfies Record<Role, z.ZodOptional<T>>).strict();
const int = () => z.number().int();

export const classCountsSchema = z
  .object({ ghost: int(), nodeless: int(), local: int(), cross_zone: int(), cross_node: int() } satisfies Record<TargetClass, z.ZodNumber>)
  .strict()
  .meta({ id: "ClassCounts", description: "assigned targets by class" });
export type ClassCounts = z.infer<typeof classCountsSchema>;

const ownershipCounts = z.object({ ok: int(), double: int(), orphaned: int(), misrouted: int() }).strict();
const nodeStateCounts = z.object({ healthy: int(), degraded: int(), no_collector: int(), ghosts: int(), idle: int() }).strict();

export const sourceErrorSchema = z
  .object({
    source: z.string(),
    kind: z.enum(SOURCE_ERROR_KINDS),
    message: z.string(),
    status: z.number().int().optional(),
    hint: z.string().optional(),
  })
  .strict()
  .meta({ id: "SourceError", description: "what failed at a source (a TA route, a Kubernetes informer), how, and what to do about it" });

export const sourceViewSchema = z
  .object({
    source: z.string().meta({ description: "<cluster>/ta/<role>, <cluster>/kube/<kind>, or <cluster>/holder (with lease: the replica polling the cluster, when it cannot be reached)" }),
    state: sourceStateSchema,
    lastSuccess: nullableMs,
    latencyMs: z.number().nullable(),
    error: sourceErrorSchema.nullable(),
  })
  .strict()
  .meta({ id: "SourceStatus" });
/** A source's status as answers show it (lib/snapshot.ts's SourceStatus has one more field, lastAttempt). */
export type SourceView = z.infer<typeof sourceViewSchema>;

/** Every view says how fresh its data is. */
const freshness = {
  at: ms.meta({ description: "when the data was computed (the poll's end)" }),
  pollIntervalMs: z.number(),
  stale: z.array(sourceViewSchema).meta({ description: "sources that failed at the last poll: their last good data is shown" }),
};
export const freshnessSchema = z.object(freshness).strict();
export type Freshness = z.infer<typeof freshnessSchema>;

export const roleSummarySchema = z
  .object({
    role: roleSchema,
    flavor: flavorSchema,
    strategy: z.string().nullable(),
    taReady: z.boolean().nullable(),
    collectorsTotal: int(),
    collectorsEligible: int(),
    targets: int().meta({ description: "assigned targets (the TA's JSON lists no unassigned one)" }),
    classes: classCountsSchema,
    unassigned: z.number().nullable().meta({ description: "live unassigned count from the TA's metrics, computed per flavor" }),
    unassignedReported: z.number().nullable().meta({ description: "the TA's own unassigned gauge as it reads (sticky upstream)" }),
    localityRatio: z.number().nullable(),
    imbalance: z.object({ maxOverMean: z.number().nullable(), cv: z.number().nullable() }).strict(),
    jobs: int(),
    staticJobs: z.array(z.string()),
    taOnlyCollectors: z.array(z.string()).meta({ description: "collectors the TA lists that Kubernetes does not know" }),
    missingFromTa: z.array(z.string()).meta({ description: "eligible pods the TA does not list (yet)" }),
    drift: int().meta({ description: "per-node: targets whose collector differs from the one the strategy picks from the Kubernetes view" }),
    jobsWithoutTargets: z
      .array(z.string())
      .nullable()
      .meta({ description: "job names of /scrape_configs without any target in /jobs; null when /scrape_configs could not be read" }),
  })
  .strict()
  .meta({ id: "RoleSummary" });
export type RoleSummary = z.infer<typeof roleSummarySchema>;

/** What the overview shows of a role beside its RoleSummary: the cluster-scraper card reads it (locality is not its goal). */
export const roleDetailsSchema = z
  .object({
    monitors: ownershipCounts
      .nullable()
      .meta({ description: "monitors routed to this role or held by its TA, by ownership state (the Ownership view's role filter); null when neither monitor CRD could be read" }),
    perCollector: z
      .object({ collectors: int(), min: int().nullable(), max: int().nullable(), mean: z.number().nullable() })
      .strict()
      .meta({ description: "assigned targets per eligible collector listed by the TA (the collectors the imbalance is computed on); null without one" }),
    zones: z
      .array(z.object({ zone: z.string(), count: int() }).strict())
      .meta({ description: "assigned targets by the zone of their node, zones first, then (no zone) and (no node)" }),
  })
  .strict()
  .meta({ id: "RoleDetails" });
export type RoleDetails = z.infer<typeof roleDetailsSchema>;

/** GET /api/v1/summary */
export const summaryViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    roles: byRole(roleSummarySchema),
    roleDetails: byRole(roleDetailsSchema),
    monitors: ownershipCounts.nullable(),
    nodes: z.object({ total: int(), byState: nodeStateCounts, multiplePods: int() }).strict(),
    duplicates: int(),
    sources: z.array(sourceViewSchema),
  })
  .strict()
  .meta({ id: "SummaryView" });
export type SummaryView = z.infer<typeof summaryViewSchema>;

export const nodeRowSchema = z
  .object({
    name: z.string(),
    zone: z.string().nullable(),
    instanceType: z.string().nullable(),
    ready: z.boolean(),
    state: nodeStateSchema,
    collectors: z
      .array(z.object({ role: roleSchema, id: z.string(), eligible: z.boolean(), reason: z.string().nullable() }).strict())
      .meta({ description: "agent pods on this node, per role" }),
    targets: classCountsSchema.meta({ description: "targets located on this node (by their node), by class" }),
    scrapedElsewhere: int().meta({ description: "of those, scraped by a collector on another node" }),
    scrapedHereForOthers: int().meta({ description: "targets of other nodes (or nodeless) scraped by this node's collectors" }),
    multiplePods: z.boolean().meta({ description: "two or more per-node agent pods on this node (a rollout surge)" }),
  })
  .strict()
  .meta({ id: "NodeRow" });
export type NodeRow = z.infer<typeof nodeRowSchema>;

const flowSchema = z.object({ from: z.string(), to: z.string(), count: int() }).strict();
export type Flow = z.infer<typeof flowSchema>;
/** A zone flow with its targets by class (a same-zone flow holds local and cross-node targets). */
const zoneFlowSchema = z.object({ from: z.string(), to: z.string(), count: int(), classes: classCountsSchema }).strict().meta({ id: "ZoneFlow" });
export type ZoneFlow = z.infer<typeof zoneFlowSchema>;

/** GET /api/v1/nodes */
export const nodesViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    zones: z.array(z.object({ zone: z.string(), nodes: z.array(nodeRowSchema), byState: nodeStateCounts }).strict()),
    zoneFlows: z.array(zoneFlowSchema).meta({ description: "target zone -> collector zone, per-node role (or every role when there is no per-node TA)" }),
    flowRole: roleSchema.nullable().meta({ description: "the role zoneFlows, crossNodeFlows and totals describe; null: every role (no per-node TA)" }),
    zoneFlowsByRole: byRole(z.array(zoneFlowSchema)).meta({ description: "target zone -> collector zone for each role of the cluster" }),
    crossNodeFlows: z.array(flowSchema).meta({ description: "the largest node -> node flows that leave their node, capped" }),
    totals: z.object({ nodes: int(), local: int(), crossNode: int(), crossZone: int(), nodeless: int(), ghost: int() }).strict(),
  })
  .strict()
  .meta({ id: "NodesView" });
export type NodesView = z.infer<typeof nodesViewSchema>;

export const collectorRowSchema = z
  .object({
    role: roleSchema,
    id: z.string().meta({ description: "the agent pod's name" }),
    node: z.string().nullable(),
    zone: z.string().nullable(),
    inKubernetes: z.boolean().meta({ description: "known to Kubernetes (a pod matching the selector)" }),
    inTa: z.boolean().meta({ description: "listed by the TA" }),
    eligible: z.boolean(),
    reason: z.string().nullable(),
    phase: z.string().nullable(),
    ready: z.boolean(),
    restarts: int(),
    targets: int(),
    share: z.number(),
  })
  .strict()
  .meta({ id: "CollectorRow" });
export type CollectorRow = z.infer<typeof collectorRowSchema>;

export const targetRowSchema = z
  .object({
    role: roleSchema,
    job: z.string(),
    address: z.string(),
    node: z.string().nullable(),
    zone: z.string().nullable(),
    collector: z.string(),
    collectorNode: z.string().nullable(),
    collectorZone: z.string().nullable(),
    class: targetClassSchema,
    reason: z.string().nullable().meta({ description: "why the collector is not eligible, for ghosts" }),
    expected: z
      .string()
      .nullable()
      .meta({ description: "per-node role only: the collector the strategy would pick from the Kubernetes view, when it differs" }),
  })
  .strict()
  .meta({ id: "TargetRow" });
export type TargetRow = z.infer<typeof targetRowSchema>;

/** GET /api/v1/nodes/{name} */
export const nodeDetailViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    node: nodeRowSchema,
    collectors: z.array(collectorRowSchema),
    targets: z.array(targetRowSchema).meta({ description: "targets located on this node, with who scrapes them" }),
    scrapedForOthers: z.array(targetRowSchema).meta({ description: "targets of other nodes (or none) that this node's collectors scrape" }),
  })
  .strict()
  .meta({ id: "NodeDetailView" });
export type NodeDetailView = z.infer<typeof nodeDetailViewSchema>;

const imbalanceSchema = z.object({ maxOverMean: z.number().nullable(), cv: z.number().nullable() }).strict();

/** GET /api/v1/collectors */
export const collectorsViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    roles: z.array(
      z
        .object({
          role: roleSchema,
          strategy: z.string().nullable(),
          imbalance: imbalanceSchema,
          collectors: z.array(collectorRowSchema),
          taOnly: z.array(z.string()),
          missingFromTa: z.array(z.string()),
          notEligibleInTa: z.array(collectorRowSchema),
        })
        .strict(),
    ),
  })
  .strict()
  .meta({ id: "CollectorsView" });
export type CollectorsView = z.infer<typeof collectorsViewSchema>;

/**
 * A monitor object as the routing sees it: lib/model.ts's MonitorRef (declared there: the model imports nothing, the demo
 * and the allocation rules share it), held to that type both ways.
 */
export const monitorRefSchema = z
  .object({
    kind: z.enum(["ServiceMonitor", "PodMonitor"]),
    namespace: z.string(),
    name: z.string(),
    annotations: z.record(z.string(), z.string()),
    endpoints: int(),
  })
  .strict() satisfies z.ZodType<MonitorRef>;
const monitorRefMatches: MonitorRef extends z.infer<typeof monitorRefSchema> ? true : never = true;
void monitorRefMatches;

export const monitorRowSchema = monitorRefSchema
  .extend({
    annotation: z.string().nullable().meta({ description: "the value of the first recognised scraper-annotation key it carries; null when none" }),
    scraperAnnotations: z
      .array(z.object({ key: z.string(), value: z.string() }).strict())
      .meta({ description: "every recognised scraper-annotation key it carries, with its value, in the order of the view's annotationKeys" }),
    expectedRole: roleSchema.nullable().meta({ description: "the TA its annotation routes it to; null when its recognised keys route it to different TAs" }),
    holders: z.array(roleSchema),
    ownership: ownershipSchema,
    targets: byRole(int()),
    jobs: z.array(z.string()),
  })
  .strict()
  .meta({ id: "MonitorRow" });
export type MonitorRow = z.infer<typeof monitorRowSchema>;

/** GET /api/v1/monitors */
export const ownershipViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    annotationKeys: z
      .array(z.string())
      .meta({ description: "the scraper-annotation keys recognised: both spellings, or the one key set by scraperAnnotation in the configuration" }),
    annotationKeyConfigured: z.boolean().meta({ description: "true when scraperAnnotation in the configuration names the only key recognised" }),
    available: z.boolean().meta({ description: "false when neither monitor CRD could be read" }),
    split: z.array(z.object({ role: roleSchema, monitors: int(), targets: int(), staticJobs: z.array(z.string()) }).strict()),
    counts: ownershipCounts.nullable(),
    monitors: z.array(monitorRowSchema),
  })
  .strict()
  .meta({ id: "OwnershipView" });
export type OwnershipView = z.infer<typeof ownershipViewSchema>;

/** One page of matching targets: what pageTargets (lib/views/targets.ts) computes. */
const targetPage = {
  total: int(),
  matched: int(),
  offset: int(),
  limit: int(),
  rows: z.array(targetRowSchema),
  byClass: z.record(z.string(), int()),
};
export const targetPageSchema = z.object(targetPage).strict();
export type TargetPage = z.infer<typeof targetPageSchema>;

/** GET /api/v1/targets */
export const targetsPageSchema = z
  .object({ ...freshness, cluster: z.string(), ...targetPage })
  .strict()
  .meta({ id: "TargetsPage" });
export type TargetsPage = z.infer<typeof targetsPageSchema>;

/** The ghost targets one not-eligible collector still holds. */
export const ghostGroupSchema = z
  .object({
    role: roleSchema,
    collector: z.string(),
    node: z.string().nullable().meta({ description: "the collector's node, when Kubernetes still knows the pod" }),
    zone: z.string().nullable(),
    reason: z.string().meta({ description: "why the collector is not eligible" }),
    inKubernetes: z.boolean(),
    phase: z.string().nullable(),
    restarts: int(),
    targets: int(),
    jobs: int(),
    targetNodes: int().meta({ description: "distinct nodes of the targets (nodeless targets not counted)" }),
  })
  .strict()
  .meta({ id: "GhostGroup" });
export type GhostGroup = z.infer<typeof ghostGroupSchema>;

export const lostRoleSchema = z
  .object({
    role: roleSchema,
    flavor: flavorSchema,
    taReady: z.boolean().nullable(),
    unassigned: z.number().nullable().meta({ description: "live count from the TA's metrics (null when they could not be read)" }),
    unassignedReported: z.number().nullable().meta({ description: "the TA's own gauge: sticky upstream, so it can disagree with the live count" }),
    reportedDiffers: z.boolean().meta({ description: "the gauge and the live count disagree (both known)" }),
    assigned: int(),
    ghosts: int(),
    groups: z.array(ghostGroupSchema),
  })
  .strict()
  .meta({ id: "LostRole" });
export type LostRole = z.infer<typeof lostRoleSchema>;

/** GET /api/v1/lost */
export const lostViewSchema = z
  .object({ ...freshness, cluster: z.string(), roles: z.array(lostRoleSchema) })
  .strict()
  .meta({ id: "LostView" });
export type LostView = z.infer<typeof lostViewSchema>;

export const readinessKindSchema = z.enum(["became_ready", "became_not_ready", "added", "deleted"]);
export type ReadinessKind = z.infer<typeof readinessKindSchema>;

export const readinessEventSchema = z
  .object({
    at: ms,
    role: roleSchema,
    pod: z.string(),
    node: z.string().nullable(),
    ready: z.boolean().meta({ description: "eligible after the event (false for a deleted pod)" }),
    kind: readinessKindSchema,
    reason: z.string().nullable().meta({ description: "why the pod is not eligible after the event, null when it is" }),
  })
  .strict();
export type ReadinessEvent = z.infer<typeof readinessEventSchema>;

const collectorMoveSchema = z.object({ role: roleSchema, from: z.string(), to: z.string(), count: int() }).strict();
export type CollectorMove = z.infer<typeof collectorMoveSchema>;
const targetMove = { role: roleSchema, job: z.string(), address: z.string(), node: z.string().nullable(), from: z.string(), to: z.string() };
export const targetMoveSchema = z.object(targetMove).strict();
export type TargetMove = z.infer<typeof targetMoveSchema>;

const timelineBucketSchema = z
  .object({
    t: ms,
    readiness: int(),
    reassignments: int(),
    byRole: byRole(z.object({ readiness: int(), reassignments: int() }).strict()),
  })
  .strict();
export type TimelineBucket = z.infer<typeof timelineBucketSchema>;

const flapperSchema = z
  .object({
    pod: z.string(),
    role: roleSchema,
    node: z.string().nullable(),
    transitions: int().meta({ description: "readiness flips (became_ready + became_not_ready) in the range" }),
    lastAt: ms,
  })
  .strict();
export type Flapper = z.infer<typeof flapperSchema>;

const reassignmentTotalsSchema = z
  .object({
    total: int(),
    byNode: z.array(z.object({ node: z.string().nullable(), count: int() }).strict()),
    byCollector: z.array(collectorMoveSchema),
    sample: z.array(z.object({ at: ms, ...targetMove }).strict()),
  })
  .strict();
export type ReassignmentTotals = z.infer<typeof reassignmentTotalsSchema>;

const seriesPointSchema = z
  .object({
    t: ms,
    localityRatio: byRole(z.number().nullable()).meta({ description: "mean over the bucket's polls, per role; null without data" }),
    ghosts: z.number().nullable().meta({ description: "worst (max) over the bucket's polls, summed over roles; null without data" }),
    unassigned: z.number().nullable(),
  })
  .strict();
export type SeriesPoint = z.infer<typeof seriesPointSchema>;

/** The churn view's account of its source (lib/views/churn-source.ts chooses it). */
const churnSourceSchema = z
  .object({
    requested: z.enum(CHURN_SOURCES),
    answered: z.enum(["local", "prometheus"]).meta({ description: "who answered the timeline, the series and the flapping ranking" }),
    prometheus: z
      .object({ endpoint: z.string().meta({ description: "scheme, host and path of the configured backend" }) })
      .strict()
      .nullable()
      .meta({ description: "the configured Prometheus-compatible backend (history.prometheus), null when none" }),
    fallback: z.boolean().meta({ description: "true when Prometheus was asked and failed: the local store answered instead" }),
    error: z
      .object({ kind: z.string(), message: z.string(), hint: z.string().nullable() })
      .strict()
      .nullable()
      .meta({ description: "why Prometheus failed (fallback), null otherwise" }),
    localFrom: ms.nullable().meta({ description: "where local history starts: the events and the reassignment details always come from it" }),
  })
  .strict();
export type ChurnSource = z.infer<typeof churnSourceSchema>;

const historyBackendSchema = z
  .object({
    backend: z.enum(["sqlite", "memory"]),
    error: z.string().nullable(),
    path: z.string().nullable().meta({ description: "the SQLite file in use, or the one that could not be used" }),
  })
  .strict()
  .meta({ description: "the local history store" });
export type HistoryBackend = z.infer<typeof historyBackendSchema>;

const churnTruncatedSchema = z
  .object({
    range: z.boolean().meta({ description: "the range asked was longer than the maximum (the local retention, or 30 days with a Prometheus backend): `from` was moved forward" }),
    reassignments: z.boolean().meta({ description: "narrowed to a node or pod, the range held more reassignment records than are read (5,000): the oldest are left out" }),
  })
  .strict()
  .meta({ description: "what a query bound left out; all false: nothing" });
export type ChurnTruncated = z.infer<typeof churnTruncatedSchema>;

/** GET /api/v1/churn */
export const churnViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    from: ms,
    to: ms,
    source: churnSourceSchema,
    backend: historyBackendSchema,
    filter: z
      .object({ node: z.string().nullable(), pod: z.string().nullable() })
      .strict()
      .meta({ description: "the node and pod the readiness events and reassignments are narrowed to (null: all); series stay cluster-wide" }),
    timeline: z.array(timelineBucketSchema),
    flapping: z.array(flapperSchema),
    events: z.array(readinessEventSchema).meta({ description: "the latest readiness events of the range, newest first" }),
    eventsInRange: int().meta({ description: "readiness events in the range (all of them: counted, not read)" }),
    reassignments: reassignmentTotalsSchema,
    series: z.array(seriesPointSchema),
    truncated: churnTruncatedSchema,
  })
  .strict()
  .meta({ id: "ChurnView" });
export type ChurnView = z.infer<typeof churnViewSchema>;

export const checkSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    status: checkStatusSchema,
    summary: z.string(),
    evidence: z.array(z.string()).meta({ description: "concrete facts: pod names, node names, counts; a few items at most, then \"and N more\"" }),
    fix: z.string(),
    view: z.string().meta({ description: "the dashboard page that explains it" }),
  })
  .strict()
  .meta({ id: "Check" });
export type Check = z.infer<typeof checkSchema>;

/** GET /api/v1/diagnostics */
/** What discovery found in the cluster's Kubernetes API and what it dropped (`targetAllocators: auto`). */
export const discoveryViewSchema = z
  .object({
    at: z.number().nullable().meta({ description: "when the last reading succeeded (ms since the epoch); null before the first" }),
    found: z.array(
      z
        .object({
          role: roleSchema,
          flavor: flavorSchema,
          namespace: z.string(),
          configMap: z.string(),
          strategy: z.string(),
          fallbackStrategy: z.string().nullable(),
          collectors: z.object({ namespace: z.string(), selector: z.record(z.string(), z.string()) }).strict(),
          mtls: z.boolean().meta({ description: "the TA requires TLS with a client certificate" }),
          service: z.string().meta({ description: "namespace/name:port of the TA's Service" }),
          reach: z.enum(["direct", "port-forward", "service-proxy"]).meta({ description: "how the dashboard reaches it" }),
        })
        .strict(),
    ),
    dropped: z.array(z.object({ object: z.string(), reason: z.string() }).strict()).meta({ description: "objects that looked like a TA's and were not used, with why" }),
    problems: z.array(z.string()).meta({ description: "configured overrides that do not fit a discovered TA, one line each" }),
  })
  .strict()
  .meta({ id: "DiscoveryView" });
export type DiscoveryView = z.infer<typeof discoveryViewSchema>;

export const diagnosticsViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    checks: z.array(checkSchema).meta({ description: "in the stable logical order of the checks; the page puts the worst first" }),
    counts: z.object({ pass: int(), warn: int(), fail: int(), unknown: int() }).strict(),
    discovery: discoveryViewSchema.nullable().meta({ description: "null unless the cluster's TAs are discovered" }),
  })
  .strict()
  .meta({ id: "DiagnosticsView" });
export type DiagnosticsView = z.infer<typeof diagnosticsViewSchema>;

/** GET /api/v1/alerts: the alerting rules (lib/alerts/rules.ts) judged on this cluster's current values */
export const alertStateSchema = z.enum(["firing", "pending", "inactive"]);
export const alertInstanceSchema = z
  .object({
    labels: z.record(z.string(), z.string()).meta({ description: "the alert's labels as Prometheus would give them (cluster, role, collector, pod, node, source, ownership)" }),
    value: z.number().meta({ description: "the expression's value" }),
    since: ms.meta({ description: "when the dashboard first saw the condition hold, this run (a restart starts again)" }),
    state: alertStateSchema.exclude(["inactive"]).meta({ description: "pending until the condition has held for the rule's `for`" }),
    summary: z.string(),
    description: z.string(),
    dashboardPath: z.string().meta({ description: "the view that shows the problem, filtered to it (relative to the dashboard)" }),
  })
  .strict();
export const alertRowSchema = z
  .object({
    alert: z.string(),
    severity: z.enum(["critical", "warning", "info"]),
    state: alertStateSchema.meta({ description: "the worst state of its instances" }),
    expr: z.string().meta({ description: "the rule's PromQL, with this dashboard's thresholds" }),
    forMs: z.number().int().nonnegative(),
    runbookUrl: z.string(),
    instances: z.array(alertInstanceSchema),
    unknown: z.string().nullable().meta({ description: "why the dashboard cannot judge this rule now (its data is missing), or null" }),
  })
  .strict();
export const alertsViewSchema = z
  .object({ ...freshness, cluster: z.string(), alerts: z.array(alertRowSchema).meta({ description: "every rule, firing first, then pending, then the rest in the rules' order" }) })
  .strict()
  .meta({ id: "AlertsView" });
export type AlertsView = z.infer<typeof alertsViewSchema>;
export type AlertRow = z.infer<typeof alertRowSchema>;
export type AlertInstance = z.infer<typeof alertInstanceSchema>;

/** GET /api/v1/clusters */
export const clustersViewSchema = z
  .object({
    demo: z.boolean(),
    fleet: z.boolean().meta({ description: "a fleet backend is configured: GET /api/v1/fleet answers" }),
    clusters: z.array(
      z
        .object({
          name: z.string(),
          pollIntervalSeconds: z.number(),
          roles: z.array(z.object({ role: roleSchema, flavor: flavorSchema }).strict()),
        })
        .strict(),
    ),
  })
  .strict()
  .meta({ id: "ClustersView" });
export type ClustersView = z.infer<typeof clustersViewSchema>;

export const FLEET_STATUSES = ["stopped", "bad", "warn", "ok"] as const;
export const fleetStatusSchema = z.enum(FLEET_STATUSES).meta({ description: "stopped (its series stopped), bad, warn or ok; rows are sorted in this order" });
export type FleetStatus = z.infer<typeof fleetStatusSchema>;

export const fleetRoleSchema = z
  .object({
    localityRatio: z.number().nullable().meta({ description: "local / (local + cross_node + cross_zone); null when the dashboard exports none" }),
    ghosts: int().nullable(),
    unassigned: int().nullable().meta({ description: "the live unassigned count; null when the TA's count is unknown" }),
  })
  .strict();

export const fleetTrendSchema = z
  .object({
    start: ms.meta({ description: "the time of the first point; point i is at start + i * stepMs" }),
    stepMs: int().meta({ description: "the time between two points (the query step: 15 minutes)" }),
    ghosts: z.array(int().nullable()).meta({ description: "ghost targets of all roles per point (the worst value in the step); null where the backend has none" }),
    localityRatio: z
      .array(z.number().nullable())
      .meta({ description: "the per-node locality ratio per point (the mean over the step, to 4 decimals); null where the backend has none" }),
  })
  .strict();
export type FleetTrend = z.infer<typeof fleetTrendSchema>;

export const fleetRowSchema = z
  .object({
    cluster: z.string().meta({ description: "the cluster label of the dashboard's series" }),
    status: fleetStatusSchema,
    problems: z.array(z.string()).meta({ description: "what makes the status, worst first" }),
    seenAt: nullableMs.meta({ description: "the time of the cluster's last sample in the backend; null when none is current" }),
    lastPollAt: nullableMs.meta({ description: "when the cluster's dashboard finished its last poll (allocation_lens_last_poll_timestamp_seconds)" }),
    roles: byRole(fleetRoleSchema),
    monitors: z.object({ double: int(), orphaned: int(), misrouted: int() }).strict().nullable(),
    nodesWithoutCollector: int().nullable(),
    sources: z.array(z.object({ source: z.string(), up: z.boolean() }).strict()).meta({ description: "each source (a TA, an informer) and whether its last poll succeeded" }),
    trend: fleetTrendSchema.meta({ description: "the last 24 hours, in columns: one value per point in each of ghosts and localityRatio (both arrays as long); empty when the backend has none" }),
    dashboardUrl: z.string().nullable().meta({ description: "the cluster's own dashboard (fleet.dashboardUrl), an http(s) URL; null without one" }),
  })
  .strict()
  .meta({ id: "FleetRow" });
export type FleetRow = z.infer<typeof fleetRowSchema>;

/** GET /api/v1/fleet */
export const fleetViewSchema = z
  .object({
    at: ms.meta({ description: "when the backend answered the figures shown" }),
    pollIntervalMs: z.number().meta({ description: "how often the server asks the backend (fleet.refreshSeconds)" }),
    stale: z.array(sourceViewSchema).meta({ description: "the backend, when its last query failed: the last good answer is shown" }),
    backend: z.string().meta({ description: "the backend's scheme, host and path" }),
    staleAfterMs: z.number().meta({ description: "a cluster whose last sample is older than this is stopped" }),
    clusters: z.array(fleetRowSchema).meta({ description: "one row per cluster, worst first" }),
    truncated: int().meta({ description: "clusters left out past the row limit" }),
  })
  .strict()
  .meta({ id: "FleetView" });
export type FleetView = z.infer<typeof fleetViewSchema>;

export const apiErrorSchema = z
  .object({ error: z.object({ code: z.string(), message: z.string() }).strict() })
  .strict()
  .meta({ id: "ApiError", description: "every non-2xx answer of the API" });
export type ApiErrorBody = z.infer<typeof apiErrorSchema>;
