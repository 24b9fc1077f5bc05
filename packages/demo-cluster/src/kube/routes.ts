/**
 * Routing of the demo's Kubernetes API: which request path names which resource (core `/api/v1/...` and
 * `/apis/monitoring.coreos.com/v1/...`, namespaced or not, the legacy `/watch/` prefix), and the dispatch of a request to
 * health, namespaces, a resource or discovery. Only GET is served, but for Leases (leases.ts: create, update, delete).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { methodNotAllowed, NOT_FOUND } from "./answers";
import { APPS_GROUP, APPS_VERSION, MONITORING_GROUP, MONITORING_VERSION, RESOURCE_INFO, type ResourceInfo } from "./discovery";
import { matchLeases } from "./leases";
import type { ResourceHandlers } from "./resources";

export interface ResourceRoute {
  info: ResourceInfo;
  namespace?: string;
  name?: string;
  /** legacy /watch/ path prefix */
  watchPrefix: boolean;
}

/** Matches /api/v1/... and /apis/monitoring.coreos.com/v1/... resource paths. */
export function matchResource(segments: string[]): ResourceRoute | undefined | "notFound" {
  let group: string;
  let rest: string[];
  if (segments[0] === "api" && segments[1] === "v1" && segments.length > 2) {
    group = "";
    rest = segments.slice(2);
  } else if (segments[0] === "apis" && segments[1] === APPS_GROUP && segments[2] === APPS_VERSION && segments.length > 3) {
    group = APPS_GROUP;
    rest = segments.slice(3);
  } else if (segments[0] === "apis" && segments[1] === MONITORING_GROUP && segments[2] === MONITORING_VERSION && segments.length > 3) {
    group = MONITORING_GROUP;
    rest = segments.slice(3);
  } else return undefined;
  let watchPrefix = false;
  if (rest[0] === "watch") {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length < 1 || rest.length > 2) return "notFound";
  const info = Object.values(RESOURCE_INFO).find((r) => r.resource === rest[0] && r.group === group);
  if (!info) return "notFound";
  if (namespace !== undefined && !info.namespaced) return "notFound";
  return { info, namespace, name: rest[1], watchPrefix };
}

/** Routes one request to `h`. */
export function handle(req: IncomingMessage, res: ServerResponse, h: ResourceHandlers): void {
  const url = new URL(req.url ?? "/", "http://localhost");
  const p = url.pathname.replace(/\/+$/, "") || "/";
  if (p === "/healthz" || p === "/readyz" || p === "/livez" || p.startsWith("/healthz/") || p.startsWith("/readyz/") || p.startsWith("/livez/")) {
    h.count("health");
    res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
    res.end("ok");
    return;
  }
  const segments = p.split("/").filter(Boolean).map(decodeURIComponent);
  if (segments[0] === "api" && segments[1] === "v1" && segments[2] === "namespaces" && segments.length <= 4) {
    if (req.method !== "GET") {
      res.setHeader("Allow", "GET");
      return h.fail(res, methodNotAllowed(), "methodNotAllowed");
    }
    return h.serveNamespaces(segments[3], req, res, url.searchParams);
  }
  const leases = matchLeases(segments);
  if (leases === "notFound") return h.fail(res, NOT_FOUND, "notFound");
  if (leases) return h.serveLeases(leases, req, res, url.searchParams);
  const route = matchResource(segments);
  const known = route !== undefined && route !== "notFound";
  const isDiscovery = !known && (p === "/version" || p === "/api" || p === "/apis" || p.startsWith("/api/") || p.startsWith("/apis/"));
  if (req.method !== "GET" && (known || isDiscovery)) {
    res.setHeader("Allow", "GET");
    return h.fail(res, methodNotAllowed(), "methodNotAllowed");
  }
  if (known) return h.serveResource(route, req, res, url.searchParams);
  if (req.method === "GET" && h.serveDiscovery(p, res)) return;
  if (p.startsWith("/openapi/")) return h.fail(res, NOT_FOUND, "openapi");
  h.fail(res, NOT_FOUND, "notFound");
}
