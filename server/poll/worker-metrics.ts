import "server-only";
/**
 * The allocation_lens_* series, kept in the poll worker where the snapshots and the churn history are: gauges set at
 * scrape time from each cluster's latest snapshot (never waiting for a poll), the churn counters incremented by the
 * history as events happen. The serving thread's /metrics asks for this text and adds its own process metrics
 * (server/metrics.ts).
 */
import { randomUUID } from "node:crypto";
import v8 from "node:v8";
import { Counter, Gauge, Registry } from "prom-client";
import pkg from "@/package.json";
import { ROLES } from "@/lib/model";
import { CHURN_METRICS, DerivedMetrics, deriveSeries, infoSeries, type Series } from "@/lib/metrics/derived";
import { configuredStrategies } from "@/lib/analysis/ring";
import type { ClusterPoller } from "@/server/poller";
import type { ChurnCounters, CounterLike, PodCounterLike } from "@/server/history/attach";

export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly derived = new DerivedMetrics(this.registry);
  /** what the history increments: the counters, each move also marking the text as changed */
  readonly churn: Required<ChurnCounters>;
  private readonly counters: Record<"readinessTransitions" | "targetReassignments", Counter<"cluster" | "role">>;
  /** renders one at a time: set() then format must not interleave with another scrape's set() */
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Bumped whenever a series may have changed: a poll finished (`changed()`), a churn counter moved. The text is rendered
   * again only then: at 5,000 collectors it is ~1 MB (a per-pod series each) and ~50 ms to build, and scrapers (two
   * Prometheus replicas, the bench's once a second) would otherwise each pay for it, inside a running poll too.
   */
  version = 1;
  private rendered: { version: string; seq: number; text: string } | undefined;
  /** one per worker: a restarted worker's versions never match its predecessor's */
  private readonly epoch = randomUUID();

  /** `version`, published for the serving thread (WorkerInit.metricsVersion) */
  private readonly published: Int32Array | undefined;

  constructor(
    private readonly pollers: ReadonlyMap<string, ClusterPoller>,
    metricsVersion?: SharedArrayBuffer,
  ) {
    this.published = metricsVersion && new Int32Array(metricsVersion, 0, 1);
    this.publish();
    const counter = (m: (typeof CHURN_METRICS)["readinessTransitions" | "targetReassignments"]) =>
      new Counter<"cluster" | "role">({ name: m.name, help: m.help, labelNames: ["cluster", "role"], registers: [this.registry] });
    const perPod = CHURN_METRICS.collectorTransitions;
    // The worker's own V8 heap (a worker thread has a heap of its own; prom-client's nodejs_heap_* series on the serving
    // thread show only that thread's): what the snapshots, the informer caches and the history cost.
    new Gauge({
      name: "allocation_lens_poll_worker_heap_bytes",
      help: "V8 heap of the poll worker thread, by kind: used, total (reserved) and limit.",
      labelNames: ["kind"],
      registers: [this.registry],
      collect() {
        const h = v8.getHeapStatistics();
        this.set({ kind: "used" }, h.used_heap_size);
        this.set({ kind: "total" }, h.total_heap_size);
        this.set({ kind: "limit" }, h.heap_size_limit);
      },
    });
    const bump = () => this.changed();
    const counted = (c: CounterLike): CounterLike => ({ inc: (labels, value) => (c.inc(labels, value), bump()) });
    const perPodCounter = new Counter({ name: perPod.name, help: perPod.help, labelNames: ["cluster", "role", "pod", "node"], registers: [this.registry] });
    const podCounted: PodCounterLike = { inc: (labels, value) => (perPodCounter.inc(labels, value), bump()), remove: (labels) => (perPodCounter.remove(labels), bump()) };
    this.counters = { readinessTransitions: counter(CHURN_METRICS.readinessTransitions), targetReassignments: counter(CHURN_METRICS.targetReassignments) };
    this.churn = { readinessTransitions: counted(this.counters.readinessTransitions), targetReassignments: counted(this.counters.targetReassignments), collectorTransitions: podCounted };
  }

  private series(): Series[] {
    const series: Series[] = [infoSeries(pkg.version)];
    for (const poller of this.pollers.values()) {
      // Churn counters exist with 0 for every configured cluster and role, before the first event.
      for (const role of ROLES) {
        if (!poller.config.targetAllocators[role]) continue;
        const labels = { cluster: poller.config.name, role };
        this.counters.readinessTransitions.inc(labels, 0);
        this.counters.targetReassignments.inc(labels, 0);
      }
      const snapshot = poller.latest;
      if (snapshot) series.push(...deriveSeries(snapshot, poller.taRequests(), configuredStrategies(poller.config.targetAllocators)));
    }
    return series;
  }

  /** A poll finished: the gauges have new values. */
  changed(): void {
    this.version++;
    this.publish();
  }

  private publish(): void {
    if (this.published) Atomics.store(this.published, 0, this.version | 0);
  }

  /** The exposition text of every allocation_lens_* series (the poll worker's heap as of the last change). */
  render(): Promise<{ version: string; seq: number; text: string }> {
    const run = async () => {
      const version = `${this.epoch}:${this.version}`;
      // taken before rendering: a change during the render makes the serving thread ask again, never keep an older text
      const seq = this.version | 0;
      if (this.rendered?.version === version) return this.rendered;
      this.derived.set(this.series());
      this.rendered = { version, seq, text: await this.registry.metrics() };
      return this.rendered;
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
