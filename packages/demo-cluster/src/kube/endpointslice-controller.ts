/**
 * The demo cluster's EndpointSlice and Endpoints controllers, the part of kube-controller-manager a Target Allocator's
 * Kubernetes discovery depends on: for every Service with a selector it keeps one EndpointSlice (world/endpoint-slices.ts)
 * and one core/v1 Endpoints (world/endpoints.ts; the CloudWatch fork's allocator discovers through them) in step with the
 * pods, in the same Store write order a real cluster has (the pod's change, then its slice's). It reacts to
 * pod changes (Ready or not, terminating, deleted, new pods of a node added or a rollout), to Service changes (a deleted
 * Service takes its slice, as the garbage collector would), and to writes of its slices by others (the fault engine's
 * heal), which it puts back when they differ from what the pods say. Like the real controller it reacts a little after
 * the change (`delayMs`, changes in between coalesced): a client's pod watch then sees the pod before the slice that
 * names it, which Prometheus's endpointslice discovery needs (it resolves the slice's pods from its pod cache and has no
 * handler for pod changes).
 */
import type { KubeObject, Store, StoreEvent } from "../store";
import { endpointSliceFor, MANAGED_BY, MANAGED_BY_LABEL, serviceSelects, SERVICE_NAME_LABEL, ZONE_LABEL } from "../world/endpoint-slices";
import { endpointsFor } from "../world/endpoints";

const comparable = (o: KubeObject) =>
  JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: undefined, uid: undefined, creationTimestamp: undefined } });

export class EndpointSliceController {
  private unsubscribe: (() => void) | undefined;
  /** true while the controller writes: its own events are not reacted to */
  private writing = false;
  /** pod `ns/name` -> the names of the services (of its namespace) whose slice holds it, to follow a pod that stops matching */
  private readonly heldBy = new Map<string, Set<string>>();
  /** service `ns/name` -> the pod keys its slice holds */
  private readonly holds = new Map<string, string[]>();

  /** services `ns/name` to reconcile when the timer fires */
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  /** `delayMs`: how long after a change its slices are written (0: at once, in the same Store write) */
  constructor(
    private readonly store: Store,
    private readonly delayMs = 200,
  ) {}

