/**
 * The OpenAPI 3.1 document of the JSON API (`/api/v1/*`), generated from the zod schemas: the response shapes of
 * lib/api/schemas.ts and the query schemas the routes validate with (targetQuerySchema, churnQuerySchema).
 * `node --import tsx scripts/openapi.ts` writes it to docs/openapi.json; a unit test keeps that file in step.
 * Pure: no I/O.
 */
import { z } from "zod";
import pkg from "@/package.json";
import { targetQuerySchema } from "@/lib/views/targets";
import { churnQuerySchema } from "@/lib/views/churn";
import {
  apiErrorSchema,
  churnViewSchema,
  clustersViewSchema,
  collectorsViewSchema,
  diagnosticsViewSchema,
  nodeDetailViewSchema,
  nodesViewSchema,
  ownershipViewSchema,
  summaryViewSchema,
  targetsPageSchema,
} from "@/lib/api/schemas";

type JsonSchema = Record<string, unknown>;

const REF = (id: string) => `#/components/schemas/${id}`;

/** JSON Schema ids of the response schemas (their `.meta({ id })`). */
function idOf(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (typeof id !== "string") throw new Error("a response schema has no id");
  return id;
}

const clusterParam = {
  name: "cluster",
  in: "query",
  required: false,
  description: "the cluster's name from the configuration; default: the first cluster",
  schema: { type: "string" },
};

/** Descriptions of query parameters whose schema carries none. */
const PARAM_DOCS: Record<string, string> = {
  cluster: "the cluster's name from the configuration; default: the first cluster",
  role: "only targets of this role's TA",
  class: "comma-separated target classes among ghost, nodeless, local, cross_zone, cross_node",
  node: "targets located on this node or scraped by a collector on it",
  collector: "targets assigned to this collector (pod name)",
  job: "targets of this job (exact name)",
  q: "text search in address, job, node and collector (trimmed, case-insensitive; at most 200 characters)",
  offset: "rows to skip",
  limit: "rows per page",
  sort: "sort key",
  from:
    "range start: milliseconds since the epoch or an ISO 8601 time, from 2000-01-01 and before `to`; default: `last` (one hour) before `to`. " +
    "A range longer than the maximum (the local retention, or 30 days with a Prometheus backend) is clamped: `truncated.range`",
  to: "range end: milliseconds since the epoch or an ISO 8601 time, at most an hour after the server's time; default: the latest poll's time",
  buckets: "number of timeline buckets, 1 to 1000; default 60",
};

/** One query parameter per property of a query schema (input side: what the URL carries). */
function queryParameters(schema: z.ZodType): JsonSchema[] {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { description = PARAM_DOCS[name], ...rest } = s as JsonSchema & { description?: string };
    return {
      name,
      in: "query",
      required: (json.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function responses(ok: z.ZodType, description: string, extra: Record<string, string> = {}): JsonSchema {
  const error = (d: string) => ({ description: d, content: { "application/json": { schema: { $ref: REF(idOf(apiErrorSchema)) } } } });
  return {
    "200": { description, content: { "application/json": { schema: { $ref: REF(idOf(ok)) } } } },
    ...Object.fromEntries(Object.entries(extra).map(([code, d]) => [code, error(d)])),
    "404": error("unknown cluster (code unknown_cluster)"),
    "503": error("the first poll of the cluster has not finished yet (code not_ready)"),
  };
}

function get(operationId: string, summary: string, ok: z.ZodType, description: string, parameters: JsonSchema[] = [clusterParam], extra: Record<string, string> = {}) {
  return { get: { operationId, summary, parameters, responses: responses(ok, description, extra) } };
}

export function buildOpenApi(): JsonSchema {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { uri: REF, target: "draft-2020-12" }) as { schemas: Record<string, JsonSchema> };
  // Each component's own $id/$schema are noise inside an OpenAPI document.
  const components = Object.fromEntries(
    Object.entries(schemas)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, s]) => {
        const rest = { ...s };
        delete rest.$id;
        delete rest.$schema;
        return [id, rest];
      }),
  );
  const clusters = get("listClusters", "The configured clusters and their TAs", clustersViewSchema, "every configured cluster", []);
  const clustersResponses = (clusters.get.responses as Record<string, unknown>);
  delete clustersResponses["404"];
  delete clustersResponses["503"];
  return {
    openapi: "3.1.0",
    info: {
      title: "Allocation Lens API",
      version: pkg.version,
      description:
        "View-shaped JSON of how Target Allocators spread scrape targets over collector pods. Every view is computed once per poll on " +
        "the server (one poller per cluster, whatever the number of clients) and says how fresh it is (`at`, `pollIntervalMs`, `stale`).",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [{ url: "/" }],
    paths: {
      "/api/v1/clusters": clusters,
      "/api/v1/summary": get("getSummary", "Overview of one cluster: per-role summaries, monitors, nodes, sources", summaryViewSchema, "the overview"),
      "/api/v1/nodes": get("getNodes", "Node map by zone, zone flows and cross-node flows", nodesViewSchema, "the node map"),
      "/api/v1/nodes/{name}": get(
        "getNode",
        "One node: its collectors, the targets located on it and what its collectors scrape for other nodes",
        nodeDetailViewSchema,
        "the node's detail",
        [{ name: "name", in: "path", required: true, description: "the node's name", schema: { type: "string" } }, clusterParam],
      ),
      "/api/v1/collectors": get("getCollectors", "Targets per collector, imbalance, and where the TA and Kubernetes disagree", collectorsViewSchema, "the collectors"),
      "/api/v1/monitors": get("getMonitors", "Monitor ownership between the per-node and cluster-scraper TAs", ownershipViewSchema, "every monitor and its ownership"),
      "/api/v1/targets": get(
        "getTargets",
        "Who scrapes what: target rows filtered on the server and paginated",
        targetsPageSchema,
        "one page of matching targets",
        queryParameters(targetQuerySchema),
        { "400": "a bad query parameter, named in the message (code bad_request)" },
      ),
      "/api/v1/churn": get(
        "getChurn",
        "Readiness transitions and target reassignments over a time range",
        churnViewSchema,
        "the churn of the range",
        queryParameters(churnQuerySchema),
        { "400": "a bad query parameter, named in the message (code bad_query)" },
      ),
      "/api/v1/diagnostics": get("getDiagnostics", "Automated troubleshooting checks, each with status, evidence and fix", diagnosticsViewSchema, "every check"),
    },
    components: { schemas: components },
  };
}

/** The document as docs/openapi.json holds it. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}
