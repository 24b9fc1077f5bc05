import { describe, expect, it } from "vitest";
import { AlertTracker, CONDITIONS, toAlertsView, type AlertInputs } from "@/lib/alerts/evaluate";
import { ALERT_RULES, DEFAULT_ALERT_PARAMS } from "@/lib/alerts/rules";
import type { Series } from "@/lib/metrics/derived";

const cluster = "prod-eu-1";
const s = (name: string, labels: Record<string, string>, value: number): Series => ({ name, labels: { cluster, ...labels }, value });
const NOW = 1_800_000_000_000;
const calm: Series[] = [
  s("allocation_lens_ghost_targets", { role: "per-node", collector: "agent-a" }, 0),
  s("allocation_lens_monitors", { ownership: "ok" }, 12),
  s("allocation_lens_monitors", { ownership: "double" }, 0),
  s("allocation_lens_unassigned_targets", { role: "per-node" }, 0),
  s("allocation_lens_ta_unassigned_reported", { role: "per-node" }, 0),
  s("allocation_lens_locality_ratio", { role: "per-node" }, 1),
  s("allocation_lens_locality_ratio", { role: "cluster-scraper" }, 0.2),
  s("allocation_lens_source_up", { source: "ta/per-node" }, 1),
  s("allocation_lens_last_poll_timestamp_seconds", {}, NOW / 1000 - 10),
  s("allocation_lens_poll_interval_seconds", {}, 15),
  s("allocation_lens_nodes_without_collector", {}, 0),
  s("allocation_lens_ta_ring_headroom", { role: "per-node" }, 1000),
];
const inputs = (series: Series[], over: Partial<AlertInputs> = {}): AlertInputs => ({ cluster, series, flips: [], now: NOW, ...over });
const replace = (series: Series[], name: string, labels: Record<string, string>, value: number) =>
  series.map((x) => (x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v) ? { ...x, value } : x));
const fresh = { at: NOW, pollIntervalMs: 15_000, stale: [] };

