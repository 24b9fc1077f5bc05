import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { stringify } from "yaml";
import type { Resource, Store } from "../store";
import {
  apiGroupList,
  apiVersions,
  coreResourceList,
  MONITORING_GROUP,
  MONITORING_VERSION,
  monitoringGroup,
  monitoringGroupPresent,
  monitoringResourceList,
  RESOURCE_INFO,
  type ResourceInfo,
  versionInfo,
} from "./discovery";
import { namespaceObjects, namespaceTable } from "./namespaces";
import { allOf, fieldSelectorPredicate, labelSelectorPredicate, type Predicate, SelectorError } from "./selectors";
import { renderTable, tableRequest, type TableRequest } from "./tables";
import { type ActiveWatch, expiredStatus, serveWatch, withTypeMeta } from "./watch";
import { listen } from "../listen";

/**
 * The embedded demo cluster's Kubernetes API: plain HTTP on loopback, speaking the real wire protocol (discovery,
 * list, get, watch, meta.k8s.io Tables) for pods, nodes, servicemonitors and podmonitors out of a demo Store, so that
 * `@kubernetes/client-node` informers and a real `kubectl` work against it. Read-only: resources answer GET only.
 */

export interface KubeApiServer {
  url: string;
  port: number;
  close(): Promise<void>;
  kubeconfigPath: string;
  /**
   * Force-close every open watch stream (a "watch disconnect"). By default each stream is ended the way a server-side
   * watch timeout ends it (the client re-watches from its last resourceVersion); "reset" destroys the connections.
   */
  dropWatches(mode?: "end" | "reset"): void;
  /** number of requests served, per path kind (discovery, version, openapi, health, list, get, watch, notFound,
   * methodNotAllowed, badRequest, gone = 410 on a list or watch) and per verb and resource ("list:pods", "watch:nodes",
   * "gone:pods", ...), for tests */
  stats(): Record<string, number>;
}

export interface KubeApiOptions {
  /** default 127.0.0.1 */
  host?: string;
  /** 0 (default) = a free port */
  port?: number;
  /** where to write the kubeconfig (created when absent) */
  dir: string;
  /** default "allocation-lens-demo" */
  clusterName?: string;
  /** interval of BOOKMARK events when a watch asks for them; default 1000 ms */
  bookmarkIntervalMs?: number;
  /** server-side timeout of watches without timeoutSeconds: random in [min, max] seconds; default [300, 600] */
  watchTimeoutSeconds?: [number, number];
}

export const CONTEXT_NAME = "allocation-lens-demo";

type Params = URLSearchParams;

function status(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, ...(details ? { details } : {}), code };
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), "Cache-Control": "no-cache, private" });
  res.end(text);
}

const NOT_FOUND = status(404, "NotFound", "the server could not find the requested resource");

interface ResourceRoute {
  info: ResourceInfo;
  namespace?: string;
  name?: string;
  /** legacy /watch/ path prefix */
  watchPrefix: boolean;
}

/** Match /api/v1/... and /apis/monitoring.coreos.com/v1/... resource paths. */
function matchResource(segments: string[]): ResourceRoute | undefined | "notFound" {
  let group: string;
  let rest: string[];
  if (segments[0] === "api" && segments[1] === "v1" && segments.length > 2) {
    group = "";
    rest = segments.slice(2);
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

function kubeconfigYaml(server: string, clusterName: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: clusterName, cluster: { server, "insecure-skip-tls-verify": true } }],
    users: [{ name: CONTEXT_NAME, user: { token: "allocation-lens-demo-token" } }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: clusterName, user: CONTEXT_NAME } }],
    "current-context": CONTEXT_NAME,
    preferences: {},
  });
}

export async function startKubeApi(store: Store, opts: KubeApiOptions): Promise<KubeApiServer> {
  const host = opts.host ?? "127.0.0.1";
  const clusterName = opts.clusterName ?? CONTEXT_NAME;
  const bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 1000;
  const [minTimeout, maxTimeout] = opts.watchTimeoutSeconds ?? [300, 600];
  const counts: Record<string, number> = {};
  const watches = new Set<ActiveWatch>();
  const count = (...keys: string[]) => {
    for (const k of keys) counts[k] = (counts[k] ?? 0) + 1;
  };
  let serverAddress = "";
  const startedAt = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");

  const fail = (res: ServerResponse, body: Record<string, unknown>, kind: string) => {
    count(kind);
    sendJson(res, body.code as number, body);
  };

  function serveDiscovery(path: string, res: ServerResponse): boolean {
    const docs: Record<string, () => unknown> = {
      "/version": versionInfo,
      "/api": () => apiVersions(serverAddress),
      "/api/v1": coreResourceList,
      "/apis": () => apiGroupList(store.missing),
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

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://localhost");
    const p = url.pathname.replace(/\/+$/, "") || "/";
    if (p === "/healthz" || p === "/readyz" || p === "/livez" || p.startsWith("/healthz/") || p.startsWith("/readyz/") || p.startsWith("/livez/")) {
      count("health");
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
      res.end("ok");
      return;
    }
    const segments = p.split("/").filter(Boolean).map(decodeURIComponent);
    if (segments[0] === "api" && segments[1] === "v1" && segments[2] === "namespaces" && segments.length <= 4) {
      if (req.method !== "GET") {
        res.setHeader("Allow", "GET");
        return fail(res, status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"), "methodNotAllowed");
      }
      return serveNamespaces(segments[3], req, res, url.searchParams);
    }
    const route = matchResource(segments);
    const known = route !== undefined && route !== "notFound";
    const isDiscovery = !known && (p === "/version" || p === "/api" || p === "/apis" || p.startsWith("/api/") || p.startsWith("/apis/"));
    if (req.method !== "GET" && (known || isDiscovery)) {
      res.setHeader("Allow", "GET");
      return fail(res, status(405, "MethodNotAllowed", `the server does not allow this method on the requested resource`), "methodNotAllowed");
    }
    if (known) return serveResource(route, req, res, url.searchParams);
    if (req.method === "GET" && serveDiscovery(p, res)) return;
    if (p.startsWith("/openapi/")) return fail(res, NOT_FOUND, "openapi");
    fail(res, NOT_FOUND, "notFound");
  }

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, status(500, "InternalError", `Internal error occurred: ${(err as Error).message}`));
      else res.destroy();
    }
  });
  server.keepAliveTimeout = 65_000;

  const port = await listen(server, opts.port ?? 0, host);
  const urlHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;
  serverAddress = `${urlHost}:${port}`;

  await mkdir(opts.dir, { recursive: true });
  const kubeconfigPath = path.join(opts.dir, "kubeconfig.yaml");
  await writeFile(kubeconfigPath, kubeconfigYaml(url, clusterName), { mode: 0o600 });

  return {
    url,
    port,
    kubeconfigPath,
    dropWatches(mode: "end" | "reset" = "end") {
      for (const w of [...watches]) {
        watches.delete(w);
        if (mode === "reset") w.destroy();
        else w.end();
      }
    },
    stats: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const w of watches) w.end();
        watches.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

