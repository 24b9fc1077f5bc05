/**
 * The alerting rules on the dashboard's own `allocation_lens_*` series: the ONE source of every rule file the repository
 * ships (`npm run alerts` writes them, scripts/alerts.ts: the kustomize component, the Helm chart's PrometheusRule and a
 * plain rules file) and of the Alerts view, which evaluates the same conditions on the dashboard's own values
 * (lib/alerts/evaluate.ts). Each rule: its PromQL, its `for`, severity, summary and description (Prometheus templates:
 * only the forms lib/alerts/template.ts renders), its runbook under docs/runbooks/ and the dashboard view that shows the
 * problem, filtered to it.
 *
 * Thresholds are parameters (`AlertParams`): the chart's values, the dashboard configuration's `alerts`, and short ones in
 * the tests. Pure.
 */
import { z } from "zod";

export type Severity = "critical" | "warning" | "info";

/** A Prometheus duration: 30s, 5m, 1h, 1h30m. */
export const durationSchema = z
  .string()
  .regex(/^(\d+[smhd])+$/, "expected a Prometheus duration such as 30s, 5m or 1h")
  .refine((s) => durationMs(s) > 0 || s === "0s" || s === "0m", "expected a duration");

export function durationMs(s: string): number {
  const unit: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  let ms = 0;
  for (const m of s.matchAll(/(\d+)([smhd])/g)) ms += Number(m[1]) * unit[m[2]];
  return ms;
}

/** The ring of a consistent-hashing TA holds at most this many collectors (docs/target-allocator.md, "The ring's limit"). */
export const RING_LIMIT = 1061;

/** The tunable parts of the rules; DEFAULT_ALERT_PARAMS are the shipped values. */
export const alertParamsSchema = z
  .object({
    /** per-node locality ratio below which AllocationLensLocalityLow fires */
    localityMin: z.number().min(0).max(1),
    /** readiness flips of one collector per hour above which it flaps */
    flappingPerHour: z.number().positive(),
    /** the window the flips are counted over (the per-hour rate is taken over it) */
    flappingWindow: durationSchema,
    /** ring headroom (1061 minus the ring's collectors) at or below which a TA is near its limit: 10 % of 1,061 */
    ringHeadroomWarning: z.number().int().min(0).max(RING_LIMIT),
    /** how long live unassigned targets last before it is not the TA's re-allocation any more */
    unassignedFor: durationSchema,
    /** a poll is late when the last one finished more than this many poll intervals ago */
    pollLateIntervals: z.number().min(1),
  })
  .strict();
export type AlertParams = z.infer<typeof alertParamsSchema>;

export const DEFAULT_ALERT_PARAMS: AlertParams = {
  localityMin: 0.9,
  flappingPerHour: 6,
  flappingWindow: "1h",
  ringHeadroomWarning: 106,
  // upstream drops a not-Ready collector after collector_not_ready_grace_period (30 s) plus up to ~35 s, then places
  // its targets: a minute and a bit; three minutes leaves a poll and a scrape of slack
  unassignedFor: "3m",
  pollLateIntervals: 3,
};

/** The views an alert links to (app/<view>), with the filters they read from the URL. */
export type AlertView = "targets" | "ownership" | "lost" | "nodes" | "diagnostics" | "overview";

export interface AlertRule {
  alert: string;
  severity: Severity;
  /** the PromQL; `p` are the parameters (or, for the Helm template, placeholders standing for them) */
  expr: (p: Record<keyof AlertParams, string | number>) => string;
  for: (p: Record<keyof AlertParams, string | number>) => string;
  summary: string;
  description: string;
  /** docs/runbooks/<runbook>.md */
  runbook: string;
  view: AlertView;
  /** the view's path and query, filtered to the alert (templates allowed, as in the annotations) */
  dashboardPath: string;
}

const c = "cluster={{ $labels.cluster | urlquery }}";

