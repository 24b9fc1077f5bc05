/**
 * zod schemas of the JSON API's response shapes (`/api/v1/*`), mirroring the view types of `lib/views` and
 * `lib/analysis/types`. They document the API (lib/api/openapi.ts builds docs/openapi.json from them) and the acceptance
 * tests parse real responses with them, so that a drift between a view type and its schema fails a test.
 * Objects are strict: a field added to a view without its schema is a drift too.
 */
import { z } from "zod";

export const roleSchema = z.enum(["per-node", "cluster-scraper"]).meta({ description: "which agent a TA serves" });
export const flavorSchema = z.enum(["upstream", "cloudwatch"]);
export const targetClassSchema = z.enum(["ghost", "nodeless", "local", "cross_zone", "cross_node"]);
export const ownershipSchema = z.enum(["ok", "double", "orphaned", "misrouted"]);
export const nodeStateSchema = z.enum(["healthy", "degraded", "no_collector", "ghosts", "idle"]);
export const sourceStateSchema = z.enum(["starting", "ok", "stale", "error"]);
export const checkStatusSchema = z.enum(["pass", "warn", "fail", "unknown"]);

const ms = z.number().meta({ description: "milliseconds since the Unix epoch" });
const nullableMs = ms.nullable();

/** `Partial<Record<Role, T>>`: an object with optional per-node and cluster-scraper keys. */
const byRole = <T extends z.ZodType>(value: T) => z.object({ "per-node": value.optional(), "cluster-scraper": value.optional() }).strict();

export const classCountsSchema = z
  .object({ ghost: z.number().int(), nodeless: z.number().int(), local: z.number().int(), cross_zone: z.number().int(), cross_node: z.number().int() })
  .strict()
  .meta({ id: "ClassCounts", description: "assigned targets by class" });

const ownershipCounts = z.object({ ok: z.number().int(), double: z.number().int(), orphaned: z.number().int(), misrouted: z.number().int() }).strict();
const nodeStateCounts = z
  .object({ healthy: z.number().int(), degraded: z.number().int(), no_collector: z.number().int(), ghosts: z.number().int(), idle: z.number().int() })
  .strict();

export const sourceErrorSchema = z
  .object({
    source: z.string(),
    kind: z.enum(["network", "timeout", "tls", "http", "too_large", "parse", "schema", "forbidden", "not_found", "config"]),
    message: z.string(),
    status: z.number().int().optional(),
    hint: z.string().optional(),
  })
  .strict()
  .meta({ id: "SourceError", description: "what failed at a source (a TA route, a Kubernetes informer), how, and what to do about it" });

export const sourceViewSchema = z
  .object({
    source: z.string().meta({ description: "<cluster>/ta/<role> or <cluster>/kube/<kind>" }),
    state: sourceStateSchema,
    lastSuccess: nullableMs,
    latencyMs: z.number().nullable(),
    error: sourceErrorSchema.nullable(),
  })
  .strict()
  .meta({ id: "SourceStatus" });

/** Every view says how fresh its data is. */
const freshness = {
  at: ms.meta({ description: "when the data was computed (the poll's end)" }),
  pollIntervalMs: z.number(),
  stale: z.array(sourceViewSchema).meta({ description: "sources that failed at the last poll: their last good data is shown" }),
};

export const roleSummarySchema = z
  .object({
    role: roleSchema,
    flavor: flavorSchema,
    strategy: z.string().nullable(),
    taReady: z.boolean().nullable(),
    collectorsTotal: z.number().int(),
    collectorsEligible: z.number().int(),
    targets: z.number().int().meta({ description: "assigned targets (the TA's JSON lists no unassigned one)" }),
    classes: classCountsSchema,
    unassigned: z.number().nullable().meta({ description: "live unassigned count from the TA's metrics, computed per flavor" }),
    unassignedReported: z.number().nullable().meta({ description: "the TA's own unassigned gauge as it reads (sticky upstream)" }),
    localityRatio: z.number().nullable(),
    imbalance: z.object({ maxOverMean: z.number().nullable(), cv: z.number().nullable() }).strict(),
    jobs: z.number().int(),
    staticJobs: z.array(z.string()),
    taOnlyCollectors: z.array(z.string()).meta({ description: "collectors the TA lists that Kubernetes does not know" }),
    missingFromTa: z.array(z.string()).meta({ description: "eligible pods the TA does not list (yet)" }),
    drift: z.number().int().meta({ description: "per-node: targets whose collector differs from the one the strategy picks from the Kubernetes view" }),
    jobsWithoutTargets: z.array(z.string()).nullable(),
  })
  .strict()
  .meta({ id: "RoleSummary" });

