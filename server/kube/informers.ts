import "server-only";
/**
 * Kubernetes sources of one cluster, through @kubernetes/client-node informers (list, then watch; re-list on 410).
 * Agent pods per role (namespace + label selector), nodes, ServiceMonitors and PodMonitors. Each informer keeps a status;
 * a missing CRD or a 403 is a reported state with its fix, and the informer retries with backoff instead of crashing.
 *
 * Neither call of client-node's ListWatch has a deadline of its own (its Watch even drops the timeout signal it makes), so
 * a stuck API server would leave an informer waiting forever while its status says ok. Here every list has a deadline
 * (`kubernetes.requestTimeoutSeconds`, the request is aborted), and every watch asks the server to end it after
 * `kubernetes.watchTimeoutSeconds` (the informer then re-watches from its resourceVersion, as client-go does) and is cut
 * by the client when it has not ended WATCH_GRACE_SECONDS later. Either failure is an error of the source, which keeps its
 * cached objects (stale) and restarts with a fresh list after a backoff.
 */
import * as k8s from "@kubernetes/client-node";
import type { ClusterConfig, KubernetesConfig } from "@/lib/config/schema";
import type { Role } from "@/lib/model";
import { SourceError, type SourceErrorInfo } from "@/lib/source-error";
import type { SourceState } from "@/lib/snapshot";
import { SourceErrorLog } from "@/server/net/error-log";
import { selectorString } from "@/lib/ta/reach";

/** how long after the watch timeout asked of the API server the client cuts a watch that is still open */
export const WATCH_GRACE_SECONDS = 15;

/** The timeouts of one cluster's Kubernetes calls, in seconds. */
export interface KubeTimeouts {
  requestTimeoutSeconds: number;
  watchTimeoutSeconds: number;
  /** default WATCH_GRACE_SECONDS (tests shorten it) */
  watchGraceSeconds?: number;
}

