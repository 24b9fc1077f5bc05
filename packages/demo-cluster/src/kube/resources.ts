/**
 * What the demo's Kubernetes API serves out of its Store: discovery documents, list, get and watch of pods, nodes,
 * servicemonitors and podmonitors (label and field selectors, resourceVersion, 410 Gone, meta.k8s.io Tables), and the
 * namespaces derived from the objects; Leases (leases.ts). Counts every answer for `stats()`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Resource, Store } from "../store";
import { NOT_FOUND, sendJson, status } from "./answers";
import {
  apiGroupList,
  APPS_GROUP,
  APPS_VERSION,
  appsGroup,
  appsResourceList,
  apiVersions,
  coreResourceList,
  MONITORING_GROUP,
  MONITORING_VERSION,
  monitoringGroup,
  monitoringGroupPresent,
  monitoringResourceList,
  versionInfo,
} from "./discovery";
import { coordinationGroup, coordinationResourceList, COORDINATION_GROUP, COORDINATION_VERSION, LeaseStore } from "./leases";
import { namespaceObjects, namespaceTable } from "./namespaces";
import type { ResourceRoute } from "./routes";
import { allOf, fieldSelectorPredicate, labelSelectorPredicate, type Predicate, SelectorError } from "./selectors";
import { renderTable, tableRequest, type TableRequest } from "./tables";
import { type ActiveWatch, expiredStatus, serveWatch, withTypeMeta } from "./watch";

type Params = URLSearchParams;

export interface ResourceContext {
  store: Store;
  /** the open watch streams, so that the server can drop or end them */
  watches: Set<ActiveWatch>;
  bookmarkIntervalMs: number;
  /** server-side timeout of watches without timeoutSeconds: random in [min, max] seconds */
  watchTimeoutSeconds: [number, number];
  /** host:port of the server, for /api's serverAddressByClientCIDRs (known once it listens) */
  serverAddress(): string;
  /** the creation time of the derived namespaces */
  startedAt: string;
  /** counts one answer under each key */
  count(...keys: string[]): void;
}

export interface ResourceHandlers {
  count(...keys: string[]): void;
  /** answers a failure `Status` and counts it under `kind` */
  fail(res: ServerResponse, body: Record<string, unknown>, kind: string): void;
  /** serves a discovery document for `path`; false when `path` is none */
  serveDiscovery(path: string, res: ServerResponse): boolean;
  serveResource(route: ResourceRoute, req: IncomingMessage, res: ServerResponse, q: Params): void;
  serveNamespaces(name: string | undefined, req: IncomingMessage, res: ServerResponse, q: Params): void;
  serveLeases(route: { namespace?: string; name?: string }, req: IncomingMessage, res: ServerResponse, q: Params): void;
  /** the Leases written through the API (tests) */
  leases: LeaseStore;
}