export const summaryViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    roles: byRole(roleSummarySchema),
    monitors: ownershipCounts.nullable(),
    nodes: z.object({ total: z.number().int(), byState: nodeStateCounts, multiplePods: z.number().int() }).strict(),
    duplicates: z.number().int(),
    sources: z.array(sourceViewSchema),
  })
  .strict()
  .meta({ id: "SummaryView" });

export const nodeRowSchema = z
  .object({
    name: z.string(),
    zone: z.string().nullable(),
    instanceType: z.string().nullable(),
    ready: z.boolean(),
    state: nodeStateSchema,
    collectors: z.array(z.object({ role: roleSchema, id: z.string(), eligible: z.boolean(), reason: z.string().nullable() }).strict()),
    targets: classCountsSchema,
    scrapedElsewhere: z.number().int(),
    scrapedHereForOthers: z.number().int(),
    multiplePods: z.boolean(),
  })
  .strict()
  .meta({ id: "NodeRow" });

const flowSchema = z.object({ from: z.string(), to: z.string(), count: z.number().int() }).strict();
const zoneFlowSchema = z.object({ from: z.string(), to: z.string(), count: z.number().int(), classes: classCountsSchema }).strict().meta({ id: "ZoneFlow" });

export const nodesViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    zones: z.array(z.object({ zone: z.string(), nodes: z.array(nodeRowSchema), byState: nodeStateCounts }).strict()),
    zoneFlows: z.array(zoneFlowSchema),
    flowRole: roleSchema.nullable(),
    zoneFlowsByRole: byRole(z.array(zoneFlowSchema)),
    crossNodeFlows: z.array(flowSchema),
    totals: z
      .object({ nodes: z.number().int(), local: z.number().int(), crossNode: z.number().int(), crossZone: z.number().int(), nodeless: z.number().int(), ghost: z.number().int() })
      .strict(),
  })
  .strict()
  .meta({ id: "NodesView" });

export const collectorRowSchema = z
  .object({
    role: roleSchema,
    id: z.string().meta({ description: "the agent pod's name" }),
    node: z.string().nullable(),
    zone: z.string().nullable(),
    inKubernetes: z.boolean(),
    inTa: z.boolean(),
    eligible: z.boolean(),
    reason: z.string().nullable(),
    phase: z.string().nullable(),
    ready: z.boolean(),
    restarts: z.number().int(),
    targets: z.number().int(),
    share: z.number(),
  })
  .strict()
  .meta({ id: "CollectorRow" });

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
    reason: z.string().nullable(),
    expected: z.string().nullable(),
  })
  .strict()
  .meta({ id: "TargetRow" });

export const nodeDetailViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    node: nodeRowSchema,
    collectors: z.array(collectorRowSchema),
    targets: z.array(targetRowSchema),
    scrapedForOthers: z.array(targetRowSchema),
  })
  .strict()
  .meta({ id: "NodeDetailView" });

export const collectorsViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    roles: z.array(
      z
        .object({
          role: roleSchema,
          strategy: z.string().nullable(),
          imbalance: z.object({ maxOverMean: z.number().nullable(), cv: z.number().nullable() }).strict(),
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

export const monitorRowSchema = z
  .object({
    kind: z.enum(["ServiceMonitor", "PodMonitor"]),
    namespace: z.string(),
    name: z.string(),
    annotations: z.record(z.string(), z.string()),
    endpoints: z.number().int(),
    annotation: z.string().nullable(),
    expectedRole: roleSchema,
    holders: z.array(roleSchema),
    ownership: ownershipSchema,
    targets: byRole(z.number().int()),
    jobs: z.array(z.string()),
  })
  .strict()
  .meta({ id: "MonitorRow" });

export const ownershipViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    annotationKey: z.string(),
    available: z.boolean().meta({ description: "false when neither monitor CRD could be read" }),
    split: z.array(z.object({ role: roleSchema, monitors: z.number().int(), targets: z.number().int(), staticJobs: z.array(z.string()) }).strict()),
    counts: ownershipCounts.nullable(),
    monitors: z.array(monitorRowSchema),
  })
  .strict()
  .meta({ id: "OwnershipView" });

export const targetsPageSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    total: z.number().int(),
    matched: z.number().int(),
    offset: z.number().int(),
    limit: z.number().int(),
    rows: z.array(targetRowSchema),
    byClass: z.record(z.string(), z.number().int()),
  })
  .strict()
  .meta({ id: "TargetsPage" });

