/**
 * Routing of the demo's Kubernetes API: which request path names which resource (core `/api/v1/...`, `/apis/apps/v1`,
 * `/apis/discovery.k8s.io/v1` and `/apis/monitoring.coreos.com/v1/...`, namespaced or not, the legacy `/watch/` prefix),
 * and the dispatch of a request to health, namespaces, a resource, a self-subject access review or discovery. Content
 * negotiation is kube-apiserver's for a CRD: JSON whenever the Accept header allows it, 406 for an Accept that lists only
 * protobuf or CBOR; a SelfSubjectAccessReview or Event body is read as JSON or protobuf (client-go writes built-in kinds
 * in protobuf), any other media type gets 415. Only GET is served, but for Leases (leases.ts: create, update,
 * delete), SelfSubjectAccessReviews (create) and Events (create, answered and not kept).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { methodNotAllowed, NOT_FOUND, status } from "./answers";
import { AUTHORIZATION_GROUP, AUTHORIZATION_VERSION, RESOURCE_INFO, type ResourceInfo } from "./discovery";
import { matchLeases, type LeaseStore } from "./leases";
import { PROTOBUF } from "./protobuf";

/** What the dispatch hands a request to (resources.ts implements it). */
export interface ResourceHandlers {
  count(...keys: string[]): void;
  /** answers a failure `Status` and counts it under `kind` */
  fail(res: ServerResponse, body: Record<string, unknown>, kind: string): void;
  /** serves a discovery document for `path`; false when `path` is none */
  serveDiscovery(path: string, res: ServerResponse): boolean;
  serveResource(route: ResourceRoute, req: IncomingMessage, res: ServerResponse, q: URLSearchParams): void;
  serveNamespaces(name: string | undefined, req: IncomingMessage, res: ServerResponse, q: URLSearchParams, watchPrefix?: boolean): void;
  serveLeases(route: { namespace?: string; name?: string }, req: IncomingMessage, res: ServerResponse, q: URLSearchParams): void;
  /** POST of a SelfSubjectAccessReview */
  serveAccessReview(req: IncomingMessage, res: ServerResponse): void;
  /** POST of a core or events.k8s.io Event: answered 201 and not kept */
  serveEventCreate(segments: string[], req: IncomingMessage, res: ServerResponse): void;
  /** the Leases written through the API (tests) */
  leases: LeaseStore;
}

export interface ResourceRoute {
  info: ResourceInfo;
  namespace?: string;
  name?: string;
  /** legacy /watch/ path prefix */
  watchPrefix: boolean;
}

/** group -> version of every group with served resources (apps, discovery.k8s.io, monitoring.coreos.com) */
const SERVED_GROUPS = new Map(Object.values(RESOURCE_INFO).filter((r) => r.group !== "").map((r) => [r.group, r.version]));

/** Matches /api/v1/... and /apis/<group>/<version>/... resource paths. */
export function matchResource(segments: string[]): ResourceRoute | undefined | "notFound" {
  let group: string;
  let rest: string[];
  if (segments[0] === "api" && segments[1] === "v1" && segments.length > 2) {
    group = "";
    rest = segments.slice(2);
  } else if (segments[0] === "apis" && SERVED_GROUPS.get(segments[1]) === segments[2] && segments.length > 3) {
    group = segments[1];
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

/** `/apis/authorization.k8s.io/v1/selfsubjectaccessreviews` */
const isAccessReview = (s: string[]) =>
  s.length === 4 && s[0] === "apis" && s[1] === AUTHORIZATION_GROUP && s[2] === AUTHORIZATION_VERSION && s[3] === "selfsubjectaccessreviews";

/** `/api/v1/namespaces/NS/events` or `/apis/events.k8s.io/v1/namespaces/NS/events` */
const isEventsCollection = (s: string[]) =>
  (s.length === 5 && s[0] === "api" && s[1] === "v1" && s[2] === "namespaces" && s[4] === "events") ||
  (s.length === 6 && s[0] === "apis" && s[1] === "events.k8s.io" && s[2] === "v1" && s[3] === "namespaces" && s[5] === "events");

/**
 * Whether an Accept header allows JSON: absent, empty, or listing application/json, application/\*, \*\/\* (with any
 * parameters, a Table or PartialObjectMetadata clause included) — kube-apiserver serves a CRD's resources only as JSON
 * (and YAML), so a client that accepts only protobuf or CBOR gets 406.
 */
export function acceptsJson(accept: string | undefined): boolean {
  if (!accept || !accept.trim()) return true;
  return accept.split(",").some((clause) => {
    const type = clause.split(";")[0].trim().toLowerCase();
    return type === "application/json" || type === "application/*" || type === "*/*" || type === "";
  });
}

/** Whether a request body's Content-Type is JSON (absent counts as JSON, as for kubectl's and client-go's JSON writes). */
export function bodyIsJson(contentType: string | undefined): boolean {
  if (!contentType) return true;
  const type = contentType.split(";")[0].trim().toLowerCase();
  return type === "application/json" || type === "application/merge-patch+json" || type === "application/strategic-merge-patch+json" || type === "application/apply-patch+yaml";
}

export const isProtobuf = (contentType: string | undefined): boolean => (contentType ?? "").split(";")[0].trim().toLowerCase() === PROTOBUF;

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
  if (!acceptsJson(req.headers.accept)) {
    return h.fail(res, status(406, "NotAcceptable", `only the following media types are accepted: application/json, application/yaml`), "notAcceptable");
  }
  const segments = p.split("/").filter(Boolean).map(decodeURIComponent);
  // the bodies read here are JSON, or protobuf as client-go writes built-in kinds (protobuf.ts); any other: 415
  if ((isAccessReview(segments) || isEventsCollection(segments)) && req.method === "POST" && !bodyIsJson(req.headers["content-type"]) && !isProtobuf(req.headers["content-type"])) {
    return h.fail(
      res,
      status(415, "UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`),
      "unsupportedMediaType",
    );
  }
  if (isAccessReview(segments)) {
    if (req.method !== "POST") {
      res.setHeader("Allow", "POST");
      return h.fail(res, methodNotAllowed(), "methodNotAllowed");
    }
    return h.serveAccessReview(req, res);
  }
  if (isEventsCollection(segments) && req.method === "POST") return h.serveEventCreate(segments, req, res);
  const nsWatchPrefix = segments[0] === "api" && segments[1] === "v1" && segments[2] === "watch" && segments[3] === "namespaces" && segments.length <= 5;
  if ((segments[0] === "api" && segments[1] === "v1" && segments[2] === "namespaces" && segments.length <= 4) || nsWatchPrefix) {
    if (req.method !== "GET") {
      res.setHeader("Allow", "GET");
      return h.fail(res, methodNotAllowed(), "methodNotAllowed");
    }
    return h.serveNamespaces(segments[nsWatchPrefix ? 4 : 3], req, res, url.searchParams, nsWatchPrefix);
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