export function resourceHandlers(ctx: ResourceContext): ResourceHandlers {
  const { store, watches, bookmarkIntervalMs, startedAt, count } = ctx;
  const [minTimeout, maxTimeout] = ctx.watchTimeoutSeconds;
  const leases = new LeaseStore(count);

  const fail = (res: ServerResponse, body: Record<string, unknown>, kind: string) => {
    count(kind);
    sendJson(res, body.code as number, body);
  };

  function serveDiscovery(path: string, res: ServerResponse): boolean {
    const docs: Record<string, () => unknown> = {
      "/version": versionInfo,
      "/api": () => apiVersions(ctx.serverAddress()),
      "/api/v1": coreResourceList,
      "/apis": () => apiGroupList(store.missing, [appsGroup(), coordinationGroup()]),
      [`/apis/${APPS_GROUP}`]: () => ({ kind: "APIGroup", apiVersion: "v1", ...(appsGroup() as object) }),
      [`/apis/${APPS_GROUP}/${APPS_VERSION}`]: appsResourceList,
      [`/apis/${COORDINATION_GROUP}`]: () => ({ kind: "APIGroup", apiVersion: "v1", ...coordinationGroup() }),
      [`/apis/${COORDINATION_GROUP}/${COORDINATION_VERSION}`]: coordinationResourceList,
      [`/apis/${MONITORING_GROUP}`]: () => (monitoringGroupPresent(store.missing) ? monitoringGroup() : undefined),
      [`/apis/${MONITORING_GROUP}/${MONITORING_VERSION}`]: () => monitoringResourceList(store.missing),
    };
    const doc = docs[path];
    if (!doc) return false;
    const body = doc();
    if (body === undefined) fail(res, NOT_FOUND, "notFound");
    else {
      count(path === "/version" ? "version" : "discovery");
      sendJson(res, 200, body);
    }
    return true;
  }

  function filterFor(route: ResourceRoute, q: Params): Predicate | undefined {
    const { info, namespace, name } = route;
    const byNamespace: Predicate | undefined = namespace !== undefined ? (o) => o.metadata.namespace === namespace : undefined;
    const byName: Predicate | undefined = name !== undefined ? (o) => o.metadata.name === name : undefined;
    return allOf(byNamespace, byName, labelSelectorPredicate(q.get("labelSelector")), fieldSelectorPredicate(q.get("fieldSelector"), info.resource));
  }

  function serveResource(route: ResourceRoute, req: IncomingMessage, res: ServerResponse, q: Params): void {
    const { info, namespace, name } = route;
    const resource: Resource = info.resource;
    if (store.missing.has(resource)) return fail(res, NOT_FOUND, "notFound");
    const table: TableRequest | undefined = tableRequest(req.headers.accept, q.get("includeObject"));
    const watch = route.watchPrefix || q.get("watch") === "true" || q.get("watch") === "1";
    let filter: Predicate | undefined;
    try {
      filter = filterFor(route, q);
    } catch (err) {
      if (err instanceof SelectorError) return fail(res, status(400, "BadRequest", err.message), "badRequest");
      throw err;
    }
    const rvParam = q.get("resourceVersion") ?? "";
    if (rvParam !== "" && !/^\d+$/.test(rvParam)) {
      return fail(res, status(400, "BadRequest", `resourceVersion: Invalid value: "${rvParam}": must be a number`), "badRequest");
    }

    if (watch) {
      const ts = q.get("timeoutSeconds");
      const timeoutSeconds = ts && /^\d+$/.test(ts) && Number(ts) > 0 ? Number(ts) : minTimeout + Math.random() * (maxTimeout - minTimeout);
      count("watch", `watch:${resource}`);
      const active = serveWatch(req, res, {
        store,
        info,
        filter,
        namespace,
        resourceVersion: rvParam,
        bookmarks: q.get("allowWatchBookmarks") === "true" || q.get("allowWatchBookmarks") === "1",
        bookmarkIntervalMs,
        timeoutSeconds,
        encode: (o, first) =>
          table
            ? renderTable(resource, [o], table, { resourceVersion: o.metadata.resourceVersion ?? "", noHeaders: !first })
            : o,
      });
      if (active.expired) count("gone", `gone:${resource}`);
      else {
        watches.add(active);
        res.on("close", () => watches.delete(active));
      }
      return;
    }

    const rv = String(store.resourceVersion);
    if (name !== undefined) {
      const o = store.get(resource, namespace, name);
      if (!o) {
        return fail(res, status(404, "NotFound", `${resource}${info.group ? "." + info.group : ""} "${name}" not found`, { name, group: info.group || undefined, kind: resource }), "notFound");
      }
      count("get", `get:${resource}`);
      const typed = withTypeMeta(o, info);
      return sendJson(res, 200, table ? renderTable(resource, [typed], table, { resourceVersion: rv }) : typed);
    }

    if (rvParam !== "" && rvParam !== "0" && Number(rvParam) < store.oldestResumable) {
      count(`gone:${resource}`);
      return fail(res, expiredStatus(`too old resource version: ${rvParam} (${store.oldestResumable})`), "gone");
    }
    count("list", `list:${resource}`);
    const items = store.list(resource, namespace).filter((o) => !filter || filter(o));
    if (table) return sendJson(res, 200, renderTable(resource, items, table, { resourceVersion: rv }));
    sendJson(res, 200, { kind: info.listKind, apiVersion: info.apiVersion, metadata: { resourceVersion: rv }, items });
  }

  function serveNamespaces(name: string | undefined, req: IncomingMessage, res: ServerResponse, q: Params): void {
    if (q.get("watch") === "true" || q.get("watch") === "1") {
      res.setHeader("Allow", "GET");
      return fail(res, status(405, "MethodNotAllowed", "watch is not supported on namespaces by the demo cluster"), "methodNotAllowed");
    }
    const table = tableRequest(req.headers.accept, q.get("includeObject"));
    const rv = String(store.resourceVersion);
    let items = namespaceObjects(store, startedAt);
    if (name !== undefined) {
      const o = items.find((n) => n.metadata.name === name);
      if (!o) return fail(res, status(404, "NotFound", `namespaces "${name}" not found`, { name, kind: "namespaces" }), "notFound");
      count("get", "get:namespaces");
      return sendJson(res, 200, table ? namespaceTable([o], table, rv) : o);
    }
    try {
      const filter = labelSelectorPredicate(q.get("labelSelector"));
      if (filter) items = items.filter(filter);
    } catch (err) {
      if (err instanceof SelectorError) return fail(res, status(400, "BadRequest", err.message), "badRequest");
      throw err;
    }
    count("list", "list:namespaces");
    if (table) return sendJson(res, 200, namespaceTable(items, table, rv));
    sendJson(res, 200, { kind: "NamespaceList", apiVersion: "v1", metadata: { resourceVersion: rv }, items });
  }

  function serveLeases(route: { namespace?: string; name?: string }, req: IncomingMessage, res: ServerResponse, q: Params): void {
    leases.serve(route, req, res, q).catch((err) => {
      if (!res.headersSent) fail(res, status(500, "InternalError", `Internal error occurred: ${(err as Error).message}`), "internal");
      else res.destroy();
    });
  }

  return { count, fail, serveDiscovery, serveResource, serveNamespaces, serveLeases, leases };
}
