/**
 * The embedded demo cluster's object store: what its Kubernetes API serves and what its Target Allocators watch.
 * Objects are plain Kubernetes JSON (apiVersion/kind/metadata/spec/status). Every write bumps one cluster-wide
 * resourceVersion, is kept in a bounded event log (so a watch can resume from a recent resourceVersion, and gets
 * 410 Gone from an expired one) and is pushed to subscribers.
 */

export type Resource = "pods" | "nodes" | "servicemonitors" | "podmonitors" | "configmaps" | "services" | "secrets" | "deployments" | "daemonsets" | "endpointslices" | "endpoints";
export const RESOURCES: readonly Resource[] = ["pods", "nodes", "servicemonitors", "podmonitors", "configmaps", "services", "secrets", "deployments", "daemonsets", "endpointslices", "endpoints"];

/** Plain Kubernetes JSON; the one definition lives in world/kube.ts, shared with the world generator. */
export type { KubeObject } from "./world/kube";
import type { KubeObject } from "./world/kube";
import { iso } from "./world/naming";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoreEvent {
  type: WatchEventType;
  resource: Resource;
  /** the object after the change (for DELETED: the last state, with the deletion's resourceVersion) */
  object: KubeObject;
  resourceVersion: number;
}

export type Listener = (event: StoreEvent) => void;

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;

export class ExpiredError extends Error {
  constructor(readonly requested: number, readonly oldest: number) {
    super(`too old resource version: ${requested} (${oldest})`);
  }
}

export class Store {
  private rv = 1;
  private uid = 0;
  private readonly objects = new Map<Resource, Map<string, KubeObject>>();
  /**
   * The same objects by namespace (cluster-scoped ones under ""), in the same order: a namespaced list or watch reads its
   * namespace only. A real allocator's discovery lists and watches pods namespace by namespace, hundreds of times at
   * start; filtering every pod of a 5,000-node world each time kept the demo's API busy for most of half a minute.
   */
  private readonly byNamespace = new Map<Resource, Map<string, Map<string, KubeObject>>>();
  private readonly log: StoreEvent[] = [];
  private readonly listeners = new Set<Listener>();
  /** resources whose CRD is "not installed": list/get/watch answer 404 */
  readonly missing = new Set<Resource>();

  constructor(private readonly logLimit = 20_000, private readonly now: () => number = Date.now) {
    for (const r of RESOURCES) {
      this.objects.set(r, new Map());
      this.byNamespace.set(r, new Map());
    }
  }

  get resourceVersion(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch may resume from. */
  get oldestResumable(): number {
    return this.log.length ? this.log[0].resourceVersion - 1 : this.rv;
  }

  /** The objects of `resource` (in `namespace` only, when given), in the order they were first stored. */
  list(resource: Resource, namespace?: string): KubeObject[] {
    if (!namespace) return [...this.objects.get(resource)!.values()];
    return [...(this.byNamespace.get(resource)!.get(namespace)?.values() ?? [])];
  }

  get(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(resource)!.get(`${namespace ?? ""}/${name}`);
  }

  count(resource: Resource): number {
    return this.objects.get(resource)!.size;
  }

  /** Create or replace an object. Returns the stored copy (with resourceVersion and uid). */
  upsert(resource: Resource, object: KubeObject): KubeObject {
    const map = this.objects.get(resource)!;
    const key = keyOf(object);
    const previous = map.get(key);
    const rv = ++this.rv;
    const stored: KubeObject = {
      ...object,
      metadata: {
        ...object.metadata,
        uid: previous?.metadata.uid ?? object.metadata.uid ?? `00000000-0000-4000-8000-${(++this.uid).toString(16).padStart(12, "0")}`,
        creationTimestamp:
          previous?.metadata.creationTimestamp ?? object.metadata.creationTimestamp ?? iso(this.now()),
        resourceVersion: String(rv),
      },
    };
    map.set(key, stored);
    const namespace = stored.metadata.namespace ?? "";
    const inNamespace = this.byNamespace.get(resource)!;
    let ns = inNamespace.get(namespace);
    if (!ns) inNamespace.set(namespace, (ns = new Map()));
    ns.set(key, stored);
    this.emit({ type: previous ? "MODIFIED" : "ADDED", resource, object: stored, resourceVersion: rv });
    return stored;
  }

  /** Change an object in place through a function of its current state. Returns undefined when it does not exist. */
  update(resource: Resource, namespace: string | undefined, name: string, fn: (o: KubeObject) => KubeObject): KubeObject | undefined {
    const current = this.get(resource, namespace, name);
    if (!current) return undefined;
    return this.upsert(resource, fn(structuredClone(current)));
  }

  remove(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    const map = this.objects.get(resource)!;
    const key = `${namespace ?? ""}/${name}`;
    const current = map.get(key);
    if (!current) return undefined;
    map.delete(key);
    const inNamespace = this.byNamespace.get(resource)!;
    const ns = inNamespace.get(namespace ?? "");
    ns?.delete(key);
    if (ns && !ns.size) inNamespace.delete(namespace ?? "");
    const rv = ++this.rv;
    const last = { ...current, metadata: { ...current.metadata, resourceVersion: String(rv) } };
    this.emit({ type: "DELETED", resource, object: last, resourceVersion: rv });
    return last;
  }

  /** Events of one resource after `resourceVersion`; throws ExpiredError when that point has left the log. */
  eventsSince(resource: Resource, resourceVersion: number): StoreEvent[] {
    if (resourceVersion < this.oldestResumable) throw new ExpiredError(resourceVersion, this.oldestResumable);
    return this.log.filter((e) => e.resource === resource && e.resourceVersion > resourceVersion);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drop the event log (as etcd compaction does): every watch resuming from an older resourceVersion gets 410 Gone. */
  compact(): void {
    this.log.length = 0;
  }

  private emit(event: StoreEvent): void {
    this.log.push(event);
    if (this.log.length > this.logLimit) this.log.splice(0, this.log.length - this.logLimit);
    for (const l of this.listeners) l(event);
  }
}
