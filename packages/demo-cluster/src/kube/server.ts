/**
 * The embedded demo cluster's Kubernetes API: plain HTTP on loopback (and the same over TLS for the restricted user's
 * context when started with `tls`), speaking the real wire protocol (discovery, list, get, watch, meta.k8s.io Tables)
 * for pods, nodes, services, endpointslices, servicemonitors, podmonitors, configmaps, secrets, deployments and daemonsets out of a
 * demo Store, and the derived namespaces, so that `@kubernetes/client-node` informers, a real `kubectl` and a real
 * Target Allocator (client-go, prometheus-operator's informers, Prometheus's Kubernetes discovery) work against it. The
 * world's resources answer GET only; SelfSubjectAccessReviews and Events can be created, and coordination.k8s.io Leases
 * created and updated too (leases.ts), for the dashboard's replicas. The EndpointSlice controller that keeps the slices
 * in step with the pods (endpointslice-controller.ts) and the DaemonSet and Deployment status controllers
 * (workload-status-controller.ts) run with the server. Port-forward to a TA pod (WebSocket channels
 * and SPDY/3.1, portforward/), the service proxy (proxy.ts) and the restricted user (auth.ts) are wired here.
 *
 * This module is the server's lifecycle (listen, upgrades, tunnels, stats, dropping watches, close); routing is in
 * routes.ts, what is served in resources.ts, the kubeconfig in kubeconfig.ts.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Duplex } from "node:stream";
import { createWebSocketStream, WebSocketServer } from "ws";
import type { KubeObject, Store } from "../store";
import { listen } from "../listen";
import { NOT_FOUND, sendJson, status } from "./answers";
import { CONTEXT_NAME, writeKubeconfig } from "./kubeconfig";
import type { LeaseStore } from "./leases";
import { EndpointSliceController } from "./endpointslice-controller";
import { WorkloadStatusController } from "./workload-status-controller";
import { resourceHandlers } from "./resources";
import { handle } from "./routes";
import type { ActiveWatch } from "./watch";
import type { Backend } from "../ta-pods";
import { forbidden, secretsAccess, userOf, writeAccess } from "./auth";
import { CHANNEL_PROTOCOLS, chooseProtocol, parsePorts, SPDY_TUNNEL_PROTOCOL } from "./portforward/channel";
import { forwardSpdy, forwardWebSocket, type ForwardTarget, type Tunnel } from "./portforward/forward";
import { matchServiceProxy, serveServiceProxy } from "./proxy";

export interface KubeApiServer {
  url: string;
  /** the same API over TLS (when started with `tls`): the restricted user's context names it */
  tlsUrl?: string;
  port: number;
  close(): Promise<void>;
  kubeconfigPath: string;
  /**
   * Force-close every open watch stream (a "watch disconnect"). By default each stream is ended the way a server-side
   * watch timeout ends it (the client re-watches from its last resourceVersion); "reset" destroys the connections.
   */
  dropWatches(mode?: "end" | "reset"): void;
  /** Partitions every open watch of `resource` that would see `o`: for `ms` nothing reaches it, then it ends (ActiveWatch.stall). */
  stallWatches(resource: string, o: KubeObject, ms: number): number;
  /** number of requests served, per path kind (discovery, version, openapi, health, list, get, watch, notFound,
   * methodNotAllowed, badRequest, gone = 410 on a list or watch) and per verb and resource ("list:pods", "watch:nodes",
   * "gone:pods", ...), for tests */
  stats(): Record<string, number>;
  /**
   * milliseconds spent answering, under the same keys as stats(): the time from a request's arrival to the end of its
   * handler's synchronous work (a list's whole answer written; a watch's first events, not the later ones)
   */
  serveMs(): Record<string, number>;
  /** the Leases written through the API */
  leases: LeaseStore;
  /** the number of open port-forward tunnels (WebSocket or SPDY sessions), per pod `namespace/name` */
  tunnels(): Record<string, number>;
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
  /** the loopback server behind `port` of a pod (port-forward, service proxy); undefined = the pod serves no such port */
  backendFor?: (namespace: string, pod: string, port: number) => Backend | undefined;
  /** also serve the API over TLS with this certificate (for 127.0.0.1), signed by `caPem` */
  tls?: { certPem: string; keyPem: string; caPem: string };
  /**
   * run the EndpointSlice controller over the Store (default true), writing slices `endpointSliceDelayMs` after a change
   * (default 200), and the DaemonSet and Deployment status controllers beside it
   */
  endpointSlices?: boolean;
  endpointSliceDelayMs?: number;
}

export { CONTEXT_NAME };

