/**
 * One simulated Target Allocator's brain: tracks its collector pods from the store's pod events (ready-only or legacy,
 * with watch sessions that can be cut), discovers its targets from the world (monitors routed by annotation plus its static
 * jobs), and allocates them with the same lib/ strategies the analysis uses. Produces the TaState its HTTP server serves.
 */
import type { Collector, Flavor, Role, StrategyName, Target, Tracking } from "@allocation-lens/allocation/model";
import { podViewFromObject } from "@allocation-lens/allocation/eligibility";
import { collectorsOf, emptyTrackState, trackReduce, type TrackState } from "@allocation-lens/allocation/tracking";
import { allocate } from "@allocation-lens/allocation/strategies";
import { RingCapacityError } from "@allocation-lens/allocation/hashring";
import { keepsMonitor } from "@allocation-lens/allocation/routing";
import { discoverTargets, scrapeConfigsFor } from "./world/discovery";
import { targetIdentity, type RelabelConfig } from "./world/relabel";
import type { StaticJob } from "./world/static-jobs";
import { buildTaState, emptyMetricState, type TaJobState, type TaState } from "./ta/state";
import type { TaFaults } from "./ta/server";
import type { KubeObject, Store, StoreEvent } from "./store";
import { hostileJob } from "./hostile";

export interface AllocatorOptions {
  role: Role;
  flavor: Flavor;
  tracking: Tracking;
  strategy: StrategyName;
  fallback: "consistent-hashing" | null;
  annotationKey: string;
  namespace: string;
  selector: Record<string, string>;
  staticJobs: StaticJob[];
  /** how often the allocator reconciles (collector-set changes are applied at most this often) */
  reconcileMs: number;
  graceMs: number;
  /** told when the process crashes (its ring over capacity) and at each restart: the TA pod shows the crash loop */
  onCrash?: (crash: Crash | null) => void;
  /** the first back-off before a crashed process is started again (default 10 s, the kubelet's) */
  restartBackoffMs?: number;
}

/** A crash-looping process: why it dies, since when, how many restarts so far, and the back-off before the next. */
export interface Crash {
  reason: string;
  since: number;
  restarts: number;
  backoffMs: number;
}

/** The kubelet's back-off before restarting a crashed container: 10 s (`firstMs`), doubled at each crash, at most 5 minutes. */
export const crashBackoffMs = (restarts: number, firstMs = 10_000): number => Math.min(300_000, firstMs * 2 ** Math.min(restarts, 5));

/**
 * Upstream's collector watcher looks at its pods at most every 5 s, and only when a pod event (or its informer's resync,
 * every 30 s) came in since: a not-Ready collector leaves at the first look after its grace period, not at its end.
 */
const WATCHER_TICK_MS = 5_000;
const WATCHER_RESYNC_MS = 30_000;
/**
 * Its targets take two throttled hops: Prometheus's discovery manager sends changed groups at most every 5 s, and the
 * allocator reprocesses them on its own 5 s reload tick (started here half a period later, as the average phase).
 */
const DISCOVERY_SEND_MS = 5_000;
const DISCOVERY_RELOAD_OFFSET_MS = 2_500;

const matches = (o: KubeObject, namespace: string, selector: Record<string, string>) =>
  o.metadata.namespace === namespace && Object.entries(selector).every(([k, v]) => o.metadata.labels?.[k] === v);

export class DemoAllocator {
  state: TaState;
  readonly faults: TaFaults = {};
  routing = true;
  hostile = false;
  private track: TrackState = emptyTrackState();
  private watchConnected = true;
  private targetsDirty = true;
  private collectorsKey = "";
  private jobs = new Map<string, Target[]>();
  private assignment = new Map<string, string | null>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pendingEvents: Record<string, number> = {};
  /** upstream: the collector set as its watcher last computed it, and whether a pod event came in since */
  private watched: Collector[] | undefined;
  private watcherNotified = true;
  private watcherTimers: NodeJS.Timeout[] = [];
  /** upstream: a discovery change not yet sent by the discovery manager, and one sent but not yet reloaded */
  private discoveryChanged = false;
  private reloadTriggered = false;
  /** upstream: each target identity's target as first discovered */
  private firstSeen = new Map<string, Target>();
  /** the process is crash-looping (its ring over capacity): no listener, restarted with the kubelet's back-off */
  crashed: Crash | null = null;
  private crashTimer: NodeJS.Timeout | undefined;
  private restarting = false;

  constructor(
    private readonly store: Store,
    readonly options: AllocatorOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.state = buildTaState({ role: options.role, flavor: options.flavor, strategy: options.strategy, ready: false, collectors: [], jobs: new Map(), scrapeConfigs: {}, previous: emptyMetricState() });
  }