/** Request options of a generated API call that abort it with `signal`. */
export function abortable(signal: AbortSignal) {
  const middleware: k8s.ObservableMiddleware = {
    pre: (ctx) => {
      ctx.setSignal(signal);
      return new k8s.Observable(Promise.resolve(ctx));
    },
    post: (ctx) => new k8s.Observable(Promise.resolve(ctx)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: "append" as const };
}

/** `run` with a deadline: at `ms` the request is aborted and the call rejects with `late()`. */
export async function withDeadline<T>(ms: number, run: (signal: AbortSignal) => Promise<T>, late: () => SourceError): Promise<T> {
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = late();
      stop.abort(err);
      reject(err);
    }, ms);
  });
  try {
    return await Promise.race([run(stop.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * client-node's Watch with deadlines: each watch asks the server for `timeoutSeconds`, its response headers must come
 * within the request timeout, and the client ends it with a `timeout` error when it is still open `grace` seconds after
 * the server should have ended it. `done` is called once.
 */
class DeadlineWatch {
  private readonly inner: k8s.Watch;

  constructor(
    kc: k8s.KubeConfig,
    private readonly source: string,
    private readonly timeouts: KubeTimeouts,
  ) {
    // node-fetch's `timeout` bounds the wait for the response headers
    const config = {
      getCurrentCluster: () => kc.getCurrentCluster(),
      applyToFetchOptions: async (opts: object) => ({ ...(await kc.applyToFetchOptions(opts as never)), timeout: timeouts.requestTimeoutSeconds * 1000 }),
    };
    this.inner = new k8s.Watch(config as unknown as k8s.KubeConfig);
  }

  async watch(path: string, queryParams: Record<string, unknown>, callback: (phase: string, obj: unknown, watchObj?: unknown) => void, done: (err: unknown) => void): Promise<AbortController> {
    const { watchTimeoutSeconds } = this.timeouts;
    const grace = this.timeouts.watchGraceSeconds ?? WATCH_GRACE_SECONDS;
    let finished = false;
    const open: { controller?: AbortController } = {};
    const finish = (err: unknown) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      done(err);
    };
    const timer = setTimeout(() => {
      finish(
        new SourceError({
          source: this.source,
          kind: "timeout",
          message: `a watch was still open ${watchTimeoutSeconds + grace} s after it should have ended (${watchTimeoutSeconds} s asked of the API server)`,
          hint: "the API server (or a proxy in between) holds watches open without ending them; check its health. kubernetes.watchTimeoutSeconds sets how long a watch lasts",
        }),
      );
      open.controller?.abort();
    }, (watchTimeoutSeconds + grace) * 1000);
    open.controller = await this.inner.watch(path, { ...queryParams, timeoutSeconds: watchTimeoutSeconds }, callback, finish);
    if (finished) open.controller.abort();
    return open.controller;
  }
}

export type KubeObj = k8s.KubernetesObject & { spec?: unknown; status?: unknown };

export interface InformerStatus {
  source: string;
  /** an informer is never `stale`: the poller calls a failed one stale once it has succeeded before */
  state: Exclude<SourceState, "stale">;
  lastSuccess: number | null;
  error: SourceErrorInfo | null;
}

export interface WatchedKind {
  readonly status: InformerStatus;
  list(): readonly KubeObj[];
  stop(): Promise<void>;
  /** resolves at the first complete list, or after `timeoutMs` (whichever is first) */
  whenListed(timeoutMs: number): Promise<void>;
}

export type PodEventHandler = (role: Role, type: "add" | "update" | "delete", pod: KubeObj) => void;

/** A client configuration from a cluster's `kubernetes` settings (or `lease.kubernetes`): in-cluster, a kubeconfig file, or the default lookup. */
export function kubeConfigFor(kubernetes: Pick<KubernetesConfig, "inCluster" | "kubeconfig" | "context">): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  if (kubernetes.inCluster) kc.loadFromCluster();
  else if (kubernetes.kubeconfig) kc.loadFromFile(kubernetes.kubeconfig);
  else kc.loadFromDefault();
  if (kubernetes.context) kc.setCurrentContext(kubernetes.context);
  return kc;
}

function describe(source: string, resource: string, err: unknown): SourceError {
  const e = err as { code?: number; statusCode?: number; message?: string; body?: unknown };
  const status = e?.code ?? e?.statusCode;
  if (status === 404 && /monitors$/.test(resource)) {
    const kind = resource === "servicemonitors" ? "ServiceMonitor" : "PodMonitor";
    return new SourceError({
      source,
      kind: "not_found",
      status,
      message: `the ${kind} CRD is not installed`,
      hint: `install the monitoring.coreos.com/v1 ${kind} CRD (prometheus-operator) if monitors should be scraped`,
    });
  }
  if (status === 401 || status === 403) {
    return new SourceError({
      source,
      kind: "forbidden",
      status,
      message: `the service account lacks list/watch on ${resource}`,
      hint:
        resource === "pods"
          ? "grant list and watch on pods in the collectors' namespace: the Role and RoleBinding allocation-lens-collectors there (deploy/base/role-collectors.yaml)"
          : `grant list and watch on ${resource} in the dashboard's ClusterRole`,
    });
  }
  const text = typeof e?.message === "string" ? e.message.split("\n")[0].slice(0, 300) : String(err);
  return new SourceError({ source, kind: typeof status === "number" ? "http" : "network", status, message: text, errno: errnoOf(err) });
}

/** A system error's code (`ECONNREFUSED`, ...), on the error or its cause (fetch wraps it), or undefined. */
export function errnoOf(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === "string" && /^E[A-Z]+$/.test(e.code)) return e.code;
  }
  return undefined;
}

/**
 * Whether a failure is an API server that is not there for a moment (restarting: an upgrade, a compaction's aftermath):
 * a refused or reset connection. Those are tried again every second, so that its return is seen at once; answers the
 * server did give (403, 5xx) and timeouts back off.
 */
export function isRestartRefusal(e: SourceError): boolean {
  return e.kind === "network" && (e.errno === "ECONNREFUSED" || e.errno === "ECONNRESET");
}