/** `/api/v1/namespaces/NS/pods/NAME/portforward` */
function portForwardPath(segments: string[]): { namespace: string; name: string } | undefined {
  if (segments.length === 7 && segments[0] === "api" && segments[1] === "v1" && segments[2] === "namespaces" && segments[4] === "pods" && segments[6] === "portforward") {
    return { namespace: segments[3], name: segments[5] };
  }
  return undefined;
}

export async function startKubeApi(store: Store, opts: KubeApiOptions): Promise<KubeApiServer> {
  const host = opts.host ?? "127.0.0.1";
  const counts: Record<string, number> = {};
  const sliceController = opts.endpointSlices === false ? undefined : new EndpointSliceController(store, opts.endpointSliceDelayMs);
  sliceController?.start();
  const workloadController = opts.endpointSlices === false ? undefined : new WorkloadStatusController(store);
  workloadController?.start();
  const watches = new Set<ActiveWatch>();
  let serverAddress = "";
  const handlers = resourceHandlers({
    store,
    watches,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 1000,
    watchTimeoutSeconds: opts.watchTimeoutSeconds ?? [300, 600],
    serverAddress: () => serverAddress,
    startedAt: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z"),
    count: (...keys) => count(...keys),
  });

  const serveMs: Record<string, number> = {};
  // the keys counted while a request's handler runs synchronously: its serving time goes to each
  let requestKeys: string[] | undefined;
  const count = (...keys: string[]) => {
    for (const k of keys) counts[k] = (counts[k] ?? 0) + 1;
    requestKeys?.push(...keys);
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const t0 = performance.now();
    requestKeys = [];
    try {
      serve(req, res);
    } finally {
      const ms = performance.now() - t0;
      for (const k of requestKeys) serveMs[k] = (serveMs[k] ?? 0) + ms;
      requestKeys = undefined;
    }
  };
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      const segments = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
      const user = userOf(req.headers.authorization);
      const secrets = secretsAccess(segments, url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1");
      const write = writeAccess(req.method, segments);
      const denied = (secrets && forbidden(user, secrets)) || (write && forbidden(user, write));
      if (denied) return handlers.fail(res, denied, "forbidden");
      const pf = portForwardPath(segments);
      if (pf) {
        const refused = forbidden(user, { verb: "create", resource: "pods/portforward", ...pf });
        if (refused) return handlers.fail(res, refused, "forbidden");
        return handlers.fail(res, status(400, "BadRequest", "Upgrade request required"), "badRequest");
      }
      const proxy = matchServiceProxy(segments);
      if (proxy) return serveServiceProxy(proxy, req, res, { store, backendFor: opts.backendFor, search: url.search, count });
      handle(req, res, handlers);
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, status(500, "InternalError", `Internal error occurred: ${(err as Error).message}`));
      else res.destroy();
    }
  };
  const server = createServer(onRequest);
  // kubectl sends a kubeconfig's token only over TLS: the restricted user's context points at this listener
  const tlsServer = opts.tls ? createHttpsServer({ cert: opts.tls.certPem, key: opts.tls.keyPem }, onRequest) : undefined;

  // port-forward: WebSocket (channels for client-node, SPDY tunnelled for kubectl) or a plain SPDY/3.1 upgrade
  const tunnels = new Map<string, Set<Tunnel>>();
  const upgraded = new Set<Duplex>();
  const chosenProtocol = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (_offered, req) => chosenProtocol.get(req) ?? false });
  // ws refuses subprotocols with a "/" (not an RFC 6455 token), which kubectl's SPDY tunnel uses: such a request's
  // header is taken off before ws reads it, and the chosen protocol is written into the 101 answer here
  const tunnelRequests = new WeakSet<IncomingMessage>();
  wss.on("headers", (headers: string[], req: IncomingMessage) => {
    if (tunnelRequests.has(req)) headers.push(`Sec-WebSocket-Protocol: ${SPDY_TUNNEL_PROTOCOL}`);
  });
  const register = (key: string, tunnel: Tunnel, socket: Duplex) => {
    let set = tunnels.get(key);
    if (!set) tunnels.set(key, (set = new Set()));
    set.add(tunnel);
    socket.on("close", () => {
      set.delete(tunnel);
      if (!set.size && tunnels.get(key) === set) tunnels.delete(key);
    });
  };
  // a deleted pod takes its tunnels with it, as the kubelet's streams end with the pod
  const unsubscribe = store.subscribe((e) => {
    if (e.resource !== "pods" || e.type !== "DELETED") return;
    const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
    for (const t of tunnels.get(key) ?? []) t.close();
  });
  const rawAnswer = (socket: Duplex, body: Record<string, unknown>, kind: string) => {
    count(kind);
    const text = JSON.stringify(body);
    const code = body.code as number;
    socket.end(
      `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ""}\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      const segments = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
      const pf = portForwardPath(segments);
      if (!pf) return rawAnswer(socket, NOT_FOUND, "notFound");
      const refused = forbidden(userOf(req.headers.authorization), { verb: "create", resource: "pods/portforward", ...pf });
      if (refused) return rawAnswer(socket, refused, "forbidden");
      const pod = store.get("pods", pf.namespace, pf.name);
      if (!pod) return rawAnswer(socket, status(404, "NotFound", `pods "${pf.name}" not found`, { name: pf.name, kind: "pods" }), "notFound");
      const target: ForwardTarget = {
        namespace: pf.namespace,
        pod: pf.name,
        uid: pod.metadata.uid ?? "",
        backendFor: (port) => (store.get("pods", pf.namespace, pf.name) ? opts.backendFor?.(pf.namespace, pf.name, port) : undefined),
      };
      const key = `${pf.namespace}/${pf.name}`;
      const kind = (req.headers.upgrade ?? "").toLowerCase();
      if (kind === "websocket") {
        const offered = (req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim()).filter(Boolean);
        const chosen = chooseProtocol(offered, [...CHANNEL_PROTOCOLS, SPDY_TUNNEL_PROTOCOL]);
        if (!chosen) return rawAnswer(socket, status(400, "BadRequest", `none of the subprotocols ${JSON.stringify(offered)} is supported`), "badRequest");
        let ports: number[] = [];
        if (chosen !== SPDY_TUNNEL_PROTOCOL) {
          const parsed = parsePorts(url.searchParams.getAll("ports"));
          if (typeof parsed === "string") return rawAnswer(socket, status(400, "BadRequest", parsed), "badRequest");
          ports = parsed;
        }
        if (chosen === SPDY_TUNNEL_PROTOCOL) {
          tunnelRequests.add(req);
          delete req.headers["sec-websocket-protocol"];
        } else chosenProtocol.set(req, chosen);
        upgraded.add(socket);
        socket.on("close", () => upgraded.delete(socket));
        wss.handleUpgrade(req, socket, head, (ws) => {
          if (chosen === SPDY_TUNNEL_PROTOCOL) {
            count("portforward", "portforward:spdy-websocket");
            register(key, forwardSpdy(createWebSocketStream(ws), target), socket);
          } else {
            count("portforward", "portforward:websocket");
            register(key, forwardWebSocket(ws, target, ports), socket);
          }
        });
        return;
      }
      if (kind.startsWith("spdy/3.1")) {
        count("portforward", "portforward:spdy");
        socket.write(
          "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n",
        );
        if (head.length) socket.unshift(head);
        upgraded.add(socket);
        socket.on("close", () => upgraded.delete(socket));
        register(key, forwardSpdy(socket, target), socket);
        return;
      }
      return rawAnswer(socket, status(400, "BadRequest", `unsupported upgrade ${JSON.stringify(req.headers.upgrade ?? "")}`), "badRequest");
    } catch (err) {
      rawAnswer(socket, status(500, "InternalError", `Internal error occurred: ${(err as Error).message}`), "internal");
    }
  };
  server.on("upgrade", onUpgrade);
  tlsServer?.on("upgrade", onUpgrade);
  server.keepAliveTimeout = 65_000;

  const port = await listen(server, opts.port ?? 0, host);
  const urlHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;
  serverAddress = `${urlHost}:${port}`;

  let tlsUrl: string | undefined;
  if (tlsServer) {
    tlsServer.keepAliveTimeout = 65_000;
    tlsUrl = `https://${urlHost}:${await listen(tlsServer, 0, host)}`;
  }
  const kubeconfigPath = await writeKubeconfig(opts.dir, url, opts.clusterName ?? CONTEXT_NAME, tlsUrl && opts.tls ? { server: tlsUrl, caPem: opts.tls.caPem } : undefined);

  return {
    url,
    tlsUrl,
    port,
    kubeconfigPath,
    dropWatches(mode: "end" | "reset" = "end") {
      for (const w of [...watches]) {
        watches.delete(w);
        if (mode === "reset") w.destroy();
        else w.end();
      }
    },
    stallWatches(resource: string, o: KubeObject, ms: number) {
      const hit = [...watches].filter((w) => w.resource === resource && w.sees(o));
      for (const w of hit) w.stall(ms);
      return hit.length;
    },
    stats: () => ({ ...counts }),
    serveMs: () => ({ ...serveMs }),
    leases: handlers.leases,
    tunnels: () => Object.fromEntries([...tunnels].map(([k, v]) => [k, v.size])),
    close: () =>
      new Promise<void>((resolve) => {
        for (const w of watches) w.end();
        watches.clear();
        unsubscribe();
        sliceController?.stop();
        workloadController?.stop();
        for (const set of tunnels.values()) for (const t of set) t.close();
        for (const s of upgraded) s.destroy();
        wss.close();
        tlsServer?.close();
        tlsServer?.closeAllConnections();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

