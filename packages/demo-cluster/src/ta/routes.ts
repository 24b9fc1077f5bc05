/**
 * The TA's routes (docs/target-allocator.md) as a pure function of the request and the current state: no sockets here.
 * Bodies of `/jobs/{job}/targets` are assembled from per-(state, job, collector) JSON fragments cached on first use.
 */
import type { Flavor } from "@allocation-lens/allocation/model";
import { EscapeError, ginRoutingPath, goJson, goJsonFragment, goQueryEscape, goUnescape } from "./encode";
import { jobsHtml, scrapeConfigsHtml } from "./html";
import { scrapeConfigsJson } from "./scrape";
import { jobItems, type TaState } from "./state";

export interface RouteRequest {
  method: string;
  /** the request target as received: raw path plus query */
  url: string;
  accept?: string;
  /** the connection is TLS (secrets in clear on /scrape_configs) */
  tls: boolean;
}

export interface RouteResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** gin's FullPath of the matched route ("" when none): the `path` label of http_duration_seconds */
  route: string;
  /** true when the body is the metrics exposition (the server may gzip it) */
  metrics?: boolean;
}

export interface RouteContext {
  state: TaState;
  flavor: Flavor;
  malformed: boolean;
  renderMetrics: () => string;
}

const JSON_TYPE = { "Content-Type": "application/json" };
const HTML_TYPE = { "Content-Type": "text/html; charset=utf-8", "X-Content-Type-Options": "nosniff" };
const TEXT_TYPE = { "Content-Type": "text/plain; charset=utf-8" };
export const METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const ROUTES = ["/jobs", "/jobs/:job_id/targets", "/scrape_configs", "/metrics", "/livez", "/readyz"] as const;
type Route = (typeof ROUTES)[number];

const notFound = (): RouteResponse => ({ status: 404, headers: TEXT_TYPE, body: "404 page not found\n", route: "" });
const json = (body: string, route: Route, status = 200): RouteResponse => ({ status, headers: JSON_TYPE, body, route });
const truncate = (body: string) => body.slice(0, Math.max(1, Math.floor(body.length / 2)));

function match(path: string): { route: Route; job?: string } | undefined {
  if ((ROUTES as readonly string[]).includes(path) && path !== "/jobs/:job_id/targets") return { route: path as Route };
  const m = /^\/jobs\/([^/]*)\/targets$/.exec(path);
  return m ? { route: "/jobs/:job_id/targets", job: m[1] } : undefined;
}

/** `_link` of a collector entry: cloudwatch (and upstream before v0.129.1) `/jobs/...`, upstream now `/debug/jobs/...`. */
export function collectorLink(flavor: Flavor, job: string, collector: string): string {
  return `${flavor === "upstream" ? "/debug" : ""}/jobs/${goQueryEscape(job)}/targets?collector_id=${collector}`;
}

const fragments = new WeakMap<TaState, Map<string, Map<string, string>>>();

/** JSON array of the items of (job, collector), `[]` when none; cached per state. */
export function itemsJson(state: TaState, job: string, collector: string): string {
  let perJob = fragments.get(state);
  if (!perJob) fragments.set(state, (perJob = new Map()));
  let perCollector = perJob.get(job);
  if (!perCollector) perJob.set(job, (perCollector = new Map()));
  let s = perCollector.get(collector);
  if (s === undefined) {
    const items = jobItems(state, job).get(collector);
    if (!items) return "[]";
    perCollector.set(collector, (s = goJsonFragment(JSON.stringify(items), state.flavor)));
  }
  return s;
}

const jobBodies = new WeakMap<TaState, Map<string, string>>();

/** The whole collector map of a job, cached per state: a large cluster's poll asks for every job once per interval. */
function targetsByJob(ctx: RouteContext, job: string): string {
  if (ctx.malformed) return buildTargetsByJob(ctx, job);
  let perJob = jobBodies.get(ctx.state);
  if (!perJob) jobBodies.set(ctx.state, (perJob = new Map()));
  let body = perJob.get(job);
  if (body === undefined) perJob.set(job, (body = buildTargetsByJob(ctx, job)));
  return body;
}