export const ALERT_RULES: readonly AlertRule[] = [
  {
    alert: "AllocationLensGhostTargets",
    severity: "warning",
    expr: () => "allocation_lens_ghost_targets > 0",
    for: () => "5m",
    summary: "{{ $value }} ghost targets on collector {{ $labels.collector }} ({{ $labels.cluster }}, {{ $labels.role }})",
    description:
      "The {{ $labels.role }} TA of cluster {{ $labels.cluster }} assigns {{ $value }} targets to collector {{ $labels.collector }}, " +
      "which cannot scrape them (not Ready, terminating or gone). Nothing scrapes these targets, and the TA's own unassigned gauge does not count them.",
    runbook: "ghost-targets",
    view: "targets",
    dashboardPath: `/targets?${c}&role={{ $labels.role | urlquery }}&class=ghost&collector={{ $labels.collector | urlquery }}`,
  },
  {
    alert: "AllocationLensMonitorScrapedTwice",
    severity: "warning",
    expr: () => 'allocation_lens_monitors{ownership="double"} > 0',
    for: () => "10m",
    summary: "{{ $value }} monitors scraped by both TAs in {{ $labels.cluster }}",
    description:
      "In cluster {{ $labels.cluster }}, {{ $value }} ServiceMonitors or PodMonitors are held by both the per-node and the cluster-scraper TA: " +
      "their targets are scraped twice, their series are duplicated and the agents do twice the work.",
    runbook: "monitor-scraped-twice",
    view: "ownership",
    dashboardPath: `/ownership?${c}&ownership=double`,
  },
  {
    alert: "AllocationLensMonitorOrphaned",
    severity: "critical",
    expr: () => 'allocation_lens_monitors{ownership="orphaned"} > 0',
    for: () => "10m",
    summary: "{{ $value }} monitors scraped by no TA in {{ $labels.cluster }}",
    description:
      "In cluster {{ $labels.cluster }}, {{ $value }} ServiceMonitors or PodMonitors are held by neither TA: nothing scrapes their targets, " +
      "and no TA metric shows it.",
    runbook: "monitor-orphaned",
    view: "ownership",
    dashboardPath: `/ownership?${c}&ownership=orphaned`,
  },
  {
    alert: "AllocationLensMonitorMisrouted",
    severity: "warning",
    expr: () => 'allocation_lens_monitors{ownership="misrouted"} > 0',
    for: () => "10m",
    summary: "{{ $value }} monitors held by the wrong TA in {{ $labels.cluster }}",
    description:
      "In cluster {{ $labels.cluster }}, {{ $value }} ServiceMonitors or PodMonitors are held by the TA their scraper annotation does not name: " +
      "they are scraped, but by the wrong agents (per-node targets from one cluster-wide agent, or the reverse).",
    runbook: "monitor-misrouted",
    view: "ownership",
    dashboardPath: `/ownership?${c}&ownership=misrouted`,
  },
  {
    alert: "AllocationLensUnassignedTargets",
    severity: "warning",
    expr: () => "allocation_lens_unassigned_targets > 0",
    for: (p) => String(p.unassignedFor),
    summary: "{{ $value }} unassigned targets on the {{ $labels.role }} TA of {{ $labels.cluster }}",
    description:
      "The {{ $labels.role }} TA of cluster {{ $labels.cluster }} has held {{ $value }} targets without a collector for longer than its " +
      "re-allocation takes: nothing scrapes them. The count is live (computed from the TA's metrics), whatever the TA's own unassigned gauge reads.",
    runbook: "unassigned-targets",
    view: "lost",
    dashboardPath: `/lost?${c}&role={{ $labels.role | urlquery }}`,
  },
  {
    alert: "AllocationLensTaUnassignedGaugeWrong",
    severity: "info",
    expr: () => "allocation_lens_ta_unassigned_reported - allocation_lens_unassigned_targets != 0",
    for: () => "15m",
    summary: "The {{ $labels.role }} TA's unassigned gauge is off by {{ $value }} in {{ $labels.cluster }}",
    description:
      "The {{ $labels.role }} TA of cluster {{ $labels.cluster }} reports an unassigned count that differs from the live count by {{ $value }} " +
      "(its gauge minus the live count). Upstream's gauge is sticky: it keeps its last non-zero value after the targets are placed again. " +
      "Alert on allocation_lens_unassigned_targets, not on the TA's gauge.",
    runbook: "ta-unassigned-gauge-wrong",
    view: "lost",
    dashboardPath: `/lost?${c}&role={{ $labels.role | urlquery }}`,
  },
  {
    alert: "AllocationLensLocalityLow",
    severity: "warning",
    expr: (p) => `allocation_lens_locality_ratio{role="per-node"} < ${p.localityMin}`,
    for: () => "15m",
    summary: "Per-node locality {{ $value | humanizePercentage }} in {{ $labels.cluster }}",
    description:
      "In cluster {{ $labels.cluster }}, only {{ $value | humanizePercentage }} of the per-node targets are scraped by the collector on their own node; " +
      "the rest leave their node (cross-node or cross-zone traffic, a collector scraping for nodes it was not sized for).",
    runbook: "locality-low",
    view: "nodes",
    dashboardPath: `/nodes?${c}&state=degraded`,
  },
  {
    alert: "AllocationLensSourceDown",
    severity: "warning",
    expr: () => "allocation_lens_source_up == 0",
    for: () => "5m",
    summary: "Source {{ $labels.source }} of {{ $labels.cluster }} is failing",
    description:
      "The dashboard has failed to read {{ $labels.source }} of cluster {{ $labels.cluster }} at every poll for a while: what it shows " +
      "(and every other alert on this cluster) is its last good data, or nothing.",
    runbook: "source-down",
    view: "diagnostics",
    dashboardPath: `/diagnostics?${c}`,
  },
  {
    alert: "AllocationLensPollLate",
    severity: "warning",
    expr: (p) =>
      "time() - max by (cluster) (max_over_time(allocation_lens_last_poll_timestamp_seconds[1h])) " +
      `> on (cluster) ${p.pollLateIntervals} * max by (cluster) (max_over_time(allocation_lens_poll_interval_seconds[1h]))`,
    for: () => "2m",
    summary: "No poll of {{ $labels.cluster }} has finished for {{ $value }} s",
    description:
      "The dashboard's last poll of cluster {{ $labels.cluster }} finished {{ $value }} seconds ago, more than the configured interval allows: " +
      "its polls are failing or late, or the dashboard is no longer scraped. Its figures and the other alerts on this cluster are out of date.",
    runbook: "poll-late",
    view: "overview",
    dashboardPath: `/?${c}`,
  },
  {
    alert: "AllocationLensCollectorFlapping",
    severity: "warning",
    expr: (p) => `rate(allocation_lens_collector_readiness_transitions_total[${p.flappingWindow}]) * 3600 > ${p.flappingPerHour}`,
    for: () => "0m",
    summary: "Collector {{ $labels.pod }} flaps {{ $value }} times an hour ({{ $labels.cluster }})",
    description:
      "Collector pod {{ $labels.pod }} ({{ $labels.role }}) on node {{ $labels.node }} of cluster {{ $labels.cluster }} changes readiness " +
      "{{ $value }} times an hour: each flip makes its TA move the node's targets away and back, with gaps or duplicates in between.",
    runbook: "collector-flapping",
    view: "nodes",
    dashboardPath: `/nodes?${c}&node={{ $labels.node | urlquery }}`,
  },
  {
    alert: "AllocationLensNodesWithoutCollector",
    severity: "warning",
    expr: () => "allocation_lens_nodes_without_collector > 0",
    for: () => "10m",
    summary: "{{ $value }} nodes with targets but no collector in {{ $labels.cluster }}",
    description:
      "In cluster {{ $labels.cluster }}, {{ $value }} nodes have targets but no per-node agent pod: their targets are unassigned (upstream) " +
      "or scraped from other nodes (the CloudWatch fork's fallback).",
    runbook: "nodes-without-collector",
    view: "nodes",
    dashboardPath: `/nodes?${c}&state=no_collector`,
  },
  {
    alert: "AllocationLensTaRingNearLimit",
    severity: "warning",
    expr: (p) => `allocation_lens_ta_ring_headroom <= ${p.ringHeadroomWarning} and allocation_lens_ta_ring_headroom >= 0`,
    for: () => "15m",
    summary: "The {{ $labels.role }} TA's ring has room for {{ $value }} more collectors ({{ $labels.cluster }})",
    description:
      "The consistent-hashing ring of the {{ $labels.role }} TA of cluster {{ $labels.cluster }} holds at most 1061 collectors and has room for " +
      "{{ $value }} more. Above the limit the TA panics at every start and nothing it allocates is scraped.",
    runbook: "ta-ring-near-limit",
    view: "diagnostics",
    dashboardPath: `/diagnostics?${c}`,
  },
  {
    alert: "AllocationLensTaRingOverLimit",
    severity: "critical",
    expr: () => "allocation_lens_ta_ring_headroom < 0",
    for: () => "0m",
    summary: "The {{ $labels.role }} TA's ring is over its limit by {{ $value }} ({{ $labels.cluster }})",
    description:
      "The consistent-hashing ring of the {{ $labels.role }} TA of cluster {{ $labels.cluster }} would hold more than 1061 collectors " +
      "(headroom {{ $value }}): the TA cannot build it, panics at every start and none of the targets it allocates is scraped.",
    runbook: "ta-ring-over-limit",
    view: "diagnostics",
    dashboardPath: `/diagnostics?${c}`,
  },
];

