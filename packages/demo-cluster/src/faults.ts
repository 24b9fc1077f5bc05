/**
 * The demo cluster's fault engine: each named fault changes the world the way the real failure would (pod status written
 * as the kubelet writes it, a watch cut while a pod is replaced, a TA that stops answering...). `heal()` puts everything
 * back: the store is reconciled to the baseline world and every TA switch is reset.
 */
import type { Fault } from "./contract/faults";
import type { Role } from "@allocation-lens/allocation/model";
import type { WorldBuilder, World } from "./world/generate";
import type { DemoAllocator } from "./allocator";
import type { KubeObject, Resource, Store } from "./store";
import { crash, markNotReady, markReady, markTerminating } from "./pod-state";
import type { TaPods } from "./ta-pods";
import { agentWorkload } from "./world/agents";
import { iso } from "./world/naming";
import { isTaPod } from "./world/target-allocators";

export class FaultError extends Error {}

export interface FaultContext {
  store: Store;
  builder: WorldBuilder;
  world: World;
  /** the objects heal puts back, per resource; a resource without an entry (endpointslices: the controller's) is left alone */
  baseline: Partial<Record<Resource, KubeObject[]>>;
  allocators: Partial<Record<Role, DemoAllocator>>;
  /** the TA pods (absent in unit tests without them) */
  taPods?: TaPods;
  dropWatches(): void;
  /** partitions the open watches of `resource` that see `o` for `ms`, then ends them (kube/watch.ts ActiveWatch.stall) */
  stallWatches?(resource: "pods", o: KubeObject, ms: number): number;
  now(): number;
  /** the roles whose TA is a real allocator (`--ta real`: upstream's or the CloudWatch fork's), with a way to kill and restart its process */
  realTas?: Partial<Record<Role, { restart(downMs: number): Promise<void> }>>;
}

/** Faults that act on the simulated allocator itself: a real one cannot be made to do them. */
const SIMULATED_ONLY: Partial<Record<Fault["fault"], string>> = {
  "ta-outage": "it makes the simulated allocator refuse connections (use ta-killed with downSeconds for the real one)",
  "ta-slow": "it slows the simulated allocator's answers",
  "ta-malformed": "it makes the simulated allocator serve malformed JSON",
  "hostile-target": "it makes the simulated allocator list a target of its own invention",
  "routing-off": "it switches off the simulated allocator's annotation routing",
};

/** An object's JSON without what the store sets on every write, to compare it with the baseline. */
const stripVolatile = (o: KubeObject) => JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: undefined, uid: undefined, creationTimestamp: undefined } });

export class FaultEngine {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly active: Fault[] = [];
  private revision: Record<Role, number> = { "per-node": 0, "cluster-scraper": 0 };

  constructor(private readonly ctx: FaultContext) {}

  list(): Fault[] {
    return [...this.active];
  }

  apply(fault: Fault): { fault: string; did: string } {
    const why = SIMULATED_ONLY[fault.fault];
    if (why && "role" in fault && this.ctx.realTas?.[fault.role]) {
      throw new FaultError(`fault ${fault.fault} needs the simulated Target Allocator: ${why}; the ${fault.role} TA of this demo is a real one (--ta real)`);
    }
    const did = this.run(fault);
    this.active.push(fault);
    return { fault: fault.fault, did };
  }

  private allocator(role: Role): DemoAllocator {
    const a = this.ctx.allocators[role];
    if (!a) throw new FaultError(`this demo has no ${role} Target Allocator (the upstream flavor runs a single per-node TA)`);
    return a;
  }

