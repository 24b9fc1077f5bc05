/**
 * The embedded demo cluster's Kubernetes API: plain HTTP on loopback, speaking the real wire protocol (discovery,
 * list, get, watch, meta.k8s.io Tables) for pods, nodes, servicemonitors and podmonitors out of a demo Store, so that
 * `@kubernetes/client-node` informers and a real `kubectl` work against it. The world's resources answer GET only;
 * coordination.k8s.io Leases can be created and updated too (leases.ts), for the dashboard's replicas.
 *
 * This module is the server's lifecycle (listen, stats, dropping watches, close); routing is in routes.ts, what is served
 * in resources.ts, the kubeconfig in kubeconfig.ts.
 */
import { createServer } from "node:http";
import type { Store } from "../store";
import { listen } from "../listen";
import { sendJson, status } from "./answers";
import { CONTEXT_NAME, writeKubeconfig } from "./kubeconfig";
import type { LeaseStore } from "./leases";
import { resourceHandlers } from "./resources";
import { handle } from "./routes";
import type { ActiveWatch } from "./watch";
import type { Backend } from "../ta-pods";

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
  /** the Leases written through the API */
  leases: LeaseStore;
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
}

export { CONTEXT_NAME };

export async function startKubeApi(store: Store, opts: KubeApiOptions): Promise<KubeApiServer> {
  const host = opts.host ?? "127.0.0.1";
  const counts: Record<string, number> = {};
  const watches = new Set<ActiveWatch>();
  let serverAddress = "";
  const handlers = resourceHandlers({
    store,
    watches,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 1000,
    watchTimeoutSeconds: opts.watchTimeoutSeconds ?? [300, 600],
    serverAddress: () => serverAddress,
    startedAt: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z"),
    count: (...keys) => {
      for (const k of keys) counts[k] = (counts[k] ?? 0) + 1;
    },
  });

  const server = createServer((req, res) => {
    try {
      handle(req, res, handlers);
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

  const kubeconfigPath = await writeKubeconfig(opts.dir, url, opts.clusterName ?? CONTEXT_NAME);

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
    leases: handlers.leases,
    close: () =>
      new Promise<void>((resolve) => {
        for (const w of watches) w.end();
        watches.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