  /** Reconciles the service `namespace/name` now or after the delay. */
  private later(namespace: string, name: string): void {
    if (this.delayMs <= 0) return this.sync(namespace, name);
    this.pending.add(`${namespace}/${name}`);
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  /** Reconciles every pending service now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const keys = [...this.pending];
    this.pending.clear();
    for (const key of keys) {
      const slash = key.indexOf("/");
      this.sync(key.slice(0, slash), key.slice(slash + 1));
    }
  }

  private sync(namespace: string, name: string): void {
    const svc = this.store.get("services", namespace, name);
    if (svc) this.reconcile(svc);
    else this.removeSliceOf(namespace, name);
  }

  /** Makes every slice right, then follows the Store. */
  start(): void {
    if (this.unsubscribe) return;
    const byNamespace = new Map<string, KubeObject[]>();
    for (const p of this.store.list("pods")) {
      const ns = p.metadata.namespace ?? "";
      let list = byNamespace.get(ns);
      if (!list) byNamespace.set(ns, (list = []));
      list.push(p);
    }
    for (const svc of this.store.list("services")) this.reconcile(svc, byNamespace.get(svc.metadata.namespace ?? "") ?? []);
    for (const slice of this.store.list("endpointslices")) if (this.orphaned(slice)) this.write(() => this.store.remove("endpointslices", slice.metadata.namespace, slice.metadata.name));
    for (const eps of this.store.list("endpoints")) {
      const svc = this.store.get("services", eps.metadata.namespace, eps.metadata.name);
      if (!svc || !endpointsFor(svc, [])) this.write(() => this.store.remove("endpoints", eps.metadata.namespace, eps.metadata.name));
    }
    this.unsubscribe = this.store.subscribe((e) => this.onEvent(e));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  private write(fn: () => void): void {
    this.writing = true;
    try {
      fn();
    } finally {
      this.writing = false;
    }
  }

  private zoneOf = (node: string): string | undefined => this.store.get("nodes", undefined, node)?.metadata.labels?.[ZONE_LABEL];

  /** A managed slice whose Service is gone or has no selector. */
  private orphaned(slice: KubeObject): boolean {
    if (slice.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY) return false;
    const svc = this.store.get("services", slice.metadata.namespace, slice.metadata.labels?.[SERVICE_NAME_LABEL] ?? "");
    return !svc || !(svc.spec?.selector && Object.keys(svc.spec.selector as object).length);
  }

  private onEvent(e: StoreEvent): void {
    if (this.writing) return;
    const ns = e.object.metadata.namespace ?? "";
    switch (e.resource) {
      case "pods": {
        const key = `${ns}/${e.object.metadata.name}`;
        const affected = new Set(this.heldBy.get(key) ?? []);
        for (const svc of this.store.list("services", ns)) if (serviceSelects(svc, e.object)) affected.add(svc.metadata.name);
        for (const name of affected) this.later(ns, name);
        return;
      }
      case "services":
        return this.later(ns, e.object.metadata.name);
      case "endpointslices": {
        if (e.object.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY) return;
        return this.later(ns, e.object.metadata.labels?.[SERVICE_NAME_LABEL] ?? "");
      }
      case "endpoints":
        return this.later(ns, e.object.metadata.name);
      default:
        return;
    }
  }

  private removeSliceOf(namespace: string, service: string): void {
    this.forget(namespace, service);
    if (this.store.get("endpoints", namespace, service)) this.write(() => this.store.remove("endpoints", namespace, service));
    for (const slice of this.store.list("endpointslices", namespace)) {
      const labels = slice.metadata.labels ?? {};
      if (labels[MANAGED_BY_LABEL] === MANAGED_BY && labels[SERVICE_NAME_LABEL] === service) {
        this.write(() => this.store.remove("endpointslices", namespace, slice.metadata.name));
      }
    }
  }

  private forget(namespace: string, service: string): void {
    const key = `${namespace}/${service}`;
    for (const pod of this.holds.get(key) ?? []) {
      const services = this.heldBy.get(pod);
      services?.delete(service);
      if (services && !services.size) this.heldBy.delete(pod);
    }
    this.holds.delete(key);
  }

  /** Writes the slice and the Endpoints of `svc` when they differ from what the pods say (or removes them when the Service has no selector). */
  private reconcile(svc: KubeObject, pods?: readonly KubeObject[]): void {
    const ns = svc.metadata.namespace ?? "";
    const want = endpointSliceFor(svc, pods ?? this.store.list("pods", ns), this.zoneOf);
    if (!want) return this.removeSliceOf(ns, svc.metadata.name);
    this.forget(ns, svc.metadata.name);
    const held = (want.endpoints as { targetRef: { name: string } }[]).map((ep) => `${ns}/${ep.targetRef.name}`);
    for (const key of held) {
      let set = this.heldBy.get(key);
      if (!set) this.heldBy.set(key, (set = new Set()));
      set.add(svc.metadata.name);
    }
    this.holds.set(`${ns}/${svc.metadata.name}`, held);
    const current = this.store.get("endpointslices", ns, want.metadata.name);
    if (!current || comparable(current) !== comparable(want)) this.write(() => this.store.upsert("endpointslices", want));
    const endpoints = endpointsFor(svc, pods ?? this.store.list("pods", ns));
    const currentEndpoints = this.store.get("endpoints", ns, svc.metadata.name);
    if (endpoints && (!currentEndpoints || comparable(currentEndpoints) !== comparable(endpoints))) this.write(() => this.store.upsert("endpoints", endpoints));
  }
}
