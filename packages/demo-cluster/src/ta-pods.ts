/**
 * The demo's Target Allocator pods: one per role, in the store as the operator's Deployment would keep it, and which
 * loopback server stands behind each (pod, containerPort) for the Kubernetes API's port-forward and service proxy. A
 * pod can be replaced (the `ta-pod-replaced` fault, or its node removed): the old one is DELETED, a new name is ADDED
 * Running and Ready, and the TA server behind it keeps running.
 */
import type { Flavor, Role } from "@allocation-lens/allocation/model";
import type { KubeObject, Store } from "./store";
import { taNames, taPod } from "./world/target-allocators";

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

  /** Deletes the role's pod and creates its replacement (a new name, Running and Ready), away from `avoidNode`. */
  replace(role: Role, avoidNode?: string): { old: string | undefined; replacement: string } {
    const n = taNames(this.flavor, role);
    const old = this.current[role];
    if (old) this.store.remove("pods", n.namespace, old);
    const nodes = this.nodes().filter((x) => x.metadata.name !== avoidNode);
    const pod = this.create(role, (this.generation[role] ?? 0) + 1, nodes);
    return { old, replacement: pod.metadata.name };
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
