/**
 * The Alerts view's judgement: each rule of lib/alerts/rules.ts evaluated on the dashboard's own current values, the
 * series it exports on /metrics (deriveSeries) and, for the flapping rule, the readiness flips of its churn history
 * over the rule's window. Each condition below is its rule's PromQL written over those values; `AlertTracker` keeps when
 * each instance started to hold, to tell pending from firing as Prometheus' `for` does. Pure.
 */
import type { Series } from "@/lib/metrics/derived";
import type { AlertInstance, AlertRow, AlertsView, Freshness } from "@/lib/api/schemas";
import { ALERT_RULES, durationMs, type AlertParams, type AlertRule } from "@/lib/alerts/rules";
import { render } from "@/lib/alerts/template";

export interface Flipper {
  role: string;
  pod: string;
  node: string | null;
  /** readiness flips in the window */
  transitions: number;
}

export interface AlertInputs {
  cluster: string;
  /** the cluster's series as /metrics has them (lib/metrics/derived.ts) */
  series: readonly Series[];
  /** readiness flips per collector over `flappingWindow`; null when the history cannot say */
  flips: readonly Flipper[] | null;
  now: number;
}

export interface Active {
  labels: Record<string, string>;
  value: number;
}

type Condition = (x: AlertInputs, p: AlertParams) => Active[] | { unknown: string };

const of = (x: AlertInputs, name: string) => x.series.filter((s) => s.name === name);
const where = (x: AlertInputs, name: string, keep: (s: Series) => boolean): Active[] => of(x, name).filter(keep).map((s) => ({ labels: { ...s.labels }, value: s.value }));
const monitors = (ownership: string) => (x: AlertInputs) => where(x, "allocation_lens_monitors", (s) => s.labels.ownership === ownership && s.value > 0);

/** The condition of each rule, by alert name: the rule's expression over the dashboard's own values. */
export const CONDITIONS: Readonly<Record<string, Condition>> = {
  // allocation_lens_ghost_targets > 0
  AllocationLensGhostTargets: (x) => where(x, "allocation_lens_ghost_targets", (s) => s.value > 0),
  AllocationLensMonitorScrapedTwice: monitors("double"),
  AllocationLensMonitorOrphaned: monitors("orphaned"),
  AllocationLensMonitorMisrouted: monitors("misrouted"),
  // allocation_lens_unassigned_targets > 0
  AllocationLensUnassignedTargets: (x) => where(x, "allocation_lens_unassigned_targets", (s) => s.value > 0),
  // allocation_lens_ta_unassigned_reported - allocation_lens_unassigned_targets != 0
  AllocationLensTaUnassignedGaugeWrong: (x) => {
    const live = of(x, "allocation_lens_unassigned_targets");
    const out: Active[] = [];
    for (const r of of(x, "allocation_lens_ta_unassigned_reported")) {
      const l = live.find((s) => s.labels.cluster === r.labels.cluster && s.labels.role === r.labels.role);
      if (l && r.value - l.value !== 0) out.push({ labels: { cluster: r.labels.cluster, role: r.labels.role }, value: r.value - l.value });
    }
    return out;
  },
  // allocation_lens_locality_ratio{role="per-node"} < localityMin
  AllocationLensLocalityLow: (x, p) => where(x, "allocation_lens_locality_ratio", (s) => s.labels.role === "per-node" && s.value < p.localityMin),
  // allocation_lens_source_up == 0
  AllocationLensSourceDown: (x) => where(x, "allocation_lens_source_up", (s) => s.value === 0),
  // time() - last poll > pollLateIntervals * interval
  AllocationLensPollLate: (x, p) => {
    const last = of(x, "allocation_lens_last_poll_timestamp_seconds")[0];
    const interval = of(x, "allocation_lens_poll_interval_seconds")[0];
    if (!last || !interval) return { unknown: "no poll has finished yet" };
    const age = x.now / 1000 - last.value;
    return age > p.pollLateIntervals * interval.value ? [{ labels: { cluster: x.cluster }, value: age }] : [];
  },
  // rate(allocation_lens_collector_readiness_transitions_total[flappingWindow]) * 3600 > flappingPerHour
  AllocationLensCollectorFlapping: (x, p) => {
    if (!x.flips) return { unknown: "the churn history cannot be read" };
    const hours = durationMs(p.flappingWindow) / 3_600_000;
    return x.flips
      .map((f) => ({ labels: { cluster: x.cluster, role: f.role, pod: f.pod, node: f.node ?? "" }, value: f.transitions / hours }))
      .filter((a) => a.value > p.flappingPerHour);
  },
  AllocationLensNodesWithoutCollector: (x) => where(x, "allocation_lens_nodes_without_collector", (s) => s.value > 0),
  // allocation_lens_ta_ring_headroom <= ringHeadroomWarning and >= 0
  AllocationLensTaRingNearLimit: (x, p) => where(x, "allocation_lens_ta_ring_headroom", (s) => s.value <= p.ringHeadroomWarning && s.value >= 0),
  AllocationLensTaRingOverLimit: (x) => where(x, "allocation_lens_ta_ring_headroom", (s) => s.value < 0),
};

