/**
 * A TA's own /metrics, read per flavor (names in docs/target-allocator.md), turned into the few numbers the analysis needs.
 * Upstream's `opentelemetry_allocator_targets_unassigned` is sticky (never reset), so the live count is
 * `targets_remaining - sum(targets_per_collector)`; the cloudwatch fork's gauge is recomputed every reconcile.
 */
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import type { Flavor } from "@/lib/model";

export interface TaMetrics {
  /** the live number of unassigned targets, computed per flavor; null when the metrics needed are absent */
  unassignedLive: number | null;
  /** the TA's own unassigned gauge as it reads (sticky upstream) */
  unassignedReported: number | null;
  targetsPerCollector: Record<string, number>;
  strategy: string | null;
  collectorsAllocatable: number | null;
  collectorsDiscovered: number | null;
  targetsByJob: Record<string, number>;
}

interface Family {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}

const NAMES = {
  upstream: {
    perCollector: ["opentelemetry_allocator_targets_per_collector"],
    unassigned: ["opentelemetry_allocator_targets_unassigned"],
    remaining: ["opentelemetry_allocator_targets_remaining"],
    allocatable: ["opentelemetry_allocator_collectors_allocatable"],
    discovered: ["opentelemetry_allocator_collectors_discovered"],
    byJob: ["opentelemetry_allocator_targets"],
  },
  cloudwatch: {
    perCollector: ["cloudwatch_agent_allocator_targets_per_collector"],
    unassigned: ["cloudwatch_agent_allocator_targets_unassigned"],
    remaining: [],
    allocatable: ["cloudwatch_agent_allocator_collectors_allocatable"],
    discovered: ["amazon_cloudwatch_agent_allocator_collectors_discovered"],
    byJob: ["amazon_cloudwatch_agent_allocator_targets"],
  },
} as const;

export class MetricsParseError extends Error {}

export function parseTaMetrics(text: string, flavor: Flavor): TaMetrics {
  let families: Family[];
  try {
    families = parsePrometheusTextFormat(text) as Family[];
  } catch (e) {
    throw new MetricsParseError(`the TA's /metrics is not Prometheus text format: ${(e as Error).message}`);
  }
  const byName = new Map(families.map((f) => [f.name, f]));
  const find = (names: readonly string[]) => names.map((n) => byName.get(n)).find(Boolean);
  const num = (v: string | undefined) => (v === undefined ? NaN : Number(v));
  const single = (names: readonly string[]): number | null => {
    const f = find(names);
    if (!f || !f.metrics.length) return null;
    const total = f.metrics.reduce((s, m) => s + num(m.value), 0);
    return Number.isFinite(total) ? total : null;
  };
  const n = NAMES[flavor];

  const targetsPerCollector: Record<string, number> = {};
  let strategy: string | null = null;
  for (const m of find(n.perCollector)?.metrics ?? []) {
    const name = m.labels?.collector_name;
    const v = num(m.value);
    if (name === undefined || !Number.isFinite(v)) continue;
    targetsPerCollector[name] = v;
    strategy ??= m.labels?.strategy ?? null;
  }
  // the allocatable gauge carries the strategy too: the TA may export it while no per-collector series is there yet
  for (const m of find(n.allocatable)?.metrics ?? []) strategy ??= m.labels?.strategy || null;
  const targetsByJob: Record<string, number> = {};
  for (const m of find(n.byJob)?.metrics ?? []) {
    const job = m.labels?.job_name;
    const v = num(m.value);
    if (job !== undefined && Number.isFinite(v)) targetsByJob[job] = v;
  }
  const unassignedReported = single(n.unassigned);
  const perCollectorFamily = find(n.perCollector);
  let unassignedLive: number | null;
  if (flavor === "cloudwatch") {
    unassignedLive = unassignedReported;
  } else {
    const remaining = single(n.remaining);
    const assigned = Object.values(targetsPerCollector).reduce((s, v) => s + v, 0);
    unassignedLive = remaining === null || !perCollectorFamily ? null : Math.max(0, remaining - assigned);
  }
  return {
    unassignedLive,
    unassignedReported,
    targetsPerCollector,
    strategy,
    collectorsAllocatable: single(n.allocatable),
    collectorsDiscovered: single(n.discovered),
    targetsByJob,
  };
}
