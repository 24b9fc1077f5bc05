/**
 * What the demo's Kubernetes API serves out of its Store: discovery documents, list, get and watch of pods, nodes,
 * services, endpointslices (discovery.k8s.io/v1), configmaps, secrets, deployments, daemonsets, servicemonitors and podmonitors
 * (label and field selectors, resourceVersion and resourceVersionMatch, 410 Gone, bookmarks, the watch-list protocol's
 * sendInitialEvents, meta.k8s.io Tables and PartialObjectMetadata), the namespaces derived from the objects (list, get,
 * watch), SelfSubjectAccessReviews (auth.ts decides), Events (created and not kept) and Leases (leases.ts). Counts every
 * answer for `stats()`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { KubeObject, Resource, Store } from "../store";
import { readBody } from "../json-body";
import { NOT_FOUND, sendJson, status } from "./answers";
import { accessReview, userOf, type ResourceAttributes } from "./auth";
import {
  apiGroupList,
  APPS_GROUP,
  APPS_VERSION,
  appsGroup,
  appsResourceList,
  apiVersions,
  AUTHORIZATION_GROUP,
  AUTHORIZATION_VERSION,
  authorizationGroup,
  authorizationResourceList,
  coreResourceList,
  DISCOVERY_GROUP,
  DISCOVERY_VERSION,
  discoveryGroup,
  discoveryResourceList,
  MONITORING_GROUP,
  MONITORING_VERSION,
  monitoringGroup,
  monitoringGroupPresent,
  monitoringResourceList,
  versionInfo,
} from "./discovery";
import { coordinationGroup, coordinationResourceList, COORDINATION_GROUP, COORDINATION_VERSION, LeaseStore } from "./leases";
import { decodeAccessReviewSpec, decodeEnvelope } from "./protobuf";
import { isProtobuf } from "./routes";
import { metadataRequest, partialList, partialObject, type MetadataRequest } from "./metadata";
import { NAMESPACE_KIND, NamespaceTracker, namespaceTable } from "./namespaces";
import type { ResourceHandlers, ResourceRoute } from "./routes";
import { allOf, fieldSelectorPredicate, labelSelectorPredicate, parseFieldSelector, type Predicate, SelectorError } from "./selectors";
import { renderTable, tableRequest, type TableRequest } from "./tables";
import { pageOf, type Page, type PageError } from "./paging";
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

export function resourceHandlers(ctx: ResourceContext): ResourceHandlers {
  const { store, watches, bookmarkIntervalMs, startedAt, count } = ctx;
  const [minTimeout, maxTimeout] = ctx.watchTimeoutSeconds;
  const leases = new LeaseStore(count);
  const namespaces = new NamespaceTracker(store, startedAt);

  const fail = (res: ServerResponse, body: Record<string, unknown>, kind: string) => {
    count(kind);
    sendJson(res, body.code as number, body);
  };

  function serveDiscovery(path: string, res: ServerResponse): boolean {
    const docs: Record<string, () => unknown> = {
      "/version": versionInfo,
      "/api": () => apiVersions(ctx.serverAddress()),
      "/api/v1": coreResourceList,
      "/apis": () => apiGroupList(store.missing, [appsGroup(), authorizationGroup(), coordinationGroup(), discoveryGroup()]),
      [`/apis/${APPS_GROUP}`]: () => ({ kind: "APIGroup", apiVersion: "v1", ...(appsGroup() as object) }),
      [`/apis/${APPS_GROUP}/${APPS_VERSION}`]: appsResourceList,
      [`/apis/${AUTHORIZATION_GROUP}`]: () => ({ kind: "APIGroup", apiVersion: "v1", ...(authorizationGroup() as object) }),
      [`/apis/${AUTHORIZATION_GROUP}/${AUTHORIZATION_VERSION}`]: authorizationResourceList,
      [`/apis/${DISCOVERY_GROUP}`]: () => ({ kind: "APIGroup", apiVersion: "v1", ...(discoveryGroup() as object) }),
      [`/apis/${DISCOVERY_GROUP}/${DISCOVERY_VERSION}`]: discoveryResourceList,
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
    const meta: MetadataRequest | undefined = table ? undefined : metadataRequest(req.headers.accept);
    const watch = route.watchPrefix || q.get("watch") === "true" || q.get("watch") === "1";
    let filter: Predicate | undefined;
    try {
      filter = filterFor(route, q);
    } catch (err) {
      if (err instanceof SelectorError) return fail(res, status(400, "BadRequest", err.message), "badRequest");
      throw err;
    }
    const checked = checkListOptions(q, watch, info.listKind);
    if (typeof checked !== "string") return fail(res, checked, "badRequest");
    const rvParam = checked;

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
        sendInitialEvents: isTrue(q.get("sendInitialEvents")),
        bookmarkIntervalMs,
        timeoutSeconds,
        bookmark: meta ? (rv) => ({ kind: "PartialObjectMetadata", apiVersion: meta.apiVersion, metadata: { resourceVersion: rv } }) : undefined,
        encode: (o, first) =>
          table
            ? renderTable(resource, [o], table, { resourceVersion: o.metadata.resourceVersion ?? "", noHeaders: !first })
            : meta
              ? partialObject(o, meta)
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
      return sendJson(res, 200, table ? renderTable(resource, [typed], table, { resourceVersion: rv }) : meta ? partialObject(typed, meta) : typed);
    }

    const gone = listGone(rvParam, q.get("resourceVersionMatch"));
    if (gone) {
      count(`gone:${resource}`);
      return fail(res, gone, "gone");
    }
    const page = pageFor(store.list(resource, namespace).filter((o) => !filter || filter(o)), q);
    if ("code" in page) return pageFailure(res, page, resource);
    count("list", `list:${resource}`);
    if (table) return sendJson(res, 200, renderTable(resource, page.items, table, { resourceVersion: page.resourceVersion, ...listMeta(page) }));
    if (meta) return sendJson(res, 200, partialList(page.items, meta, page.resourceVersion, listMeta(page)));
    // a custom resource's list (served by kube-apiserver's unstructured handler) always names `continue`, empty on the last page
    const custom = info.group === MONITORING_GROUP ? { continue: "" } : {};
    sendJson(res, 200, { kind: info.listKind, apiVersion: info.apiVersion, metadata: { resourceVersion: page.resourceVersion, ...custom, ...listMeta(page) }, items: page.items.map(withoutTypeMeta) });
  }

  /** The page of `items` a list request asks for (limit, continue), against the store's current and oldest resourceVersions. */
  function pageFor(items: readonly KubeObject[], q: URLSearchParams): Page | PageError {
    return pageOf(items, { limit: q.get("limit"), continue: q.get("continue"), rv: store.resourceVersion, oldest: store.oldestResumable, selected: !!(q.get("labelSelector") || q.get("fieldSelector")) });
  }

  function pageFailure(res: ServerResponse, e: PageError, resource: string): void {
    count(e.code === 410 ? `gone:${resource}` : "badRequest");
    fail(res, e.code === 410 ? expiredStatus(e.message) : status(400, "BadRequest", e.message), e.code === 410 ? "gone" : "badRequest");
  }

  /** A page's list metadata beyond its resourceVersion. */
  function listMeta(page: Page): { continue?: string; remainingItemCount?: number } {
    return { ...(page.continue ? { continue: page.continue } : {}), ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}) };
  }

  /** A list's items as kube-apiserver encodes them in JSON: without their own kind and apiVersion (the list has them). */
  function withoutTypeMeta(o: KubeObject): KubeObject {
    const rest: Record<string, unknown> = { ...o };
    delete rest.kind;
    delete rest.apiVersion;
    return rest as KubeObject;
  }

  /**
   * A list at `rv` that the demo cannot serve: older than its event log (410, as after etcd's compaction), or an Exact
   * match of any other resourceVersion than the current one (the demo keeps no old states; 410 sends the client back to
   * a fresh list, as for a compacted one).
   */
  function listGone(rv: string, match: string | null): Record<string, unknown> | undefined {
    if (rv === "" || rv === "0") return undefined;
    if (Number(rv) < store.oldestResumable) return expiredStatus(`too old resource version: ${rv} (${store.oldestResumable})`);
    if (match === "Exact" && Number(rv) !== store.resourceVersion) return expiredStatus(`too old resource version: ${rv} (${store.resourceVersion})`);
    return undefined;
  }

  /** The NamespaceList, one Namespace, or a watch of them. */

  function serveNamespaces(name: string | undefined, req: IncomingMessage, res: ServerResponse, q: Params, watchPrefix = false): void {
    const table = tableRequest(req.headers.accept, q.get("includeObject"));
    const meta = table ? undefined : metadataRequest(req.headers.accept);
    const watch = watchPrefix || isTrue(q.get("watch"));
    let filter: Predicate | undefined;
    try {
      const byName: Predicate | undefined = name !== undefined ? (o) => o.metadata.name === name : undefined;
      filter = allOf(byName, labelSelectorPredicate(q.get("labelSelector")), namespaceFieldPredicate(q.get("fieldSelector")));
    } catch (err) {
      if (err instanceof SelectorError) return fail(res, status(400, "BadRequest", err.message), "badRequest");
      throw err;
    }
    const checked = checkListOptions(q, watch, "NamespaceList");
    if (typeof checked !== "string") return fail(res, checked, "badRequest");
    const rvParam = checked;
    if (watch) {
      const ts = q.get("timeoutSeconds");
      const timeoutSeconds = ts && /^\d+$/.test(ts) && Number(ts) > 0 ? Number(ts) : minTimeout + Math.random() * (maxTimeout - minTimeout);
      count("watch", "watch:namespaces");
      const active = serveWatch(req, res, {
        store,
        info: NAMESPACE_KIND,
        source: namespaces.source(),
        filter,
        resourceVersion: rvParam,
        bookmarks: isTrue(q.get("allowWatchBookmarks")),
        sendInitialEvents: isTrue(q.get("sendInitialEvents")),
        bookmarkIntervalMs,
        timeoutSeconds,
        bookmark: meta ? (rv) => ({ kind: "PartialObjectMetadata", apiVersion: meta.apiVersion, metadata: { resourceVersion: rv } }) : undefined,
        encode: (o, first) => (table ? namespaceTable([o], table, o.metadata.resourceVersion ?? "", undefined, !first) : meta ? partialObject(o, meta) : o),
      });
      if (active.expired) count("gone", "gone:namespaces");
      else {
        watches.add(active);
        res.on("close", () => watches.delete(active));
      }
      return;
    }
    const rv = String(store.resourceVersion);
    let items = namespaces.objects();
    if (name !== undefined) {
      const o = items.find((n) => n.metadata.name === name);
      if (!o) return fail(res, status(404, "NotFound", `namespaces "${name}" not found`, { name, kind: "namespaces" }), "notFound");
      count("get", "get:namespaces");
      return sendJson(res, 200, table ? namespaceTable([o], table, rv) : meta ? partialObject(o, meta) : o);
    }
    const gone = listGone(rvParam, q.get("resourceVersionMatch"));
    if (gone) {
      count("gone:namespaces");
      return fail(res, gone, "gone");
    }
    if (filter) items = items.filter(filter);
    const page = pageFor(items, q);
    if ("code" in page) return pageFailure(res, page, "namespaces");
    count("list", "list:namespaces");
    if (table) return sendJson(res, 200, namespaceTable(page.items, table, page.resourceVersion, undefined, false, listMeta(page)));
    if (meta) return sendJson(res, 200, partialList(page.items, meta, page.resourceVersion, listMeta(page)));
    sendJson(res, 200, { kind: "NamespaceList", apiVersion: "v1", metadata: { resourceVersion: page.resourceVersion, ...listMeta(page) }, items: page.items.map(withoutTypeMeta) });
  }

  function serveAccessReview(req: IncomingMessage, res: ServerResponse): void {
    readBody(req, 1 << 20)
      .then((bytes) => {
        type Spec = { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: unknown };
        let spec: Spec;
        try {
          spec = isProtobuf(req.headers["content-type"])
            ? decodeAccessReviewSpec(decodeEnvelope(bytes).raw)
            : (((JSON.parse(bytes.toString("utf8") || "{}") as { spec?: Spec }).spec ?? {}) as Spec);
        } catch (err) {
          return fail(res, status(400, "BadRequest", `the body of the request could not be decoded: ${(err as Error).message}`), "badRequest");
        }
        if (!!spec.resourceAttributes === !!spec.nonResourceAttributes) {
          return fail(
            res,
            status(422, "Invalid", `SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified`, {
              group: AUTHORIZATION_GROUP,
              kind: "SelfSubjectAccessReview",
            }),
            "invalid",
          );
        }
        count("create", "create:selfsubjectaccessreviews");
        sendJson(res, 201, {
          kind: "SelfSubjectAccessReview",
          apiVersion: `${AUTHORIZATION_GROUP}/${AUTHORIZATION_VERSION}`,
          metadata: { creationTimestamp: null },
          spec,
          status: accessReview(userOf(req.headers.authorization), spec.resourceAttributes, !!spec.nonResourceAttributes),
        });
      })
      .catch((err: Error) => fail(res, status(400, "BadRequest", `the body of the request could not be read: ${err.message}`), "badRequest"));
  }

  function serveEventCreate(segments: string[], req: IncomingMessage, res: ServerResponse): void {
    const namespace = segments[0] === "api" ? segments[3] : segments[4];
    const kind = { kind: "Event", apiVersion: segments[0] === "api" ? "v1" : "events.k8s.io/v1" };
    readBody(req, 1 << 20)
      .then((bytes) => {
        // a protobuf Event is taken as it is, unread: events are answered and not kept
        const event = (isProtobuf(req.headers["content-type"]) ? { ...kind, metadata: { name: "" } } : JSON.parse(bytes.toString("utf8") || "{}")) as KubeObject;
        const metadata = { ...(event.metadata ?? {}) } as KubeObject["metadata"];
        if (metadata.namespace !== undefined && metadata.namespace !== namespace) {
          return fail(res, status(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request"), "badRequest");
        }
        const name = metadata.name || `${metadata.generateName ?? "event."}${Date.now().toString(16)}`;
        count("create", "create:events");
        sendJson(res, 201, {
          ...event,
          metadata: { ...metadata, name, namespace, uid: `event-${name}`, resourceVersion: String(store.resourceVersion), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z") },
        });
      })
      .catch((err: Error) => fail(res, status(400, "BadRequest", `the body of the request could not be read: ${err.message}`), "badRequest"));
  }

  function serveLeases(route: { namespace?: string; name?: string }, req: IncomingMessage, res: ServerResponse, q: Params): void {
    leases.serve(route, req, res, q).catch((err) => {
      if (!res.headersSent) fail(res, status(500, "InternalError", `Internal error occurred: ${(err as Error).message}`), "internal");
      else res.destroy();
    });
  }

  return { count, fail, serveDiscovery, serveResource, serveNamespaces, serveLeases, serveAccessReview, serveEventCreate, leases };
}

const isTrue = (v: string | null) => v === "true" || v === "1";

/** Namespaces are selected by metadata.name only (and status.phase, always Active here). */
function namespaceFieldPredicate(selector: string | null): Predicate | undefined {
  if (!selector || !selector.trim()) return undefined;
  const reqs = parseFieldSelector(selector);
  const fields: Record<string, (o: KubeObject) => string> = { "metadata.name": (o) => o.metadata.name, "status.phase": () => "Active" };
  const checks = reqs.map((r) => {
    const get = fields[r.field];
    if (!get) throw new SelectorError(`field label not supported: ${r.field}`);
    return (o: KubeObject) => (get(o) === r.value) === (r.operator === "=");
  });
  return checks.length ? (o) => checks.every((c) => c(o)) : undefined;
}

/**
 * The request's resourceVersion once its list options are valid as kube-apiserver checks them, else the 400 Status:
 * a resourceVersion must be a number; resourceVersionMatch (Exact, NotOlderThan) needs a resourceVersion and no watch,
 * and Exact not "0"; sendInitialEvents only on a watch, with allowWatchBookmarks and resourceVersionMatch=NotOlderThan.
 */
export function checkListOptions(q: URLSearchParams, watch: boolean, listKind: string): string | Record<string, unknown> {
  const rv = q.get("resourceVersion") ?? "";
  const match = q.get("resourceVersionMatch") ?? "";
  const initial = q.get("sendInitialEvents");
  const invalid = (field: string, value: string, why: string) =>
    status(422, "Invalid", `${listKind} is invalid: ${field}: ${value === "" ? "Forbidden" : `Invalid value: "${value}"`}: ${why}`, { kind: listKind });
  if (rv !== "" && !/^\d+$/.test(rv)) return status(400, "BadRequest", `resourceVersion: Invalid value: "${rv}": must be a number`);
  if (initial !== null) {
    if (!watch) return invalid("sendInitialEvents", "", "sendInitialEvents is forbidden for list");
    if (!isTrue(q.get("allowWatchBookmarks"))) return invalid("allowWatchBookmarks", "", "allowWatchBookmarks required when sendInitialEvents is set");
    if (isTrue(initial) && match !== "NotOlderThan") return invalid("resourceVersionMatch", match, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
    return rv;
  }
  if (match !== "") {
    if (watch) return invalid("resourceVersionMatch", "", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided");
    if (match !== "Exact" && match !== "NotOlderThan") return invalid("resourceVersionMatch", match, 'supported values: "Exact", "NotOlderThan"');
    if (rv === "") return invalid("resourceVersionMatch", "", "resourceVersionMatch is forbidden unless resourceVersion is provided");
    if (match === "Exact" && rv === "0") return invalid("resourceVersionMatch", "", "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
  }
  return rv;
}