const keyOf = (alert: string, labels: Record<string, string>) =>
  JSON.stringify([
    alert,
    Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)),
  ]);

/** When each active instance started to hold, per cluster; an instance that stops holding is forgotten. */
export class AlertTracker {
  private readonly since = new Map<string, Map<string, number>>();

  /** Records this evaluation's active instances; returns each one's start. */
  update(cluster: string, active: ReadonlyMap<string, readonly Active[]>, now: number): Map<string, number> {
    const before = this.since.get(cluster) ?? new Map<string, number>();
    const after = new Map<string, number>();
    for (const [alert, list] of active) {
      for (const a of list) {
        const k = keyOf(alert, a.labels);
        after.set(k, before.get(k) ?? now);
      }
    }
    this.since.set(cluster, after);
    return after;
  }
}

export interface Links {
  runbookBaseUrl: string;
}

const RANK = { firing: 0, pending: 1, inactive: 2 } as const;

/** The Alerts view of one cluster: every rule, its instances with their state, since when, texts and links. */
export function toAlertsView(
  x: AlertInputs,
  params: AlertParams,
  links: Links,
  tracker: AlertTracker,
  fresh: Freshness,
  rules: readonly AlertRule[] = ALERT_RULES,
): AlertsView {
  const results = new Map<string, Active[]>();
  const unknown = new Map<string, string>();
  for (const r of rules) {
    const condition = CONDITIONS[r.alert];
    if (!condition) throw new Error(`no condition for ${r.alert}`);
    const got = condition(x, params);
    if ("unknown" in got) unknown.set(r.alert, got.unknown);
    else results.set(r.alert, got);
  }
  const since = tracker.update(x.cluster, results, x.now);
  const rows: AlertRow[] = rules.map((r, i) => {
    const forMs = durationMs(r.for(params));
    const instances: AlertInstance[] = (results.get(r.alert) ?? []).map((a) => {
      const start = since.get(keyOf(r.alert, a.labels)) ?? x.now;
      return {
        labels: a.labels,
        value: a.value,
        since: start,
        state: x.now - start >= forMs ? ("firing" as const) : ("pending" as const),
        summary: render(r.summary, a.labels, a.value),
        description: render(r.description, a.labels, a.value),
        dashboardPath: render(r.dashboardPath, a.labels, a.value),
      };
    });
    instances.sort((a, b) => RANK[a.state] - RANK[b.state] || a.since - b.since || a.summary.localeCompare(b.summary));
    const state: AlertRow["state"] = instances.some((n) => n.state === "firing") ? "firing" : instances.length ? "pending" : "inactive";
    return {
      alert: r.alert,
      severity: r.severity,
      state,
      expr: r.expr(params),
      forMs,
      runbookUrl: `${links.runbookBaseUrl.replace(/\/+$/, "")}/${r.runbook}.md`,
      instances,
      unknown: unknown.get(r.alert) ?? null,
      order: i,
    };
  }).sort((a, b) => RANK[a.state] - RANK[b.state] || a.order - b.order).map((row): AlertRow => {
    const { alert, severity, state, expr, forMs, runbookUrl, instances, unknown } = row;
    return { alert, severity, state, expr, forMs, runbookUrl, instances, unknown };
  });
  return { ...fresh, cluster: x.cluster, alerts: rows };
}