export const RULE_GROUP = "allocation-lens";

/** The placeholder's form in the text the Helm template is made from (scripts/alerts.ts replaces it by a value reference). */
export const HELM_PLACEHOLDER = (name: string) => `@@helm:${name}@@`;

export interface Urls {
  /** where the runbooks are: `<runbookBaseUrl>/<runbook>.md` */
  runbookBaseUrl: string;
  /** the dashboard's URL, its basePath included */
  dashboardBaseUrl: string;
}

/** The published repository's runbooks (Chart.yaml's `home`) and a placeholder dashboard to be replaced. */
export const DEFAULT_URLS: Urls = {
  runbookBaseUrl: "https://github.com/allocation-lens/allocation-lens/blob/main/docs/runbooks",
  dashboardBaseUrl: "http://allocation-lens.example",
};

export interface PrometheusRuleYaml {
  alert: string;
  expr: string;
  /** absent for a rule that fires at once */
  for?: string;
  labels: { severity: Severity };
  annotations: { summary: string; description: string; runbook_url: string; dashboard_url: string };
}

const trimSlash = (s: string) => s.replace(/\/+$/, "");

/** One rule as a Prometheus rule file has it. */
export function ruleYaml(r: AlertRule, p: Record<keyof AlertParams, string | number>, urls: Urls): PrometheusRuleYaml {
  const forText = r.for(p);
  return {
    alert: r.alert,
    expr: r.expr(p),
    ...(/^0+[smhd]$/.test(forText) ? {} : { for: forText }),
    labels: { severity: r.severity },
    annotations: {
      summary: r.summary,
      description: r.description,
      runbook_url: `${trimSlash(urls.runbookBaseUrl)}/${r.runbook}.md`,
      dashboard_url: `${trimSlash(urls.dashboardBaseUrl)}${r.dashboardPath}`,
    },
  };
}

/** The rule groups of a Prometheus rule file (`groups:`), with these parameters and URLs. */
export function ruleGroups(params: AlertParams = DEFAULT_ALERT_PARAMS, urls: Urls = DEFAULT_URLS, rules: readonly AlertRule[] = ALERT_RULES) {
  return [{ name: RULE_GROUP, rules: rules.map((r) => ruleYaml(r, params, urls)) }];
}
