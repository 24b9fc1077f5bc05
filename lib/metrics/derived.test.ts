import { describe, expect, it } from "vitest";
import { Counter, Registry } from "prom-client";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { emptyClassCounts } from "@/lib/analysis/types";
import {
  CHURN_METRICS,
  DERIVED_METRICS,
  DerivedMetrics,
  collectorState,
  deriveSeries,
  infoSeries,
  sourceLabel,
  type MetricsSnapshotLike,
  type Series,
} from "@/lib/metrics/derived";

function snapshot(): MetricsSnapshotLike {
  return {
    cluster: "prod-eu-1",
    at: 1_800_000_000_000,
    pollMs: 250,
    sources: [
      { source: "prod-eu-1/ta/per-node", state: "ok" },
      { source: "prod-eu-1/ta/cluster-scraper", state: "stale" },
      { source: "prod-eu-1/kube/podmonitors", state: "error" },
    ],
    analysis: {
      roles: {
        "per-node": { classes: { ...emptyClassCounts(), local: 30, cross_zone: 6, ghost: 4 }, unassigned: 2, localityRatio: 30 / 36, strategy: "per-node", collectorsEligible: 2 },
        "cluster-scraper": { classes: { ...emptyClassCounts(), nodeless: 12 }, unassigned: null, localityRatio: null, strategy: "least-weighted", collectorsEligible: 1 },
      },
      collectors: [
        { role: "per-node", node: "n1", inKubernetes: true, eligible: true, reason: null, inTa: true },
        { role: "per-node", node: "n2", inKubernetes: true, eligible: true, reason: null, inTa: true },
        { role: "per-node", node: "n3", inKubernetes: true, eligible: false, reason: "not Ready", inTa: true },
        { role: "per-node", node: "n4", inKubernetes: true, eligible: false, reason: "terminating", inTa: false },
        { role: "per-node", node: null, inKubernetes: true, eligible: false, reason: "not scheduled", inTa: false },
        { role: "per-node", node: null, inKubernetes: false, eligible: false, reason: "not a pod in Kubernetes", inTa: true },
        { role: "cluster-scraper", node: "n1", inKubernetes: true, eligible: true, reason: null, inTa: true },
      ],
      monitorCounts: { ok: 5, double: 1, orphaned: 0, misrouted: 2 },
      nodesWithoutCollector: ["n7", "n8"],
    },
  };
}

const find = (series: Series[], name: string, labels: Record<string, string>) =>
  series.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
