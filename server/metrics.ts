import "server-only";
/**
 * The process-wide metrics registry behind /metrics. Gauges are set at scrape time from each cluster's latest snapshot
 * (never waiting for a poll); the churn counters are created here, once, and incremented by the churn module as events
 * happen. Kept on globalThis so that route bundles and instrumentation share one registry.
 */
import { collectDefaultMetrics, Counter, Registry } from "prom-client";
import pkg from "@/package.json";
import { ROLES } from "@/lib/model";
import { CHURN_METRICS, DerivedMetrics, deriveSeries, infoSeries, type Series } from "@/lib/metrics/derived";
import { getRuntime, type Runtime } from "@/server/runtime";

export interface ChurnCounters {
  /** allocation_lens_readiness_transitions_total{cluster,role} */
  readinessTransitions: Counter<"cluster" | "role">;
  /** allocation_lens_target_reassignments_total{cluster,role} */
  targetReassignments: Counter<"cluster" | "role">;
  /** allocation_lens_collector_readiness_transitions_total{cluster,role,pod,node} */
  collectorTransitions: Counter<"cluster" | "role" | "pod" | "node">;
}

interface State {
  registry: Registry;
  derived: DerivedMetrics;
  churn: ChurnCounters;
  /** renders one at a time: set() then format must not interleave with another scrape's set() */
  queue: Promise<unknown>;
}

const KEY = Symbol.for("allocation-lens.metrics");
type Holder = { [KEY]?: State };

function state(): State {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const registry = new Registry();
    // The process' own health, under the standard names (process_resident_memory_bytes, nodejs_eventloop_lag_p99_seconds,
    // nodejs_heap_size_used_bytes, ...): what the scale targets are about (RSS, event-loop starvation) and what an
    // operator alerts on.
    collectDefaultMetrics({ register: registry });
    const counter = (m: (typeof CHURN_METRICS)["readinessTransitions" | "targetReassignments"]) =>
      new Counter<"cluster" | "role">({ name: m.name, help: m.help, labelNames: ["cluster", "role"], registers: [registry] });
    const perPod = CHURN_METRICS.collectorTransitions;
    holder[KEY] = {
      registry,
      derived: new DerivedMetrics(registry),
      churn: {
        readinessTransitions: counter(CHURN_METRICS.readinessTransitions),
        targetReassignments: counter(CHURN_METRICS.targetReassignments),
        collectorTransitions: new Counter({ name: perPod.name, help: perPod.help, labelNames: ["cluster", "role", "pod", "node"], registers: [registry] }),
      },
      queue: Promise.resolve(),
    };
  }
  return holder[KEY];
}

/** The shared registry: register other metrics on it (names prefixed allocation_lens_). */
export function metricsRegistry(): Registry {
  return state().registry;
}

/** The two churn counters; the churn module calls e.g. churnCounters().readinessTransitions.inc({ cluster, role }). */
export function churnCounters(): ChurnCounters {
  return state().churn;
}

const RUNTIME_WAIT_MS = 2_000;

async function runtimeOrNull(): Promise<Runtime | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), RUNTIME_WAIT_MS)));
  try {
    return await Promise.race([getRuntime(), timeout]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

function currentSeries(runtime: Runtime | null): Series[] {
  const series: Series[] = [infoSeries(pkg.version)];
  for (const poller of runtime?.pollers.values() ?? []) {
    // Churn counters exist with 0 for every configured cluster and role, before the first event.
    for (const role of ROLES) {
      if (!poller.config.targetAllocators[role]) continue;
      const labels = { cluster: poller.config.name, role };
      state().churn.readinessTransitions.inc(labels, 0);
      state().churn.targetReassignments.inc(labels, 0);
    }
    const snapshot = poller.latest;
    if (snapshot) series.push(...deriveSeries(snapshot, poller.taRequests()));
  }
  return series;
}

/** The exposition text, from the latest snapshot of every cluster (clusters not polled yet contribute nothing). */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const s = state();
  const runtime = await runtimeOrNull();
  const render = async () => {
    s.derived.set(currentSeries(runtime));
    return { contentType: s.registry.contentType, body: await s.registry.metrics() };
  };
  const result = s.queue.then(render, render);
  s.queue = result.catch(() => undefined);
  return result;
}