/** How often a refused connection to the API server is tried again. */
const RESTART_RETRY_MS = 1000;

class Watched implements WatchedKind {
  readonly status: InformerStatus;
  private readonly informer: k8s.Informer<KubeObj> & k8s.ObjectCache<KubeObj>;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private backoffMs = 1000;
  private readonly errorLog: SourceErrorLog;

  constructor(
    kc: k8s.KubeConfig,
    source: string,
    resource: string,
    path: string,
    listFn: (options: ReturnType<typeof abortable>) => Promise<k8s.KubernetesListObject<KubeObj>>,
    timeouts: KubeTimeouts,
    errorLog: SourceErrorLog,
    labelSelector?: string,
  ) {
    this.status = { source, state: "starting", lastSuccess: null, error: null };
    const list = async () => {
      const result = await withDeadline(
        timeouts.requestTimeoutSeconds * 1000,
        (signal) => listFn(abortable(signal)),
        () =>
          new SourceError({
            source,
            kind: "timeout",
            message: `listing ${resource} took longer than ${timeouts.requestTimeoutSeconds} s`,
            hint: "the API server is slow or unreachable; raise kubernetes.requestTimeoutSeconds if it is only slow",
          }),
      );
      this.ok();
      return result;
    };
    this.informer = new k8s.ListWatch<KubeObj>(path, new DeadlineWatch(kc, source, timeouts) as unknown as k8s.Watch, list, false, labelSelector);
    this.errorLog = errorLog;
    const touch = () => this.ok();
    this.informer.on("add", touch);
    this.informer.on("update", touch);
    this.informer.on("delete", touch);
    this.informer.on("error", (err: unknown) => {
      if (this.stopped) return; // the end of a watch cut by stop()
      const described = err instanceof SourceError ? err : describe(source, resource, err);
      this.errorLog.note(source, described);
      this.status.state = "error";
      this.status.error = described.toJSON();
      // Retry with a fresh List (as client-go's reflector does): ListWatch re-lists only when it has no resourceVersion, and
      // a watch resumed from the old one neither refreshes the cache nor tells this status that the source is back.
      (this.informer as unknown as { resourceVersion: string }).resourceVersion = "";
      clearTimeout(this.retryTimer);
      const refused = isRestartRefusal(described);
      this.retryTimer = setTimeout(() => void this.start(), refused ? RESTART_RETRY_MS : this.backoffMs);
      if (!refused) this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
    });
  }

  private readonly listedWaiters = new Set<() => void>();

  whenListed(timeoutMs: number): Promise<void> {
    if (this.status.lastSuccess !== null || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listedWaiters.delete(done);
        // after ListWatch has filled its cache from the list (it does so once list() has returned)
        setImmediate(resolve);
      };
      const timer = setTimeout(done, timeoutMs);
      this.listedWaiters.add(done);
    });
  }

  private ok() {
    for (const w of [...this.listedWaiters]) w();
    if (this.status.state === "error") this.errorLog.note(this.status.source, null);
    this.status.state = "ok";
    this.status.error = null;
    this.status.lastSuccess = Date.now();
    this.backoffMs = 1000;
  }

  on(verb: "add" | "update" | "delete", cb: (o: KubeObj) => void) {
    this.informer.on(verb, cb);
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.informer.start();
    } catch {
      // reported through the error callback
    }
  }

  list(): readonly KubeObj[] {
    return this.informer.list();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    for (const w of [...this.listedWaiters]) w();
    await this.informer.stop().catch(() => undefined);
  }
}

export interface KubeSources {
  pods: Partial<Record<Role, WatchedKind>>;
  nodes: WatchedKind;
  serviceMonitors: WatchedKind;
  podMonitors: WatchedKind;
  statuses(): InformerStatus[];
  stop(): Promise<void>;
}

/**
 * Every Kubernetes API call the informers of one cluster make: (group, resource, verb, namespace or cluster-wide). The
 * deploy/ RBAC is held to this list (test/deploy/rbac.test.ts, which also records the calls the informers really make
 * against the demo Kubernetes API): a namespaced Role for the collectors' pods in their namespaces, a ClusterRole for
 * nodes and the monitors, list and watch only. An informer lists, then watches; it never gets one object.
 */
