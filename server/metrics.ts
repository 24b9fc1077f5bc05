/**
 * /metrics: the serving thread's own process metrics (prom-client's defaults: process_*, nodejs_* — the event-loop lag
 * here is the lag of the thread that serves HTTP), followed by the allocation_lens_* series, which the poll worker keeps
 * beside the snapshots and the churn history (server/poll/worker-metrics.ts). A worker that does not answer in time leaves
 * its part out rather than holding the scrape. The registry is kept on globalThis, so that Next.js' bundles and the server
 * entry (which answers GET /metrics itself, server/inbound/metrics.ts) share one. Nothing here imports the runtime: each
 * side passes the one it has.
 */
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { PollHost } from "@/server/poll/host";
import type { ShardView } from "@/server/lease/shards";

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

/** The series of the clusters' sharing over the replicas (with `lease`): read from the elections at each scrape. */
export const LEASE_METRICS = {
  held: {
    name: "allocation_lens_lease_held",
    help: "1 when this replica holds the cluster's Lease (it polls the cluster and its allocation_lens_* series come from here), 0 when another replica or nobody does.",
  },
  replicas: { name: "allocation_lens_lease_replicas", help: "Live replicas this replica sees in the membership Leases, itself among them." },
  share: {
    name: "allocation_lens_lease_share",
    help: "The most cluster Leases this replica may hold: the clusters divided by the live replicas, rounded up (every cluster while the membership cannot be listed).",
  },
} as const;

/**
 * Registers the lease series, read from `view` at each scrape (`clusters`: every cluster of the configuration, in its
 * order). A later call (a runtime made again) replaces the earlier one's.
 */
export function registerLeaseMetrics(view: () => ShardView, clusters: readonly string[]): void {
  const r = registry();
  for (const m of Object.values(LEASE_METRICS)) r.removeSingleMetric(m.name);
  new Gauge({
    ...LEASE_METRICS.held,
    labelNames: ["cluster"],
    registers: [r],
    collect() {
      const held = new Set(view().held);
      for (const c of clusters) this.set({ cluster: c }, held.has(c) ? 1 : 0);
    },
  });
  new Gauge({
    ...LEASE_METRICS.replicas,
    registers: [r],
    collect() {
      this.set(view().members.length);
    },
  });
  new Gauge({
    ...LEASE_METRICS.share,
    registers: [r],
    collect() {
      this.set(view().share);
    },
  });
}

/** How long a scrape waits for the runtime or the worker's part before answering without it. */
export const METRICS_WAIT_MS = 2_000;

export function within<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  return Promise.race([p, timeout]).catch(() => null).finally(() => clearTimeout(timer));
}

/**
 * The exposition text in parts, to be written one after the other: the process metrics, then every cluster's series
 * (clusters not polled yet contribute nothing; none without a runtime). The worker's part (about 0.8 MB at 5,000
 * collectors) is the buffer the worker sent, not copied: joined with the rest into one string at every scrape, it was
 * allocated in this thread's heap, and a scrape a second (the bench's) caused a full collection every few seconds.
 */
export async function renderMetrics(host: Pick<PollHost, "metricsBytes"> | null): Promise<{ contentType: string; parts: Uint8Array[] }> {
  const r = registry();
  const own = await r.metrics();
  const worker = host ? await within(host.metricsBytes(), METRICS_WAIT_MS) : null;
  return { contentType: r.contentType, parts: worker?.byteLength ? [Buffer.from(`${own}\n`), worker] : [Buffer.from(own)] };
}
