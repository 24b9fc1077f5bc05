/**
 * The TA's own `/metrics` in the Prometheus text exposition format 0.0.4, per flavor (docs/target-allocator.md).
 * - upstream (v0.129.1+): OpenTelemetry SDK -> Prometheus exporter: every series carries otel_scope_* labels, counters get
 *   `_total`, histograms use the SDK's default boundaries, an instrument appears only once recorded.
 * - cloudwatch: client_golang promauto: `cloudwatch_agent_allocator_*` and `amazon_cloudwatch_agent_allocator_*` names,
 *   counters without `_total`, a running-sum `targets_remaining` counter, a live `targets_unassigned` gauge.
 * Families and series are sorted like client_golang's Gather.
 */
import type { Flavor } from "@allocation-lens/allocation/model";
import type { HistogramState, TaState } from "./state";

export const OTEL_SCOPE = { otel_scope_name: "targetallocator", otel_scope_schema_url: "", otel_scope_version: "" };

type LabelSet = Record<string, string>;
interface Family {
  name: string;
  help: string;
  type: "gauge" | "counter" | "histogram";
  series: { labels: LabelSet; value?: number; histogram?: HistogramState }[];
}

export const escapeLabelValue = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const escapeHelp = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

export function formatValue(v: number): string {
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (Number.isNaN(v)) return "NaN";
  return String(v);
}

function labelString(labels: LabelSet, extra?: [string, string]): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabelValue(labels[k])}"`);
  if (extra) pairs.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return pairs.length ? `{${pairs.join(",")}}` : "";
}

function render(families: Family[]): string {
  const out: string[] = [];
  for (const f of families.filter((f) => f.series.length > 0).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    const series = f.series.map((s) => ({ s, key: labelString(s.labels) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const { s, key } of series) {
      if (!s.histogram) {
        out.push(`${f.name}${key} ${formatValue(s.value ?? 0)}`);
        continue;
      }
      const h = s.histogram;
      let cumulative = 0;
      h.bounds.forEach((b, i) => {
        cumulative += h.counts[i];
        out.push(`${f.name}_bucket${labelString(s.labels, ["le", formatValue(b)])} ${cumulative}`);
      });
      out.push(`${f.name}_bucket${labelString(s.labels, ["le", "+Inf"])} ${h.count}`);
      out.push(`${f.name}_sum${key} ${formatValue(h.sum)}`, `${f.name}_count${key} ${h.count}`);
    }
  }
  return out.join("\n") + "\n";
}

/** Names per flavor, as each TA exports them (the dashboard reads the same names in lib/ta/metrics.ts). */
export const METRIC_NAMES = {
  upstream: {
    targets: "opentelemetry_allocator_targets",
    remaining: "opentelemetry_allocator_targets_remaining",
    perCollector: "opentelemetry_allocator_targets_per_collector",
    unassigned: "opentelemetry_allocator_targets_unassigned",
    allocatable: "opentelemetry_allocator_collectors_allocatable",
    discovered: "opentelemetry_allocator_collectors_discovered",
    timeToAllocate: "opentelemetry_allocator_time_to_allocate",
    events: "opentelemetry_allocator_events_total",
    http: "opentelemetry_allocator_http_duration_seconds",
  },
  cloudwatch: {
    targets: "amazon_cloudwatch_agent_allocator_targets",
    remaining: "cloudwatch_agent_allocator_targets_remaining",
    perCollector: "cloudwatch_agent_allocator_targets_per_collector",
    unassigned: "cloudwatch_agent_allocator_targets_unassigned",
    allocatable: "cloudwatch_agent_allocator_collectors_allocatable",
    discovered: "amazon_cloudwatch_agent_allocator_collectors_discovered",
    timeToAllocate: "cloudwatch_agent_allocator_time_to_allocate",
    events: "cloudwatch_agent_allocator_events",
    http: "amazon_cloudwatch_agent_allocator_http_duration_seconds",
  },
} as const;

/** `http` = the server's own request durations by gin route path ("" for unmatched requests). */
export function renderMetrics(flavor: Flavor, state: TaState, http: ReadonlyMap<string, HistogramState>): string {
  const m = state.metrics;
  const n = METRIC_NAMES[flavor];
  const up = flavor === "upstream";
  const L = (labels: LabelSet): LabelSet => (up ? { ...labels, ...OTEL_SCOPE } : labels);
  const one = (value: number, labels: LabelSet = {}) => [{ labels: L(labels), value }];
  const strategy = state.strategy;

  const families: Family[] = [
    {
      name: n.targets,
      help: "Number of targets discovered.",
      type: "gauge",
      series: [...m.targetsPerJob].map(([job_name, value]) => ({ labels: L({ job_name }), value })),
    },
    {
      name: n.remaining,
      help: "Number of targets kept after filtering.",
      type: up ? "gauge" : "counter",
      series: one(up ? m.targetsRemaining : m.targetsRemainingTotal),
    },
    {
      name: n.perCollector,
      help: "The number of targets for each collector.",
      type: "gauge",
      series: [...m.targetsPerCollector].map(([collector_name, value]) => ({ labels: L({ collector_name, strategy }), value })),
    },
    {
      name: n.unassigned,
      help: "Number of targets that could not be assigned due to missing node label.",
      type: "gauge",
      // upstream: an OTel gauge is exported only once recorded, and it is recorded only with a non-zero value
      series: up && m.unassigned === 0 ? [] : one(m.unassigned),
    },
    {
      name: n.allocatable,
      help: "Number of collectors the allocator is able to allocate to.",
      type: "gauge",
      series: one(m.collectorsAllocatable, { strategy }),
    },
    { name: n.discovered, help: "Number of collectors discovered.", type: "gauge", series: one(m.collectorsDiscovered) },
    {
      name: n.timeToAllocate,
      help: "The time it takes to allocate",
      type: "histogram",
      series: [...m.timeToAllocate].map(([method, histogram]) => ({ labels: L({ method, strategy }), histogram })),
    },
    {
      name: n.events,
      help: "Number of events in the channel.",
      type: "counter",
      series: [...m.events].map(([source, value]) => ({ labels: L({ source }), value })),
    },
    {
      name: n.http,
      help: "Duration of received HTTP requests.",
      type: "histogram",
      series: [...http].map(([path, histogram]) => ({ labels: L({ path }), histogram })),
    },
  ];
  return render(families);
}