  start(): void {
    this.openSession();
    this.unsubscribe = this.store.subscribe((e) => this.onEvent(e));
    if (this.upstreamWatcher) {
      this.watcherTimers = [
        setInterval(() => {
          if (!this.watcherNotified) return;
          this.watcherNotified = false;
          this.watched = this.currentCollectors();
        }, WATCHER_TICK_MS),
        setInterval(() => {
          if (this.track.size > 0) this.watcherNotified = true;
        }, WATCHER_RESYNC_MS),
        setInterval(() => {
          if (!this.discoveryChanged) return;
          this.discoveryChanged = false;
          this.reloadTriggered = true;
        }, DISCOVERY_SEND_MS),
      ];
      const reload = setTimeout(() => {
        this.watcherTimers.push(
          setInterval(() => {
            if (!this.reloadTriggered) return;
            this.reloadTriggered = false;
            this.targetsDirty = true;
          }, DISCOVERY_SEND_MS),
        );
      }, DISCOVERY_RELOAD_OFFSET_MS);
      this.watcherTimers.push(reload);
    }
    this.reconcile();
    this.timer = setInterval(() => this.reconcile(), this.options.reconcileMs);
  }

  private get upstreamWatcher(): boolean {
    return this.options.flavor === "upstream" && this.options.tracking === "ready-only";
  }

  private currentCollectors(): Collector[] {
    const o = this.options;
    return collectorsOf(this.track, o.tracking, o.flavor, this.now(), o.graceMs);
  }

  stop(): void {
    clearTimeout(this.crashTimer);
    for (const t of this.watcherTimers) clearInterval(t);
    this.watcherTimers = [];
    clearInterval(this.timer);
    clearTimeout(this.reconnectTimer);
    this.unsubscribe?.();
  }