export interface KubeApiCall {
  /** "" for the core group */
  group: string;
  resource: string;
  verb: "list" | "watch";
  /** the namespace, or undefined for a cluster-wide call (a cluster-scoped resource, or every namespace) */
  namespace: string | undefined;
}

export function kubeApiCalls(cluster: ClusterConfig): KubeApiCall[] {
  const calls: KubeApiCall[] = [];
  const add = (group: string, resource: string, namespace: string | undefined) => {
    for (const verb of ["list", "watch"] as const) {
      if (!calls.some((c) => c.group === group && c.resource === resource && c.verb === verb && c.namespace === namespace)) calls.push({ group, resource, verb, namespace });
    }
  };
  for (const ta of Object.values(cluster.targetAllocators)) if (ta) add("", "pods", ta.collectors.namespace);
  add("", "nodes", undefined);
  add("monitoring.coreos.com", "servicemonitors", undefined);
  add("monitoring.coreos.com", "podmonitors", undefined);
  return calls;
}

export function startKubeSources(cluster: ClusterConfig, onPodEvent: PodEventHandler, options: { log?: (line: string) => void; watchGraceSeconds?: number } = {}): KubeSources {
  const kc = kubeConfigFor(cluster.kubernetes);
  const timeouts: KubeTimeouts = {
    requestTimeoutSeconds: cluster.kubernetes.requestTimeoutSeconds,
    watchTimeoutSeconds: cluster.kubernetes.watchTimeoutSeconds,
    watchGraceSeconds: options.watchGraceSeconds,
  };
  // a dropped watch names its URL (with the resourceVersion) in the message: one line per kind of failure, not per drop
  const errorLog = new SourceErrorLog(options.log, (e) => `${e.kind} ${e.status ?? ""}`);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const src = (what: string) => `${cluster.name}/kube/${what}`;
  const pods: Partial<Record<Role, Watched>> = {};
  for (const [role, ta] of Object.entries(cluster.targetAllocators) as [Role, (typeof cluster.targetAllocators)[Role]][]) {
    if (!ta) continue;
    const { namespace, selector } = ta.collectors;
    const labelSelector = selectorString(selector);
    const w = new Watched(
      kc,
      src(`pods/${role}`),
      "pods",
      `/api/v1/namespaces/${namespace}/pods`,
      (o) => core.listNamespacedPod({ namespace, labelSelector }, o) as Promise<k8s.KubernetesListObject<KubeObj>>,
      timeouts,
      errorLog,
      labelSelector,
    );
    w.on("add", (p) => onPodEvent(role, "add", p));
    w.on("update", (p) => onPodEvent(role, "update", p));
    w.on("delete", (p) => onPodEvent(role, "delete", p));
    pods[role] = w;
  }
  const nodes = new Watched(kc, src("nodes"), "nodes", "/api/v1/nodes", (o) => core.listNode({}, o) as Promise<k8s.KubernetesListObject<KubeObj>>, timeouts, errorLog);
  const monitor = (plural: "servicemonitors" | "podmonitors") =>
    new Watched(
      kc,
      src(plural),
      plural,
      `/apis/monitoring.coreos.com/v1/${plural}`,
      (o) => custom.listClusterCustomObject({ group: "monitoring.coreos.com", version: "v1", plural }, o) as Promise<k8s.KubernetesListObject<KubeObj>>,
      timeouts,
      errorLog,
    );
  const serviceMonitors = monitor("servicemonitors");
  const podMonitors = monitor("podmonitors");
  const all = [...Object.values(pods), nodes, serviceMonitors, podMonitors] as Watched[];
  for (const w of all) void w.start();
  return {
    pods,
    nodes,
    serviceMonitors,
    podMonitors,
    statuses: () => all.map((w) => ({ ...w.status })),
    stop: async () => {
      await Promise.all(all.map((w) => w.stop()));
    },
  };
}