describe("the Alerts view's conditions", () => {
  it("has one condition per rule", () => {
    expect(Object.keys(CONDITIONS).sort()).toEqual(ALERT_RULES.map((r) => r.alert).sort());
  });

  it("fires nothing in a calm cluster", () => {
    const v = toAlertsView(inputs(calm), DEFAULT_ALERT_PARAMS, { runbookBaseUrl: "https://x/docs/runbooks/" }, new AlertTracker(), fresh);
    expect(v.alerts.filter((a) => a.state !== "inactive")).toEqual([]);
    expect(v.alerts.map((a) => a.alert)).toEqual(ALERT_RULES.map((r) => r.alert));
    expect(v.alerts[0].runbookUrl).toBe("https://x/docs/runbooks/ghost-targets.md");
  });

  it.each([
    ["AllocationLensGhostTargets", replace(calm, "allocation_lens_ghost_targets", {}, 4), { cluster, role: "per-node", collector: "agent-a" }, 4],
    ["AllocationLensMonitorScrapedTwice", replace(calm, "allocation_lens_monitors", { ownership: "double" }, 3), { cluster, ownership: "double" }, 3],
    ["AllocationLensUnassignedTargets", replace(replace(calm, "allocation_lens_unassigned_targets", {}, 7), "allocation_lens_ta_unassigned_reported", {}, 7), { cluster, role: "per-node" }, 7],
    ["AllocationLensTaUnassignedGaugeWrong", replace(calm, "allocation_lens_ta_unassigned_reported", {}, 9), { cluster, role: "per-node" }, 9],
    ["AllocationLensLocalityLow", replace(calm, "allocation_lens_locality_ratio", { role: "per-node" }, 0.8), { cluster, role: "per-node" }, 0.8],
    ["AllocationLensSourceDown", replace(calm, "allocation_lens_source_up", {}, 0), { cluster, source: "ta/per-node" }, 0],
    ["AllocationLensPollLate", replace(calm, "allocation_lens_last_poll_timestamp_seconds", {}, NOW / 1000 - 60), { cluster }, 60],
    ["AllocationLensNodesWithoutCollector", replace(calm, "allocation_lens_nodes_without_collector", {}, 2), { cluster }, 2],
    ["AllocationLensTaRingNearLimit", replace(calm, "allocation_lens_ta_ring_headroom", {}, 106), { cluster, role: "per-node" }, 106],
    ["AllocationLensTaRingOverLimit", replace(calm, "allocation_lens_ta_ring_headroom", {}, -2), { cluster, role: "per-node" }, -2],
  ] as const)("%s: exactly that rule holds, with the expression's labels and value", (alert, series, labels, value) => {
    const v = toAlertsView(inputs(series), DEFAULT_ALERT_PARAMS, { runbookBaseUrl: "https://x" }, new AlertTracker(), fresh);
    const active = v.alerts.filter((a) => a.state !== "inactive");
    expect(active.map((a) => a.alert)).toEqual([alert]);
    expect(active[0].instances).toHaveLength(1);
    expect(active[0].instances[0]).toMatchObject({ labels, value });
    expect(active[0].instances[0].dashboardPath).toMatch(/^\/[a-z]*\?cluster=prod-eu-1/);
  });

  it("flapping: flips over the window as a per-hour rate; unknown without history", () => {
    const flips = [
      { role: "per-node", pod: "agent-x", node: "n1", transitions: 7 },
      { role: "per-node", pod: "agent-y", node: "n2", transitions: 6 },
    ];
    const v = toAlertsView(inputs(calm, { flips }), DEFAULT_ALERT_PARAMS, { runbookBaseUrl: "https://x" }, new AlertTracker(), fresh);
    const row = v.alerts.find((a) => a.alert === "AllocationLensCollectorFlapping")!;
    expect(row.instances.map((i) => i.labels.pod)).toEqual(["agent-x"]);
    expect(row.instances[0].summary).toBe("Collector agent-x flaps 7 times an hour (prod-eu-1)");
    expect(row.instances[0].dashboardPath).toBe("/nodes?cluster=prod-eu-1&node=n1");
    const half = toAlertsView(inputs(calm, { flips }), { ...DEFAULT_ALERT_PARAMS, flappingWindow: "30m" }, { runbookBaseUrl: "https://x" }, new AlertTracker(), fresh);
    expect(half.alerts.find((a) => a.alert === "AllocationLensCollectorFlapping")!.instances.map((i) => i.value)).toEqual([14, 12]);
    const none = toAlertsView(inputs(calm, { flips: null }), DEFAULT_ALERT_PARAMS, { runbookBaseUrl: "https://x" }, new AlertTracker(), fresh);
    expect(none.alerts.find((a) => a.alert === "AllocationLensCollectorFlapping")).toMatchObject({ state: "inactive", unknown: "the churn history cannot be read" });
  });

  it("pending until the rule's `for` has passed since the condition first held, then firing; forgotten when it stops", () => {
    const tracker = new AlertTracker();
    const ghosts = replace(calm, "allocation_lens_ghost_targets", {}, 4);
    const at = (now: number, series: Series[]) => toAlertsView(inputs(series, { now }), DEFAULT_ALERT_PARAMS, { runbookBaseUrl: "https://x" }, tracker, fresh).alerts.find((a) => a.alert === "AllocationLensGhostTargets")!;
    expect(at(NOW, ghosts)).toMatchObject({ alert: "AllocationLensGhostTargets", state: "pending", forMs: 300_000 });
    expect(at(NOW + 299_000, ghosts).state).toBe("pending");
    const firing = at(NOW + 300_000, ghosts);
    expect(firing.state).toBe("firing");
    expect(firing.instances[0].since).toBe(NOW);
    expect(at(NOW + 301_000, calm).state).toBe("inactive");
    expect(at(NOW + 302_000, ghosts).instances[0].since).toBe(NOW + 302_000);
  });
});
