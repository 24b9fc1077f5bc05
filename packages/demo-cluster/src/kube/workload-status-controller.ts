/**
 * The demo cluster's DaemonSet and Deployment status controllers: every DaemonSet and Deployment in the Store gets the
 * status world/workload-status.ts computes from the pods it selects and the nodes, as kube-controller-manager writes it.
 * It reacts to pods of a workload's namespace, to nodes (a DaemonSet's desired count), and to writes of the workloads by
 * others (a rollout's new generation, the fault engine's heal), a little after the change (`delayMs`, changes in between
 * coalesced), and writes only a status that differs.
 */
import type { KubeObject, Store, StoreEvent } from "../store";
import { workloadStatus } from "../world/workload-status";

const WORKLOADS = ["daemonsets", "deployments"] as const;

export class WorkloadStatusController {
  private unsubscribe: (() => void) | undefined;
  private writing = false;
  private timer: NodeJS.Timeout | undefined;
  /** namespaces whose workloads to reconcile when the timer fires; "*" for all (a node changed) */
  private readonly pending = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly delayMs = 200,
  ) {}

  /** Makes every workload's status right, then follows the Store. */
  start(): void {
    if (this.unsubscribe) return;
    this.reconcile("*");
    this.unsubscribe = this.store.subscribe((e) => this.onEvent(e));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  /** Reconciles everything pending now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const namespaces = [...this.pending];
    this.pending.clear();
    if (namespaces.includes("*")) this.reconcile("*");
    else for (const ns of namespaces) this.reconcile(ns);
  }

  private later(namespace: string): void {
    this.pending.add(namespace);
    if (this.delayMs <= 0) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  private onEvent(e: StoreEvent): void {
    if (this.writing) return;
    if (e.resource === "nodes") return this.later("*");
    if (e.resource !== "pods" && e.resource !== "daemonsets" && e.resource !== "deployments") return;
    const ns = e.object.metadata.namespace ?? "";
    if (e.resource === "pods" && !WORKLOADS.some((r) => this.store.list(r, ns).length)) return;
    this.later(ns);
  }

  /** Writes the status of every workload of `namespace` ("*": of every namespace) that differs from what it should be. */
  private reconcile(namespace: string): void {
    const nodes = this.store.list("nodes").map((n) => n.metadata.name);
    for (const resource of WORKLOADS) {
      for (const w of namespace === "*" ? this.store.list(resource) : this.store.list(resource, namespace)) {
        const status = workloadStatus(w, this.store.list("pods", w.metadata.namespace), nodes);
        if (JSON.stringify(status) === JSON.stringify(w.status ?? {})) continue;
        this.writing = true;
        try {
          this.store.update(resource, w.metadata.namespace, w.metadata.name, (o: KubeObject) => ({ ...o, status }));
        } finally {
          this.writing = false;
        }
      }
    }
  }
}