  /** Cut the TA's pod watch for `ms`: events in between are never delivered; then a new watch session starts. */
  disconnectWatch(ms: number): void {
    this.watchConnected = false;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.openSession(), ms);
  }

  /** A restarted process: the assignment, the metrics' history and the collectors' tracking start from nothing. */
  restart(): void {
    this.assignment = new Map();
    this.collectorsKey = "";
    this.targetsDirty = true;
    this.track = emptyTrackState();
    this.watched = undefined;
    this.firstSeen = new Map();
    const o = this.options;
    this.state = buildTaState({ role: o.role, flavor: o.flavor, strategy: o.strategy, ready: false, collectors: [], jobs: new Map(), scrapeConfigs: {}, previous: emptyMetricState() });
    this.openSession();
  }

  /** Targets changed for reasons outside the store (routing switch, hostile target, CRD presence). */
  invalidate(): void {
    // upstream's discovery takes its two hops whatever the cause (heal included)
    if (this.upstreamWatcher) this.discoveryChanged = true;
    else this.targetsDirty = true;
  }

  /** Assigned collector per target key, for the control API's /truth. */
  assignmentOf(key: string): string | null {
    return this.assignment.get(key) ?? null;
  }

  allTargets(): Target[] {
    return [...this.jobs.values()].flat();
  }

  registeredCollectors(): string[] {
    return this.state.collectors as string[];
  }

  /** The collectors it tracks now, with the node each was registered on (a deleted pod it still holds included). */
  trackedCollectors(): Collector[] {
    return this.currentCollectors();
  }

  private openSession(): void {
    const { namespace, selector } = this.options;
    const pods = this.store.list("pods", namespace).filter((p) => matches(p, namespace, selector)).map(podViewFromObject);
    this.track = trackReduce(this.track, { type: "session", pods }, this.options.tracking);
    this.watchConnected = true;
    this.watcherNotified = true;
  }

  private onEvent(e: StoreEvent): void {
    const { namespace, selector } = this.options;
    if (e.resource === "pods" && matches(e.object, namespace, selector)) {
      if (!this.watchConnected) return;
      this.track = trackReduce(this.track, { type: e.type, pod: podViewFromObject(e.object) }, this.options.tracking);
      this.watcherNotified = true;
      return;
    }
    if (this.upstreamWatcher) this.discoveryChanged = true;
    else this.targetsDirty = true;
    const source = e.resource === "pods" || e.resource === "nodes" ? "EventSourceKubernetes" : "EventSourcePrometheusCR";
    this.pendingEvents[source] = (this.pendingEvents[source] ?? 0) + 1;
  }

  /**
   * Upstream keys its targets by identity (job and relabeled labels, `__meta_*` left out) and keeps the one it has while
   * the identity stays: a target whose `__meta_*` labels alone changed is served as first discovered (world/relabel.ts).
   */
  private keepFirstSeen(jobs: Map<string, Target[]>, configs: Record<string, Record<string, unknown>>): Map<string, Target[]> {
    const seen = new Map<string, Target>();
    const out = new Map<string, Target[]>();
    for (const [job, targets] of jobs) {
      const relabels = (configs[job]?.relabel_configs as RelabelConfig[] | undefined) ?? [];
      const kept: Target[] = [];
      for (const t of targets) {
        const id = targetIdentity(job, t.labels, relabels);
        if (seen.has(id)) continue;
        const target = this.firstSeen.get(id) ?? t;
        seen.set(id, target);
        kept.push(target);
      }
      if (kept.length) out.set(job, kept);
    }
    this.firstSeen = seen;
    return out;
  }

  /**
   * The process dies as a real allocator's does when it cannot build its ring (RingCapacityError): its listener is gone
   * and it is restarted after the kubelet's back-off, with nothing kept; each restart builds the ring again and dies
   * again while there are too many collectors.
   */
  private crash(reason: string): void {
    const restarts = this.crashed ? this.crashed.restarts + 1 : 0;
    const backoffMs = crashBackoffMs(restarts, this.options.restartBackoffMs);
    this.crashed = { reason, since: this.crashed?.since ?? this.now(), restarts, backoffMs };
    const o = this.options;
    this.state = buildTaState({ role: o.role, flavor: o.flavor, strategy: o.strategy, ready: false, collectors: [], jobs: new Map(), scrapeConfigs: {}, previous: emptyMetricState() });
    this.assignment = new Map();
    this.collectorsKey = "";
    this.options.onCrash?.(this.crashed);
    clearTimeout(this.crashTimer);
    this.crashTimer = setTimeout(() => this.restartAfterCrash(), backoffMs);
    this.crashTimer.unref?.();
  }

  /** The kubelet starts the container again: a fresh process that reconciles at once, and dies again or runs. */
  private restartAfterCrash(): void {
    const crashed = this.crashed;
    this.restart();
    this.crashed = crashed;
    this.restarting = true;
    try {
      this.reconcile();
    } finally {
      this.restarting = false;
    }
    if (this.crashed === crashed) {
      // it came up and did not die: the ring fits again
      this.crashed = null;
      this.options.onCrash?.(null);
    }
  }

  reconcile(): void {
    // a crashed process does nothing until the kubelet starts it again
    if (this.crashed && !this.restarting) return;
    const o = this.options;
    if (this.upstreamWatcher && !this.watched) this.watched = this.currentCollectors();
    const collectors = this.upstreamWatcher ? this.watched! : this.currentCollectors();
    const key = collectors.map((c) => `${c.id}@${c.node}`).join(",");
    const collectorsChanged = key !== this.collectorsKey;
    if (!collectorsChanged && !this.targetsDirty && this.state.ready) return;
    const started = performance.now();
    let scrapeConfigs = this.state.scrapeConfigs;
    if (this.targetsDirty || !this.state.ready) {
      const input = {
        nodes: this.store.list("nodes"),
        pods: this.store.list("pods"),
        serviceMonitors: this.store.missing.has("servicemonitors") ? [] : this.store.list("servicemonitors"),
        podMonitors: this.store.missing.has("podmonitors") ? [] : this.store.list("podmonitors"),
        staticJobs: o.staticJobs,
        flavor: o.flavor,
        services: o.flavor === "cloudwatch" ? this.store.list("services") : undefined,
        endpoints: o.flavor === "cloudwatch" ? this.store.list("endpoints") : undefined,
        // Only the cloudwatch fork routes monitors by annotation; an upstream TA keeps every monitor.
        keep: (m: Parameters<typeof keepsMonitor>[1]) => o.flavor !== "cloudwatch" || keepsMonitor(o.role, m, o.annotationKey, this.routing),
      };
      this.jobs = discoverTargets(input);
      scrapeConfigs = scrapeConfigsFor(input);
      if (o.flavor === "upstream") this.jobs = this.keepFirstSeen(this.jobs, scrapeConfigs);
      if (this.hostile) {
        const h = hostileJob(o.role);
        this.jobs.set(h.name, h.targets);
        scrapeConfigs = { ...scrapeConfigs, [h.name]: h.config };
      }
      this.targetsDirty = false;
    }
    const previous = new Map<string, string>();
    for (const [k, v] of this.assignment) if (v) previous.set(k, v);
    let result: ReturnType<typeof allocate>;
    try {
      result = allocate({ targets: this.allTargets(), collectors, previous }, { strategy: o.strategy, flavor: o.flavor, fallback: o.fallback });
    } catch (e) {
      if (!(e instanceof RingCapacityError)) throw e;
      return this.crash(e.message);
    }
    this.assignment = result.assignment;
    this.collectorsKey = key;
    const jobs = new Map<string, TaJobState>();
    for (const [name, targets] of this.jobs) jobs.set(name, { targets, assignment: this.assignment });
    const events = this.pendingEvents;
    this.pendingEvents = {};
    this.state = buildTaState({
      role: o.role,
      flavor: o.flavor,
      strategy: o.strategy,
      ready: true,
      collectors: collectors.map((c) => c.id),
      jobs,
      scrapeConfigs,
      previous: this.state,
      allocation: { seconds: (performance.now() - started) / 1000, method: collectorsChanged ? "SetCollectors" : "SetTargets" },
      events,
    });
  }
}