function buildTargetsByJob(ctx: RouteContext, job: string): string {
  const { state, flavor } = ctx;
  const prefix = `${flavor === "upstream" ? "/debug" : ""}/jobs/${goQueryEscape(job)}/targets?collector_id=`;
  const index = jobItems(state, job);
  const parts: string[] = new Array(state.collectors.length);
  state.collectors.forEach((c, i) => {
    const name = goJsonFragment(JSON.stringify(c), flavor);
    const link = goJsonFragment(JSON.stringify(prefix + c), flavor);
    const n = index.get(c)?.length ?? 0;
    const items = ctx.malformed ? JSON.stringify(`${n} targets`) : n === 0 ? "[]" : itemsJson(state, job, c);
    parts[i] = `${name}:{"_link":${link},"targets":${items}}`;
  });
  return `{${parts.join(",")}}\n`;
}

function targetsForCollector(ctx: RouteContext, job: string, collector: string): string {
  if (!ctx.malformed) return itemsJson(ctx.state, job, collector) + "\n";
  // wrong types: `targets` a string instead of an array, `labels` an array of names instead of an object
  const items = jobItems(ctx.state, job).get(collector) ?? [];
  if (items.length === 0) return '{"targets":null}\n';
  return JSON.stringify(items.map((i) => ({ targets: i.targets[0], labels: Object.keys(i.labels) }))) + "\n";
}

export function handle(req: RouteRequest, ctx: RouteContext): RouteResponse {
  const q = req.url.indexOf("?");
  const rawPath = q < 0 ? req.url : req.url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? "" : req.url.slice(q + 1));
  let path: string;
  try {
    path = ginRoutingPath(rawPath);
  } catch {
    return { status: 400, headers: TEXT_TYPE, body: "400 Bad Request", route: "" };
  }
  const m = match(path);
  if (!m) return notFound();
  if (req.method !== "GET") {
    return { status: 405, headers: { ...TEXT_TYPE, Allow: "GET" }, body: "405 method not allowed\n", route: m.route };
  }
  const { state, flavor } = ctx;
  const html = flavor === "upstream" && (req.accept ?? "").includes("text/html");
  switch (m.route) {
    case "/livez":
      return { status: 200, headers: {}, body: "", route: m.route };
    case "/readyz":
      return { status: state.ready ? 200 : 503, headers: {}, body: "", route: m.route };
    case "/metrics":
      return { status: 200, headers: { "Content-Type": METRICS_TYPE }, body: ctx.renderMetrics(), route: m.route, metrics: true };
    case "/jobs": {
      if (html) return { status: 200, headers: HTML_TYPE, body: jobsHtml(state), route: m.route };
      const out: Record<string, { _link: string }> = {};
      for (const job of [...state.jobs.keys()].sort()) out[job] = { _link: `/jobs/${goQueryEscape(job)}/targets` };
      const body = goJson(out, flavor);
      return json(ctx.malformed ? truncate(body) : body, m.route);
    }
    case "/scrape_configs": {
      if (html) return { status: 200, headers: HTML_TYPE, body: scrapeConfigsHtml(state), route: m.route };
      const body = scrapeConfigsJson(state, req.tls);
      return json(ctx.malformed ? truncate(body) : body, m.route);
    }
    case "/jobs/:job_id/targets": {
      let job: string;
      try {
        job = goUnescape(m.job!, "query");
      } catch (e) {
        if (!(e instanceof EscapeError)) throw e;
        return json(goJson(e.message, flavor), m.route, 500); // gin: errorHandler encodes the url.EscapeError string
      }
      const ids = query.getAll("collector_id");
      return json(ids.length === 0 ? targetsByJob(ctx, job) : targetsForCollector(ctx, job, ids[0]), m.route);
    }
  }
}
