/**
 * The demo's world written to a real API server, as the kubelet and the controllers would write it: every object of the
 * demo's store (the world, the TA pods, the EndpointSlices, what faults change) is applied with server-side apply, its
 * status through the status subresource, each namespace created with its `default` ServiceAccount before its first
 * object (nothing else would create either: no controller-manager runs). The store stays the demo's model (the simulated
 * allocator, the faults and /truth read it); the API server is where every client reads the world.
 *
 * Writes keep each object's order and coalesce: while an object's write is in flight, only its latest state waits. A
 * write the server cannot take (it is restarting) is tried again until it can; one it refuses is counted and logged.
 */
import type { KubeObject, Resource, Store, StoreEvent } from "../store";
import { KubeUnreachable, statusOf, type KubeAnswer, type KubeHttp } from "./http";

interface Kind {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** whether its status is written through the status subresource */
  status: boolean;
}

export const KINDS: Record<Resource, Kind> = {
  nodes: { apiVersion: "v1", kind: "Node", plural: "nodes", namespaced: false, status: true },
  pods: { apiVersion: "v1", kind: "Pod", plural: "pods", namespaced: true, status: true },
  services: { apiVersion: "v1", kind: "Service", plural: "services", namespaced: true, status: false },
  endpoints: { apiVersion: "v1", kind: "Endpoints", plural: "endpoints", namespaced: true, status: false },
  configmaps: { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true, status: false },
  secrets: { apiVersion: "v1", kind: "Secret", plural: "secrets", namespaced: true, status: false },
  deployments: { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true, status: true },
  daemonsets: { apiVersion: "apps/v1", kind: "DaemonSet", plural: "daemonsets", namespaced: true, status: true },
  endpointslices: { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", plural: "endpointslices", namespaced: true, status: false },
  servicemonitors: { apiVersion: "monitoring.coreos.com/v1", kind: "ServiceMonitor", plural: "servicemonitors", namespaced: true, status: false },
  podmonitors: { apiVersion: "monitoring.coreos.com/v1", kind: "PodMonitor", plural: "podmonitors", namespaced: true, status: false },
};

/** The order of the first sync: what others refer to first, the pods (the most) late, their EndpointSlices last. */
const SYNC_ORDER: Resource[] = ["nodes", "configmaps", "secrets", "services", "deployments", "daemonsets", "servicemonitors", "podmonitors", "pods", "endpoints", "endpointslices"];

/** The object's path on the API server. */
export function objectPath(resource: Resource, namespace: string | undefined, name: string): string {
  const k = KINDS[resource];
  const base = k.apiVersion.includes("/") ? `/apis/${k.apiVersion}` : `/api/${k.apiVersion}`;
  return `${base}${k.namespaced ? `/namespaces/${encodeURIComponent(namespace ?? "default")}` : ""}/${k.plural}/${encodeURIComponent(name)}`;
}

/** metadata the server sets itself */
const SERVER_SET_METADATA = ["uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"];

/**
 * What the demo applies of a stored object: what the server sets itself (uid, resourceVersion, creationTimestamp, managed
 * fields) is left out, and so is the status of a kind whose status goes through its subresource. Pure.
 */
export function appliedObject(resource: Resource, o: KubeObject, { withClusterIp = true } = {}): Record<string, unknown> {
  const k = KINDS[resource];
  const metadata: Record<string, unknown> = { ...o.metadata };
  for (const f of SERVER_SET_METADATA) delete metadata[f];
  const out: Record<string, unknown> = { ...(o as unknown as Record<string, unknown>), apiVersion: k.apiVersion, kind: k.kind, metadata };
  if (k.status) delete out.status;
  if (resource === "services" && !withClusterIp && out.spec) {
    const spec = { ...(out.spec as Record<string, unknown>) };
    delete spec.clusterIP;
    delete spec.clusterIPs;
    out.spec = spec;
  }
  return out;
}

/** The status subresource's body of a stored object (undefined for a kind without one, or an object without status). */
export function appliedStatus(resource: Resource, o: KubeObject): Record<string, unknown> | undefined {
  const k = KINDS[resource];
  const status = (o as unknown as { status?: unknown }).status;
  if (!k.status || status === undefined) return undefined;
  return { apiVersion: k.apiVersion, kind: k.kind, metadata: { name: o.metadata.name, ...(k.namespaced ? { namespace: o.metadata.namespace } : {}) }, status };
}

const FIELD_MANAGER = "allocation-lens-demo";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface MirrorStats {
  applied: number;
  deleted: number;
  /** writes the server refused (each logged) */
  refused: number;
  /** writes tried again after the server could not be reached */
  retried: number;
  lastRefusal?: string;
}

/** How long a 403 is taken for a restarted server's RBAC not yet synced, and the write tried again. */
const FORBIDDEN_RETRY_MS = 30_000;

export class StoreMirror {
  private readonly pending = new Map<string, StoreEvent>();
  private readonly inFlight = new Set<string>();
  private readonly namespaces = new Map<string, Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private running = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  readonly stats: MirrorStats = { applied: 0, deleted: 0, refused: 0, retried: 0 };

  constructor(
    private readonly store: Store,
    private readonly api: KubeHttp,
    private readonly options: { concurrency?: number; log?: (line: string) => void } = {},
  ) {}

  /** Subscribes to the store, writes everything it holds, and resolves when the server has it all. */
  async start(): Promise<void> {
    this.unsubscribe = this.store.subscribe((e) => this.enqueue(e));
    for (const resource of SYNC_ORDER) {
      for (const object of this.store.list(resource)) this.enqueue({ type: "ADDED", resource, object, resourceVersion: Number(object.metadata.resourceVersion ?? 0) });
    }
    await this.idle();
  }

  /** Resolves when nothing waits to be written and nothing is in flight. */
  idle(): Promise<void> {
    if (!this.pending.size && !this.running) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  stop(): void {
    this.closed = true;
    this.unsubscribe?.();
    this.pending.clear();
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private enqueue(e: StoreEvent): void {
    if (this.closed) return;
    const key = `${e.resource}|${e.object.metadata.namespace ?? ""}/${e.object.metadata.name}`;
    this.pending.delete(key);
    this.pending.set(key, e);
    this.pump();
  }

  private pump(): void {
    const limit = this.options.concurrency ?? 16;
    for (const [key, e] of this.pending) {
      if (this.running >= limit) break;
      if (this.inFlight.has(key)) continue;
      this.pending.delete(key);
      this.inFlight.add(key);
      this.running++;
      void this.write(e)
        .catch((err) => this.refuse(e, (err as Error).message))
        .finally(() => {
          this.inFlight.delete(key);
          this.running--;
          if (!this.pending.size && !this.running) for (const w of this.idleWaiters.splice(0)) w();
          else this.pump();
        });
    }
  }

  private refuse(e: StoreEvent, why: string): void {
    this.stats.refused++;
    this.stats.lastRefusal = `${e.type} ${e.resource} ${e.object.metadata.namespace ?? ""}/${e.object.metadata.name}: ${why}`;
    this.options.log?.(`the API server refused ${this.stats.lastRefusal}`);
  }

  /** `send` until the server answers (it may be restarting), then the answer. */
  private async reach(send: () => Promise<KubeAnswer>): Promise<KubeAnswer> {
    const start = Date.now();
    for (let wait = 200; ; wait = Math.min(wait * 2, 2_000)) {
      if (this.closed) throw new Error("the mirror stopped");
      try {
        const a = await send();
        // 429 and 5xx: the server is busy or not ready yet (its storage, just after a restart). 403 for a while too: a
        // restarted server answers before its RBAC authorizer has read the roles back, and refuses what they grant
        if (a.status !== 429 && a.status < 500 && !(a.status === 403 && Date.now() - start < FORBIDDEN_RETRY_MS)) return a;
      } catch (err) {
        if (!(err instanceof KubeUnreachable)) throw err;
      }
      this.stats.retried++;
      await sleep(wait);
    }
  }

  private ensureNamespace(ns: string): Promise<void> {
    let p = this.namespaces.get(ns);
    if (!p) {
      p = (async () => {
        for (const [path, obj] of [
          [`/api/v1/namespaces/${encodeURIComponent(ns)}`, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }],
          [`/api/v1/namespaces/${encodeURIComponent(ns)}/serviceaccounts/default`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: ns } }],
        ] as const) {
          const a = await this.reach(() => this.api.apply(path, obj, FIELD_MANAGER));
          if (a.status >= 300) throw new Error(`${a.status} ${statusOf(a).message ?? a.text.slice(0, 200)}`);
        }
      })();
      p.catch(() => this.namespaces.delete(ns));
      this.namespaces.set(ns, p);
    }
    return p;
  }

  private async write(e: StoreEvent): Promise<void> {
    const { resource, object } = e;
    const path = objectPath(resource, object.metadata.namespace, object.metadata.name);
    if (e.type === "DELETED") {
      // at once, as the kubelet confirms a pod's end: no grace period, nothing left terminating
      const a = await this.reach(() => this.api.request("DELETE", path, { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 0 }));
      if (a.status >= 300 && a.status !== 404) throw new Error(`${a.status} ${statusOf(a).message ?? a.text.slice(0, 200)}`);
      this.stats.deleted++;
      return;
    }
    if (KINDS[resource].namespaced) await this.ensureNamespace(object.metadata.namespace ?? "default");
    let a = await this.reach(() => this.api.apply(path, appliedObject(resource, object), FIELD_MANAGER));
    if (a.status === 422 && resource === "services" && /IP|allocated|range/i.test(statusOf(a).message ?? "")) {
      // the world's address is taken or outside the range: the server allocates one (nothing dials it)
      a = await this.reach(() => this.api.apply(path, appliedObject(resource, object, { withClusterIp: false }), FIELD_MANAGER));
    }
    if (a.status === 422 && resource === "pods" && /may not change fields|immutable|Forbidden/i.test(statusOf(a).message ?? "")) {
      // a pod's spec does not change: the pod is replaced, as a controller would
      const d = await this.reach(() => this.api.request("DELETE", path, { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 0 }));
      if (d.status >= 300 && d.status !== 404) throw new Error(`${d.status} ${statusOf(d).message ?? d.text.slice(0, 200)}`);
      a = await this.reach(() => this.api.apply(path, appliedObject(resource, object), FIELD_MANAGER));
    }
    if (a.status >= 300) throw new Error(`${a.status} ${statusOf(a).message ?? a.text.slice(0, 300)}`);
    const status = appliedStatus(resource, object);
    if (status) {
      const s = await this.reach(() => this.api.apply(`${path}/status`, status, `${FIELD_MANAGER}-status`));
      if (s.status >= 300) throw new Error(`status: ${s.status} ${statusOf(s).message ?? s.text.slice(0, 300)}`);
    }
    this.stats.applied++;
  }
}
