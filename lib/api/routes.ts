/**
 * Which schema answers which route of the JSON API: one entry per route handler under app/api/v1 (`route.ts`, a `[name]`
 * folder is the path parameter `{name}`). lib/api/openapi.ts documents every route found there from this table and refuses
 * a route that has no entry here (scripts/openapi.ts and lib/api/openapi.test.ts walk the folder), so a new route cannot
 * go undocumented. Pure.
 */
import type { z } from "zod";
import { targetQuerySchema } from "@/lib/views/targets";
import { churnQuerySchema } from "@/lib/views/churn";
import {
  alertsViewSchema,
  churnViewSchema,
  clustersViewSchema,
  collectorsViewSchema,
  diagnosticsViewSchema,
  fleetViewSchema,
  lostViewSchema,
  nodeDetailViewSchema,
  nodesViewSchema,
  ownershipViewSchema,
  summaryViewSchema,
  targetsPageSchema,
} from "@/lib/api/schemas";

export interface RouteDoc {
  operationId: string;
  summary: string;
  /** the 200 answer's schema (it carries a `.meta({ id })`) */
  ok: z.ZodType;
  /** what the 200 answer is */
  description: string;
  /** false: the route takes no `?cluster=` and answers no cluster error (404 unknown_cluster, 503 not_ready) */
  cluster?: boolean;
  /** the query schema the route validates with: one parameter per property */
  query?: z.ZodType;
  /** descriptions of query parameters, where the schema's property carries none */
  params?: Record<string, string>;
  /** path parameters: name -> description */
  path?: Record<string, string>;
  /** error answers beyond the cluster's: status -> description (a status listed here replaces the cluster's text) */
  errors?: Record<string, string>;
}

const FROM =
  "range start: milliseconds since the epoch or an ISO 8601 time, from 2000-01-01 and before `to`; default: `last` (one hour) before `to`. " +
  "A range longer than the maximum (the local retention, or 30 days with a Prometheus backend) is clamped: `truncated.range`";

