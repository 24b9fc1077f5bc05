import "server-only";
/**
 * The allocation_lens_* series, kept in the poll worker where the snapshots and the churn history are: gauges set at
 * scrape time from each cluster's latest snapshot (never waiting for a poll), the churn counters incremented by the
 * history as events happen. The serving thread's /metrics asks for this text and adds its own process metrics
 * (server/metrics.ts).
 */
import v8 from "node:v8";
import { Counter, Gauge, Registry } from "prom-client";
import pkg from "@/package.json";
import { ROLES } from "@/lib/model";
import { CHURN_METRICS, DerivedMetrics, deriveSeries, infoSeries, type Series } from "@/lib/metrics/derived";
import type { ClusterPoller } from "@/server/poller";
import type { ChurnCounters } from "@/server/history/attach";

export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly derived = new DerivedMetrics(this.registry);
  readonly churn: Required<ChurnCounters>;
  /** renders one at a time: set() then format must not interleave with another scrape's set() */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly pollers: ReadonlyMap<string, ClusterPoller>) {
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
    this.churn = {
      readinessTransitions: counter(CHURN_METRICS.readinessTransitions),
      targetReassignments: counter(CHURN_METRICS.targetReassignments),
      collectorTransitions: new Counter({ name: perPod.name, help: perPod.help, labelNames: ["cluster", "role", "pod", "node"], registers: [this.registry] }),
    };
  }

  private series(): Series[] {
    const series: Series[] = [infoSeries(pkg.version)];
    for (const poller of this.pollers.values()) {
      // Churn counters exist with 0 for every configured cluster and role, before the first event.
      for (const role of ROLES) {
        if (!poller.config.targetAllocators[role]) continue;
        const labels = { cluster: poller.config.name, role };
        this.churn.readinessTransitions.inc(labels, 0);
        this.churn.targetReassignments.inc(labels, 0);
      }
      const snapshot = poller.latest;
      if (snapshot) series.push(...deriveSeries(snapshot, poller.taRequests()));
    }
    return series;
  }

  /** The exposition text of every allocation_lens_* series. */
  render(): Promise<string> {
    const run = async () => {
      this.derived.set(this.series());
      return this.registry.metrics();
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