const readinessEventSchema = z
  .object({
    at: ms,
    role: roleSchema,
    pod: z.string(),
    node: z.string().nullable(),
    ready: z.boolean(),
    kind: z.enum(["became_ready", "became_not_ready", "added", "deleted"]),
    reason: z.string().nullable(),
  })
  .strict();
const collectorMoveSchema = z.object({ role: roleSchema, from: z.string(), to: z.string(), count: z.number().int() }).strict();

export const churnViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    from: ms,
    to: ms,
    source: z
      .object({
        requested: z.enum(["auto", "local", "prometheus"]),
        answered: z.enum(["local", "prometheus"]).meta({ description: "who answered the timeline, the series and the flapping ranking" }),
        prometheus: z
          .object({ endpoint: z.string().meta({ description: "scheme, host and path of the configured backend" }) })
          .strict()
          .nullable()
          .meta({ description: "the configured Prometheus-compatible backend (history.prometheus), null when none" }),
        fallback: z.boolean().meta({ description: "true when Prometheus was asked and failed: the local store answered instead" }),
        error: z.object({ kind: z.string(), message: z.string(), hint: z.string().nullable() }).strict().nullable(),
        localFrom: ms.nullable().meta({ description: "where local history starts: the events and the reassignment details always come from it" }),
      })
      .strict(),
    backend: z
      .object({ backend: z.enum(["sqlite", "memory"]), error: z.string().nullable(), path: z.string().nullable().optional().meta({ description: "the SQLite file in use, or the one that could not be used" }) })
      .strict()
      .meta({ description: "the local history store" }),
    filter: z
      .object({ node: z.string().nullable(), pod: z.string().nullable() })
      .strict()
      .meta({ description: "the node and pod the readiness events and reassignments are narrowed to (null: all); series stay cluster-wide" }),
    timeline: z.array(
      z
        .object({
          t: ms,
          readiness: z.number().int(),
          reassignments: z.number().int(),
          byRole: byRole(z.object({ readiness: z.number().int(), reassignments: z.number().int() }).strict()),
        })
        .strict(),
    ),
    flapping: z.array(z.object({ pod: z.string(), role: roleSchema, node: z.string().nullable(), transitions: z.number().int(), lastAt: ms }).strict()),
    events: z.array(readinessEventSchema),
    eventsInRange: z.number().int().meta({ description: "readiness events in the range (all of them: counted, not read)" }),
    reassignments: z
      .object({
        total: z.number().int(),
        byNode: z.array(z.object({ node: z.string().nullable(), count: z.number().int() }).strict()),
        byCollector: z.array(collectorMoveSchema),
        sample: z.array(
          z
            .object({ at: ms, role: roleSchema, job: z.string(), address: z.string(), node: z.string().nullable(), from: z.string(), to: z.string() })
            .strict(),
        ),
      })
      .strict(),
    series: z.array(
      z
        .object({ t: ms, localityRatio: byRole(z.number().nullable()), ghosts: z.number().nullable(), unassigned: z.number().nullable() })
        .strict(),
    ),
    truncated: z
      .object({
        range: z.boolean().meta({ description: "the range asked was longer than the maximum (the local retention, or 30 days with a Prometheus backend): `from` was moved forward" }),
        reassignments: z.boolean().meta({ description: "narrowed to a node or pod, the range held more reassignment records than are read (5,000): the oldest are left out" }),
      })
      .strict()
      .meta({ description: "what a query bound left out; all false: nothing" }),
  })
  .strict()
  .meta({ id: "ChurnView" });

export const checkSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    status: checkStatusSchema,
    summary: z.string(),
    evidence: z.array(z.string()),
    fix: z.string(),
    view: z.string().meta({ description: "the dashboard page that explains it" }),
  })
  .strict()
  .meta({ id: "Check" });

export const diagnosticsViewSchema = z
  .object({
    ...freshness,
    cluster: z.string(),
    checks: z.array(checkSchema),
    counts: z.object({ pass: z.number().int(), warn: z.number().int(), fail: z.number().int(), unknown: z.number().int() }).strict(),
  })
  .strict()
  .meta({ id: "DiagnosticsView" });

export const clustersViewSchema = z
  .object({
    demo: z.boolean(),
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

export const apiErrorSchema = z
  .object({ error: z.object({ code: z.string(), message: z.string() }).strict() })
  .strict()
  .meta({ id: "ApiError", description: "every non-2xx answer of the API" });