  private agentPods(role: Role, node?: string): KubeObject[] {
    const { namespace, agents } = this.ctx.world;
    const sel = agents[role].selector;
    return this.ctx.store
      .list("pods", namespace)
      .filter((p) => Object.entries(sel).every(([k, v]) => p.metadata.labels?.[k] === v))
      .filter((p) => node === undefined || (p.spec?.nodeName as string) === node)
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  private nodeAgent(node: string): KubeObject {
    if (!this.ctx.store.get("nodes", undefined, node)) throw new FaultError(`unknown node "${node}"`);
    const pod = this.agentPods("per-node", node).find((p) => !p.metadata.deletionTimestamp);
    if (!pod) throw new FaultError(`no per-node agent pod on node "${node}"`);
    return pod;
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private updatePod(pod: KubeObject, fn: (p: KubeObject, now: number) => KubeObject): void {
    this.ctx.store.update("pods", pod.metadata.namespace, pod.metadata.name, (p) => fn(p, this.ctx.now()));
  }

  private run(f: Fault): string {
    const { store, now } = this.ctx;
    switch (f.fault) {
      case "collector-not-ready": {
        const pod = this.nodeAgent(f.node);
        this.updatePod(pod, markNotReady);
        return `pod ${pod.metadata.name} on ${f.node} is Running but not Ready`;
      }
      case "collector-crashloop": {
        const pod = this.nodeAgent(f.node);
        const loop = () => {
          if (!store.get("pods", pod.metadata.namespace, pod.metadata.name)) return;
          this.updatePod(pod, crash);
          this.later(15_000, loop);
        };
        loop();
        return `pod ${pod.metadata.name} on ${f.node} is in CrashLoopBackOff (a restart every 15 s)`;
      }
      case "collector-deleted-unseen": {
        const old = this.nodeAgent(f.node);
        const perNode = this.allocator("per-node");
        // The simulated TA's watch is cut for 3 s. A real allocator's watch is partitioned instead: every open pod watch that
        // sees the old pod delivers nothing for 3 s and then ends. A client that re-watches from its last resourceVersion
        // (client-go's informers, the dashboard's) replays the deletion; the fork's collector watcher re-watches without
        // one and never sees it.
        const real = !!this.ctx.realTas?.["per-node"];
        perNode.disconnectWatch(3_000);
        if (real) this.ctx.stallWatches?.("pods", old, 3_000);
        store.remove("pods", old.metadata.namespace, old.metadata.name);
        // The replacement sorts after the old name, so a TA that still holds the old pod keeps it (per-node's tie-break).
        let replacement = this.ctx.builder.agentPod("per-node", f.node, now());
        while (replacement.metadata.name <= old.metadata.name) replacement = this.ctx.builder.agentPod("per-node", f.node, now());
        store.upsert("pods", replacement);
        return real
          ? `pod ${old.metadata.name} on ${f.node} deleted while the pod watches that see it were partitioned (3 s); replaced by ${replacement.metadata.name}`
          : `pod ${old.metadata.name} on ${f.node} deleted while the per-node TA's watch was disconnected (3 s); replaced by ${replacement.metadata.name}`;
      }
      case "node-add": {
        const added = this.ctx.builder.nodeAdded(now(), f.zone);
        store.upsert("nodes", added.node);
        for (const p of added.pods) store.upsert("pods", p);
        return `node ${added.node.metadata.name} added with ${added.pods.length} pods`;
      }
      case "node-remove": {
        if (!store.get("nodes", undefined, f.node)) throw new FaultError(`unknown node "${f.node}"`);
        // a TA pod on the node is rescheduled elsewhere first, as its Deployment would
        const moved = this.ctx.taPods?.evict(f.node) ?? [];
        const pods = store.list("pods").filter((p) => p.spec?.nodeName === f.node);
        for (const p of pods) store.remove("pods", p.metadata.namespace, p.metadata.name);
        store.remove("nodes", undefined, f.node);
        return `node ${f.node} removed with its ${pods.length} pods${moved.length ? ` (TA pod rescheduled as ${moved.join(", ")})` : ""}`;
      }
      case "rollout":
        return this.rollout(f.role);
      case "annotate-monitor": {
        const kinds: Resource[] = f.kind ? [f.kind === "PodMonitor" ? "podmonitors" : "servicemonitors"] : ["servicemonitors", "podmonitors"];
        const resource = kinds.find((r) => store.get(r, f.namespace, f.name));
        if (!resource) throw new FaultError(`no ServiceMonitor or PodMonitor ${f.namespace}/${f.name}`);
        const key = f.key ?? this.allocator("per-node").options.annotationKey;
        store.update(resource, f.namespace, f.name, (m) => {
          const annotations = { ...(m.metadata.annotations ?? {}) };
          if (f.value === null) delete annotations[key];
          else annotations[key] = f.value;
          m.metadata.annotations = annotations;
          return m;
        });
        return f.value === null ? `annotation ${key} removed from ${f.namespace}/${f.name}` : `${f.namespace}/${f.name} annotated ${key}: ${f.value}`;
      }
      case "routing-off": {
        const a = this.allocator(f.role);
        a.routing = false;
        a.invalidate();
        return `the ${f.role} TA now keeps every monitor`;
      }
      case "ta-outage": {
        this.allocator(f.role).faults.outageUntil = now() + f.seconds * 1000;
        return `the ${f.role} TA refuses connections for ${f.seconds} s`;
      }
      case "ta-slow": {
        this.allocator(f.role).faults.slowMs = f.ms;
        return `the ${f.role} TA answers after ${f.ms} ms`;
      }
      case "ta-malformed": {
        this.allocator(f.role).faults.malformed = true;
        return `the ${f.role} TA serves malformed JSON`;
      }
      case "crd-missing": {
        const resource: Resource = f.kind === "PodMonitor" ? "podmonitors" : "servicemonitors";
        store.missing.add(resource);
        for (const a of Object.values(this.ctx.allocators)) a?.invalidate();
        this.ctx.dropWatches();
        return `the ${f.kind} CRD is no longer installed`;
      }
      case "ta-pod-replaced": {
        this.allocator(f.role);
        const taPods = this.ctx.taPods;
        if (!taPods?.podName(f.role)) throw new FaultError(`this demo has no ${f.role} TA pod`);
        const { old, replacement } = taPods.replace(f.role, undefined, f.readyAfterMs);
        const ready = f.readyAfterMs ? `, Ready after ${f.readyAfterMs} ms` : "";
        return `the ${f.role} TA pod ${old} was deleted (its port-forward tunnels closed) and replaced by ${replacement}${ready}; the TA keeps running`;
      }
      case "ta-killed": {
        const real = this.ctx.realTas?.[f.role];
        const a = this.allocator(f.role);
        if (real) {
          void real.restart(f.downSeconds * 1000).catch(() => undefined);
          return `the ${f.role} TA process was killed; it starts again ${f.downSeconds ? `after ${f.downSeconds} s` : "at once"} and allocates anew`;
        }
        a.faults.outageUntil = now() + f.downSeconds * 1000;
        a.restart();
        return `the ${f.role} TA refuses connections for ${f.downSeconds} s and allocates anew, as a restarted process`;
      }
      case "hostile-target": {
        const a = this.allocator(f.role);
        a.hostile = true;
        a.invalidate();
        return `the ${f.role} TA lists a target with markup in its job name and labels`;
      }
    }
  }

  /** Surge rollout: per batch, new pods start (not Ready for 3 s), then the old ones terminate and go away 2 s later. */
  private rollout(role: Role): string {
    this.allocator(role);
    const revision = ++this.revision[role];
    const old = this.agentPods(role).filter((p) => !p.metadata.deletionTimestamp);
    // the change a rollout starts from, as `kubectl rollout restart` makes it: a new template annotation, so the workload's
    // next generation (a real API server counts it the same way; its controller counts the pods that are updated)
    const { namespace } = this.ctx.world;
    const workload = agentWorkload(this.ctx.builder.flavor, role);
    this.ctx.store.update(role === "per-node" ? "daemonsets" : "deployments", namespace, workload, (w) => {
      const spec = w.spec as { template: { metadata: { annotations?: Record<string, string> } } };
      spec.template.metadata.annotations = { ...spec.template.metadata.annotations, "kubectl.kubernetes.io/restartedAt": iso(this.ctx.now()) };
      // the generation the new pods carry in pod-template-generation (revisions are not reset by a heal)
      return { ...w, metadata: { ...w.metadata, generation: revision + 1 } };
    });
    const batchSize = role === "per-node" ? Math.max(1, Math.ceil(old.length / 4)) : old.length;
    const batches: KubeObject[][] = [];
    for (let i = 0; i < old.length; i += batchSize) batches.push(old.slice(i, i + batchSize));
    const { store, builder, now } = this.ctx;
    batches.forEach((batch, i) => {
      this.later(i * 6_000, () => {
        const fresh = batch.map((o) => store.upsert("pods", builder.agentPod(role, o.spec?.nodeName as string, now(), { revision, ready: false })));
        this.later(3_000, () => {
          for (const p of fresh) if (store.get("pods", p.metadata.namespace, p.metadata.name)) this.updatePod(p, markReady);
          for (const o of batch) if (store.get("pods", o.metadata.namespace, o.metadata.name)) this.updatePod(o, markTerminating);
          this.later(2_000, () => {
            for (const o of batch) store.remove("pods", o.metadata.namespace, o.metadata.name);
          });
        });
      });
    });
    return `rolling ${old.length} ${role} agent pods to revision ${revision + 1} in ${batches.length} batches (two pods on a node for about 5 s each)`;
  }

  /** Everything back to the baseline world: objects, CRDs, TA switches. */
  heal(): { healed: number } {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const { store, baseline } = this.ctx;
    let changed = 0;
    const hadMissing = store.missing.size > 0;
    store.missing.clear();
    for (const resource of Object.keys(baseline) as Resource[]) {
      const want = new Map((baseline[resource] ?? []).map((o) => [`${o.metadata.namespace ?? ""}/${o.metadata.name}`, o]));
      for (const o of store.list(resource)) {
        // TA pods are not in the baseline: their replacement is a one-shot that heal leaves in place
        if (resource === "pods" && isTaPod(o)) continue;
        if (!want.has(`${o.metadata.namespace ?? ""}/${o.metadata.name}`)) {
          store.remove(resource, o.metadata.namespace, o.metadata.name);
          changed++;
        }
      }
      for (const o of want.values()) {
        const cur = store.get(resource, o.metadata.namespace, o.metadata.name);
        if (!cur || stripVolatile(cur) !== stripVolatile(o)) {
          store.upsert(resource, o);
          changed++;
        }
      }
    }
    for (const a of Object.values(this.ctx.allocators)) {
      if (!a) continue;
      for (const k of Object.keys(a.faults)) delete (a.faults as Record<string, unknown>)[k];
      a.routing = true;
      a.hostile = false;
      a.invalidate();
    }
    if (hadMissing) this.ctx.dropWatches();
    this.active.length = 0;
    return { healed: changed };
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
  }
}