const value = (series: Series[], name: string, labels: Record<string, string>) => {
  const f = find(series, name, labels);
  expect(f, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
  return f[0].value;
};

describe("deriveSeries", () => {
  const series = deriveSeries(snapshot(), { "per-node": 120, "cluster-scraper": 40 });
  const c = { cluster: "prod-eu-1" };

  it("uses exactly the contract names and label sets", () => {
    const specs = Object.values(DERIVED_METRICS);
    // the loop below asserts nothing on an empty list: the snapshot must yield series of every kind it has data for
    expect(series.length).toBeGreaterThan(0);
    expect(new Set(series.map((s) => s.name))).toEqual(
      new Set(
        [DERIVED_METRICS.targets, DERIVED_METRICS.unassigned, DERIVED_METRICS.locality, DERIVED_METRICS.collectors, DERIVED_METRICS.monitors]
          .concat([DERIVED_METRICS.nodesWithoutCollector, DERIVED_METRICS.sourceUp, DERIVED_METRICS.pollDuration, DERIVED_METRICS.lastPoll, DERIVED_METRICS.taRequests])
          .concat([DERIVED_METRICS.ringHeadroom])
          .map((m) => m.name),
      ),
    );
    for (const s of series) {
      const m = specs.find((x) => x.name === s.name);
      expect(m, s.name).toBeDefined();
      expect(Object.keys(s.labels).sort()).toEqual([...m!.labelNames].sort());
    }
    expect(DERIVED_METRICS.targets.name).toBe("allocation_lens_targets");
    expect(DERIVED_METRICS.collectors.labelNames).toEqual(["cluster", "role", "state"]);
    expect(CHURN_METRICS.readinessTransitions.name).toBe("allocation_lens_readiness_transitions_total");
    expect(CHURN_METRICS.targetReassignments.name).toBe("allocation_lens_target_reassignments_total");
    expect(CHURN_METRICS.collectorTransitions).toMatchObject({ name: "allocation_lens_collector_readiness_transitions_total", labelNames: ["cluster", "role", "pod", "node"] });
  });

  it("maps targets by class (zeros included), unassigned and locality (omitted when null)", () => {
    expect(value(series, "allocation_lens_targets", { ...c, role: "per-node", class: "ghost" })).toBe(4);
    expect(value(series, "allocation_lens_targets", { ...c, role: "per-node", class: "cross_node" })).toBe(0);
    expect(find(series, "allocation_lens_targets", c)).toHaveLength(10);
    expect(value(series, "allocation_lens_unassigned_targets", { ...c, role: "per-node" })).toBe(2);
    expect(find(series, "allocation_lens_unassigned_targets", { role: "cluster-scraper" })).toHaveLength(0);
    expect(value(series, "allocation_lens_locality_ratio", { ...c, role: "per-node" })).toBeCloseTo(0.8333, 4);
    expect(find(series, "allocation_lens_locality_ratio", { role: "cluster-scraper" })).toHaveLength(0);
  });

  it("counts collector states of pods known to Kubernetes only", () => {
    const pn = { ...c, role: "per-node" };
    expect(value(series, "allocation_lens_collectors", { ...pn, state: "ready" })).toBe(2);
    expect(value(series, "allocation_lens_collectors", { ...pn, state: "not_ready" })).toBe(1);
    expect(value(series, "allocation_lens_collectors", { ...pn, state: "terminating" })).toBe(1);
    expect(value(series, "allocation_lens_collectors", { ...pn, state: "unscheduled" })).toBe(1);
    expect(value(series, "allocation_lens_collectors", { ...c, role: "cluster-scraper", state: "not_ready" })).toBe(0);
    expect(collectorState({ node: "n1", eligible: false, reason: "phase Failed" })).toBe("not_ready");
    expect(collectorState({ node: null, eligible: false, reason: "terminating" })).toBe("terminating");
  });

  it("maps monitors, nodes without collector, sources, poll duration and TA requests", () => {
    expect(value(series, "allocation_lens_monitors", { ...c, ownership: "misrouted" })).toBe(2);
    expect(value(series, "allocation_lens_monitors", { ...c, ownership: "orphaned" })).toBe(0);
    expect(value(series, "allocation_lens_nodes_without_collector", c)).toBe(2);
    expect(value(series, "allocation_lens_source_up", { ...c, source: "ta/per-node" })).toBe(1);
    expect(value(series, "allocation_lens_source_up", { ...c, source: "ta/cluster-scraper" })).toBe(0);
    expect(value(series, "allocation_lens_source_up", { ...c, source: "kube/podmonitors" })).toBe(0);
    expect(value(series, "allocation_lens_poll_duration_seconds", c)).toBe(0.25);
    expect(value(series, "allocation_lens_ta_requests_total", { ...c, role: "per-node" })).toBe(120);
    expect(sourceLabel("other/ta/per-node", "prod-eu-1")).toBe("other/ta/per-node");
  });

  it("gives the ring headroom of TAs that build a consistent-hashing ring or may, and of no other", () => {
    const headroom = (series: Series[], role: string) => find(series, "allocation_lens_ta_ring_headroom", { ...c, role });
    // per-node with a fallback no source states may build the ring; its ring holds the 4 collectors the TA lists
    expect(value(series, "allocation_lens_ta_ring_headroom", { ...c, role: "per-node" })).toBe(1057);
    expect(headroom(series, "cluster-scraper")).toHaveLength(0); // least-weighted
    expect(headroom(deriveSeries(snapshot(), {}, { "per-node": { fallbackStrategy: "none" } }), "per-node")).toHaveLength(0);
    const found = (fallbackStrategy: string | null) => ({ ...snapshot(), discovery: { found: [{ role: "per-node" as const, strategy: "per-node", fallbackStrategy }] } });
    expect(headroom(deriveSeries(found(null)), "per-node")).toHaveLength(0);
    expect(headroom(deriveSeries(found("consistent-hashing")), "per-node")).toHaveLength(1);
    const big = snapshot();
    Object.assign(big.analysis.roles["cluster-scraper"]!, { strategy: "consistent-hashing", collectorsEligible: 1100 });
    expect(value(deriveSeries(big), "allocation_lens_ta_ring_headroom", { ...c, role: "cluster-scraper" })).toBe(-39);
  });

  it("gives the TA's own unassigned gauge, the ghosts per collector and the poll interval, each only when known", () => {
    const s = snapshot();
    s.pollIntervalMs = 30_000;
    s.analysis.roles["per-node"]!.unassignedReported = 9;
    s.analysis.roles["cluster-scraper"]!.unassignedReported = null;
    s.analysis.targets = [
      { role: "per-node", class: "ghost", collector: "agent-a" },
      { role: "per-node", class: "ghost", collector: "agent-a" },
      { role: "per-node", class: "ghost", collector: "agent-b" },
      { role: "per-node", class: "local", collector: "agent-c" },
      { role: "cluster-scraper", class: "ghost", collector: "agent-a" },
    ];
    const got = deriveSeries(s);
    expect(value(got, "allocation_lens_ta_unassigned_reported", { ...c, role: "per-node" })).toBe(9);
    expect(find(got, "allocation_lens_ta_unassigned_reported", { role: "cluster-scraper" })).toHaveLength(0);
    expect(value(got, "allocation_lens_ghost_targets", { ...c, role: "per-node", collector: "agent-a" })).toBe(2);
    expect(value(got, "allocation_lens_ghost_targets", { ...c, role: "per-node", collector: "agent-b" })).toBe(1);
    expect(value(got, "allocation_lens_ghost_targets", { ...c, role: "cluster-scraper", collector: "agent-a" })).toBe(1);
    expect(find(got, "allocation_lens_ghost_targets", { collector: "agent-c" })).toHaveLength(0);
    expect(value(got, "allocation_lens_poll_interval_seconds", c)).toBe(30);
    // without targets, reported gauge or interval in the snapshot: none of the three
    for (const name of ["allocation_lens_ta_unassigned_reported", "allocation_lens_ghost_targets", "allocation_lens_poll_interval_seconds"]) expect(find(series, name, {})).toHaveLength(0);
  });

  it("omits monitors when they could not be read", () => {
    const s = snapshot();
    s.analysis.monitorCounts = null;
    expect(find(deriveSeries(s), "allocation_lens_monitors", {})).toHaveLength(0);
  });
});

describe("DerivedMetrics exposition", () => {
  it("serves Prometheus text with the contract names, and drops series that are gone at the next set()", async () => {
    const registry = new Registry();
    const m = new DerivedMetrics(registry);
    m.set([...deriveSeries(snapshot(), { "per-node": 7 }), infoSeries("1.2.3")]);
    const text = await registry.metrics();
    expect(registry.contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(text).toContain("# TYPE allocation_lens_targets gauge");
    expect(text).toContain('allocation_lens_targets{cluster="prod-eu-1",role="per-node",class="ghost"} 4');
    expect(text).toContain('allocation_lens_collectors{cluster="prod-eu-1",role="per-node",state="unscheduled"} 1');
    expect(text).toContain("# TYPE allocation_lens_ta_requests_total counter");
    expect(text).toContain('allocation_lens_ta_requests_total{cluster="prod-eu-1",role="per-node"} 7');
    expect(text).toContain('allocation_lens_info{version="1.2.3"} 1');
    expect(text).toContain("# HELP allocation_lens_ta_ring_headroom 1061 minus the collectors in the TA's consistent-hashing ring");
    expect(text).toContain('allocation_lens_ta_ring_headroom{cluster="prod-eu-1",role="per-node"} 1057');
    m.set([]);
    const after = await registry.metrics();
    expect(after).not.toContain("allocation_lens_targets{");
    expect(after).toContain("# TYPE allocation_lens_targets gauge");
  });

  it("escapes hostile label values (quotes, newline, backslash) from Kubernetes and TAs", async () => {
    const registry = new Registry();
    const m = new DerivedMetrics(registry);
    const s = snapshot();
    s.cluster = 'evil"} 1\nallocation_lens_info{version="x\\';
    s.sources = [{ source: 'ta/<script>"\n\\..%2F', state: "ok" }];
    m.set(deriveSeries(s));
    const text = await registry.metrics();
    expect(text).toContain('allocation_lens_source_up{cluster="evil\\"} 1\\nallocation_lens_info{version=\\"x\\\\",source="ta/<script>\\"\\n\\\\..%2F"} 1');
    // no injected series, and a Prometheus text parser reads the original values back
    expect(text.split("\n").filter((l) => l.startsWith("allocation_lens_info"))).toHaveLength(0);
    const families = parsePrometheusTextFormat(text) as { name: string; metrics: { labels?: Record<string, string> }[] }[];
    const up = families.find((f) => f.name === "allocation_lens_source_up")!;
    expect(up.metrics[0].labels).toEqual({ cluster: s.cluster, source: s.sources[0].source });
  });

  it("leaves counters owned by others (churn) alone", async () => {
    const registry = new Registry();
    const m = new DerivedMetrics(registry);
    const churn = new Counter({ name: CHURN_METRICS.readinessTransitions.name, help: "x", labelNames: ["cluster", "role"], registers: [registry] });
    churn.inc({ cluster: "c", role: "per-node" }, 3);
    m.set(deriveSeries(snapshot()));
    m.set(deriveSeries(snapshot()));
    expect(await registry.metrics()).toContain('allocation_lens_readiness_transitions_total{cluster="c",role="per-node"} 3');
    expect(() => m.set([{ name: "allocation_lens_readiness_transitions_total", labels: {}, value: 1 }])).toThrow(/not a derived metric/);
  });
});
