import "server-only";
/**
 * /metrics: the serving thread's own process metrics (prom-client's defaults: process_*, nodejs_* — the event-loop lag
 * here is the lag of the thread that serves HTTP), followed by the allocation_lens_* series, which the poll worker keeps
 * beside the snapshots and the churn history (server/poll/worker-metrics.ts). A worker that does not answer in time leaves
 * its part out rather than holding the scrape. Kept on globalThis so that route bundles and instrumentation share one
 * registry.
 */
import { collectDefaultMetrics, Registry } from "prom-client";
import { getRuntime, type Runtime } from "@/server/runtime";

const KEY = Symbol.for("allocation-lens.metrics");
type Holder = { [KEY]?: Registry };

function registry(): Registry {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    holder[KEY] = new Registry();
    collectDefaultMetrics({ register: holder[KEY] });
  }
  return holder[KEY];
}

/** The serving thread's registry: register other process metrics on it (names prefixed allocation_lens_). */
export function metricsRegistry(): Registry {
  return registry();
}

const WAIT_MS = 2_000;

function within<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  return Promise.race([p, timeout]).catch(() => null).finally(() => clearTimeout(timer));
}

/** The exposition text: process metrics, then every cluster's series (clusters not polled yet contribute nothing). */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const r = registry();
  const runtime: Runtime | null = await within(getRuntime(), WAIT_MS);
  const own = await r.metrics();
  const worker = runtime ? await within(runtime.host.metricsText(), WAIT_MS) : null;
  return { contentType: r.contentType, body: worker ? `${own}\n${worker}` : own };
}