/** Every route under app/api/v1 but the demo-only ones, by OpenAPI path. */
export const API_ROUTES: Readonly<Record<string, RouteDoc>> = {
  "/api/v1/clusters": {
    operationId: "listClusters",
    summary: "The configured clusters and their TAs",
    ok: clustersViewSchema,
    description: "every configured cluster",
    cluster: false,
  },
  "/api/v1/summary": {
    operationId: "getSummary",
    summary: "Overview of one cluster: per-role summaries, monitors, nodes, sources",
    ok: summaryViewSchema,
    description: "the overview",
  },
  "/api/v1/nodes": { operationId: "getNodes", summary: "Node map by zone, zone flows and cross-node flows", ok: nodesViewSchema, description: "the node map" },
  "/api/v1/nodes/{name}": {
    operationId: "getNode",
    summary: "One node: its collectors, the targets located on it and what its collectors scrape for other nodes",
    ok: nodeDetailViewSchema,
    description: "the node's detail",
    path: { name: "the node's name" },
    errors: { "404": "unknown cluster (code unknown_cluster) or node (code unknown_node)" },
  },
  "/api/v1/collectors": {
    operationId: "getCollectors",
    summary: "Targets per collector, imbalance, and where the TA and Kubernetes disagree",
    ok: collectorsViewSchema,
    description: "the collectors",
  },
  "/api/v1/monitors": {
    operationId: "getMonitors",
    summary: "Monitor ownership between the per-node and cluster-scraper TAs",
    ok: ownershipViewSchema,
    description: "every monitor and its ownership",
  },
  "/api/v1/targets": {
    operationId: "getTargets",
    summary: "Who scrapes what: target rows filtered on the server and paginated",
    ok: targetsPageSchema,
    description: "one page of matching targets",
    query: targetQuerySchema,
    params: {
      role: "only targets of this role's TA",
      class: "comma-separated target classes among ghost, nodeless, local, cross_zone, cross_node",
      node: "targets located on this node or scraped by a collector on it",
      collector: "targets assigned to this collector (pod name)",
      job: "targets of this job (exact name)",
      q: "text search in address, job, node and collector (trimmed, case-insensitive; at most 200 characters)",
      offset: "rows to skip",
      limit: "rows per page",
      sort: "sort key",
    },
    errors: { "400": "a bad query parameter, named in the message (code bad_request)" },
  },
  "/api/v1/lost": {
    operationId: "getLost",
    summary: "Unassigned and lost targets: per role the live unassigned count beside the TA's gauge, and the ghosts by collector",
    ok: lostViewSchema,
    description: "unassigned counts and ghost targets per role",
  },
  "/api/v1/churn": {
    operationId: "getChurn",
    summary: "Readiness transitions and target reassignments over a time range",
    ok: churnViewSchema,
    description: "the churn of the range",
    query: churnQuerySchema,
    params: {
      from: FROM,
      to: "range end: milliseconds since the epoch or an ISO 8601 time, at most an hour after the server's time; default: the latest poll's time",
      buckets: "number of timeline buckets, 1 to 1000; default 60",
      last: "with no `from`: the range is this many milliseconds up to `to` (at most a year); default one hour",
      node: "readiness events of this node's collectors and reassignments of its targets only (local history)",
      pod: "readiness events and reassignments of this collector pod only (local history)",
      source: "who answers: `auto` (default: Prometheus when configured and the range starts before local history), `local` or `prometheus`",
    },
    errors: {
      "400": "a bad query parameter, named in the message (code bad_query)",
      "503": "the first poll of the cluster has not finished yet (code not_ready), or the history store cannot be read (code history_unavailable)",
    },
  },
  "/api/v1/diagnostics": {
    operationId: "getDiagnostics",
    summary: "Automated troubleshooting checks, each with status, evidence and fix",
    ok: diagnosticsViewSchema,
    description: "every check",
  },
  "/api/v1/alerts": {
    operationId: "getAlerts",
    summary: "The alerting rules judged on the cluster's current values: which would fire now, since when, with runbook and view",
    ok: alertsViewSchema,
    description: "every rule with its firing or pending instances",
  },
  "/api/v1/fleet": {
    operationId: "getFleet",
    summary: "Every cluster the fleet's metrics backend holds: its figures, status, 24-hour trend and dashboard link, worst first",
    ok: fleetViewSchema,
    description: "one row per cluster; the last good answer, with the backend in `stale`, when the backend fails",
    cluster: false,
    errors: {
      "404": "no fleet is configured (code fleet_not_configured)",
      "502": "the backend failed and there is no earlier answer to show (code fleet_unavailable)",
    },
  },
};

/**
 * Routes under app/api/v1 left out of the document, each with the reason. The demo routes exist in demo mode only (404
 * otherwise) and forward the demo cluster's control API (server/demo-control.ts); their bodies are the demo's fault
 * contract (lib/demo/faults.ts), not views of a cluster, so they are not part of the dashboard's API.
 */
export const UNDOCUMENTED_ROUTES: Readonly<Record<string, string>> = {
  "/api/v1/demo/faults": "demo mode only: forwards the demo cluster's control API (GET, POST, DELETE /faults)",
  "/api/v1/demo/scenario": "demo mode only: forwards the demo cluster's control API (POST /scenario)",
};

/**
 * The OpenAPI path of a route handler file, relative to the repository: `app/api/v1/nodes/[name]/route.ts` ->
 * `/api/v1/nodes/{name}`. Null for a file that is not a route handler.
 */
export function apiPathOf(file: string): string | null {
  const parts = file.split(/[\\/]/);
  if (parts.at(-1) !== "route.ts" || parts[0] !== "app") return null;
  return `/${parts
    .slice(1, -1)
    .map((p) => p.replace(/^\[(.+)\]$/, "{$1}"))
    .join("/")}`;
}
