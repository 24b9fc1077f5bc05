/**
 * The demo's Target Allocator pods: one per role, in the store as the operator's Deployment would keep it, and which
 * loopback server stands behind each (pod, containerPort) for the Kubernetes API's port-forward and service proxy. A
 * pod can be replaced (the `ta-pod-replaced` fault, or its node removed): the old one is DELETED, a new name is ADDED
 * Running and Ready, and the TA server behind it keeps running. A simulated TA that crash-loops (its ring over capacity)
 * shows it on its pod (`showCrash`).
 */
import type { Flavor, Role } from "@allocation-lens/allocation/model";
import type { KubeObject, Store } from "./store";
import { taNames, taPod } from "./world/target-allocators";
import { crash as crashPod, markReady } from "./pod-state";
import type { Crash } from "./allocator";

export interface Backend {
  host: string;
  port: number;
  /** the server speaks TLS (and requires a client certificate) */
  tls: boolean;
}

export class TaPods {
  private readonly generation: Partial<Record<Role, number>> = {};
  private readonly current: Partial<Record<Role, string>> = {};
  private readonly backends: Partial<Record<Role, Backend>> = {};

  constructor(
    private readonly store: Store,
    private readonly flavor: Flavor,
    readonly roles: readonly Role[],
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates each role's first pod (generation 0) on one of the store's nodes. */
  createAll(): void {
    for (const role of this.roles) this.create(role, 0, this.nodes());
  }

  /** The TA server behind a role's pod. */
  setBackend(role: Role, backend: Backend): void {
    this.backends[role] = backend;
  }

  /** The current pod name of each role. */
  names(): Partial<Record<Role, string>> {
    return { ...this.current };
  }

  podName(role: Role): string | undefined {
    return this.current[role];
  }

  /**
   * Deletes the role's pod and creates its replacement (a new name, Running), away from `avoidNode`. The replacement is
   * Ready at once, or, with `readyAfterMs`, first Running but not Ready for that long (a starting container and its
   * readiness probe), as a Deployment's new pod is.
   */
  replace(role: Role, avoidNode?: string, readyAfterMs = 0): { old: string | undefined; replacement: string } {
    const n = taNames(this.flavor, role);
    const old = this.current[role];
    if (old) this.store.remove("pods", n.namespace, old);
    const nodes = this.nodes().filter((x) => x.metadata.name !== avoidNode);
    const pod = this.create(role, (this.generation[role] ?? 0) + 1, nodes);
    if (readyAfterMs > 0) {
      const ready = structuredClone(pod);
      this.store.upsert("pods", notReady(pod, this.now()));
      const timer = setTimeout(() => {
        if (this.current[role] !== ready.metadata.name || !this.store.get("pods", n.namespace, ready.metadata.name)) return;
        this.store.upsert("pods", withReadySince(ready, this.now()));
      }, readyAfterMs);
      timer.unref();
    }
    return { old, replacement: pod.metadata.name };
  }

  /**
   * The role's TA container crashed (`crash`: how many restarts so far, the back-off) or runs again (`null`): its pod
   * shows CrashLoopBackOff, not Ready, the restart count and the last termination, or Ready again.
   */
  showCrash(role: Role, crash: Crash | null): void {
    const name = this.current[role];
    const n = taNames(this.flavor, role);
    if (!name || !this.store.get("pods", n.namespace, name)) return;
    const now = this.now();
    this.store.update("pods", n.namespace, name, (p) => {
      if (!crash) return markReady(p, now);
      const statuses = ((p.status?.containerStatuses as { restartCount?: number }[] | undefined) ?? []).map((c) => ({ ...c, restartCount: crash.restarts }));
      const crashed = crashPod({ ...p, status: { ...p.status, containerStatuses: statuses } }, now);
      for (const c of (crashed.status?.containerStatuses as { state?: { waiting?: { message?: string } } }[] | undefined) ?? []) {
        if (c.state?.waiting) c.state.waiting.message = `back-off ${Math.round(crash.backoffMs / 1000)}s restarting failed container=ta-container pod=${name}: panic: ${crash.reason}`;
      }
      return crashed;
    });
  }

  /** Replaces every TA pod scheduled on `node` (before the node goes away). */
  evict(node: string): string[] {
    const moved: string[] = [];
    for (const role of this.roles) {
      const name = this.current[role];
      const pod = name ? this.store.get("pods", taNames(this.flavor, role).namespace, name) : undefined;
      if (pod && pod.spec?.nodeName === node) moved.push(this.replace(role, node).replacement);
    }
    return moved;
  }

  /** The server behind `port` of pod `namespace/name`, or undefined when that pod does not serve that port. */
  backendFor(namespace: string, name: string, port: number): Backend | undefined {
    for (const role of this.roles) {
      const n = taNames(this.flavor, role);
      if (this.current[role] === name && n.namespace === namespace && n.containerPort === port) return this.backends[role];
    }
    return undefined;
  }

  private nodes(): KubeObject[] {
    return this.store
      .list("nodes")
      .filter((x) => !x.metadata.deletionTimestamp)
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  private create(role: Role, generation: number, nodes: KubeObject[]): KubeObject {
    let g = generation;
    let pod = taPod(this.flavor, role, g, nodes, this.now() - 5000);
    // a name still in the store is not given again
    while (this.store.get("pods", pod.metadata.namespace, pod.metadata.name)) pod = taPod(this.flavor, role, ++g, nodes, this.now());
    this.generation[role] = g;
    this.current[role] = pod.metadata.name;
    return this.store.upsert("pods", pod);
  }
}

type Condition = { type: string; status: string; lastTransitionTime?: string };
type PodStatus = { conditions?: Condition[]; containerStatuses?: { ready?: boolean; started?: boolean }[] };

/** The pod with its Ready and ContainersReady conditions False since `nowMs`, its containers not ready. */
function notReady(pod: KubeObject, nowMs: number): KubeObject {
  const copy = structuredClone(pod);
  const status = (copy.status ?? {}) as PodStatus;
  const at = new Date(nowMs).toISOString().replace(/\.\d+Z$/, "Z");
  for (const c of status.conditions ?? []) if (c.type === "Ready" || c.type === "ContainersReady") Object.assign(c, { status: "False", lastTransitionTime: at });
  for (const c of status.containerStatuses ?? []) Object.assign(c, { ready: false });
  return copy;
}

/** The Ready pod with its Ready transition at `nowMs`. */
function withReadySince(pod: KubeObject, nowMs: number): KubeObject {
  const copy = structuredClone(pod);
  const at = new Date(nowMs).toISOString().replace(/\.\d+Z$/, "Z");
  for (const c of ((copy.status ?? {}) as PodStatus).conditions ?? []) if (c.type === "Ready" || c.type === "ContainersReady") c.lastTransitionTime = at;
  return copy;
}
