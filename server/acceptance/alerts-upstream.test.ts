/**
 * The alerting rules on a real Prometheus against the dashboard on the upstream flavor (ready-only tracking, a 2 s grace
 * period): the calm world fires nothing, and each demo fault fires exactly its alerts, with their labels, values and
 * annotations, then nothing after the heal; the Alerts view (GET /api/v1/alerts) holds the same alerts as Prometheus.
 *
 * - collector-not-ready: once the grace period is over, upstream drops the collector and its node's targets are
 *   unassigned (no fallback for a target with a node): AllocationLensUnassignedTargets;
 * - the heal: the targets are placed again, but upstream's sticky gauge keeps its count: AllocationLensTaUnassignedGaugeWrong
 *   (until the TA restarts: ta-killed);
 * - ta-outage: AllocationLensSourceDown for ta/per-node;
 * - ta-slow: a poll that waits for the TA: AllocationLensPollLate.
 *
 * Needs Debian's prometheus (skipped with the reason without it; a failure under ALLOCATION_LENS_REQUIRE_PEERS=1).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healAndSettle, inject, nodeWithTargets, type Lens } from "@/server/acceptance/support";
import { alertsView, expectQuiet, HAS_PROMETHEUS, key, startLensWithPrometheus, waitForFiring, waitForView, type Prom } from "@/server/acceptance/alerts";

describe.skipIf(!HAS_PROMETHEUS)("alerting rules on Prometheus: upstream, ready-only", () => {
  let lens: Lens;
  let prom: Prom;
  let stop: (() => Promise<void>) | undefined;
  let cluster: string;

  beforeAll(async () => {
    ({ lens, prom, stop } = await startLensWithPrometheus({
      flavor: "upstream",
      tracking: "ready-only",
      graceSeconds: 2,
      configure: (c) => ({
        ...c,
        // a slow TA is waited for (ta-slow), not timed out
        clusters: c.clusters.map((x: { targetAllocators: Record<string, object> }) => ({
          ...x,
          targetAllocators: Object.fromEntries(Object.entries(x.targetAllocators).map(([role, ta]) => [role, { ...ta, timeoutSeconds: 60, pollTimeoutSeconds: 90 }])),
        })),
      }),
    }));
    cluster = lens.cluster;
  }, 180_000);

  afterAll(async () => stop?.());

  it("calm: no alert fires or is pending, in Prometheus or in the Alerts view", async () => {
    await expectQuiet(prom);
    const v = await waitForView(lens, []);
    expect(v.alerts.map((a) => a.state)).toEqual(v.alerts.map(() => "inactive"));
  });

  it("collector-not-ready: the node's targets unassigned after the grace period; the sticky gauge after the heal; quiet after the TA restarts", async () => {
    const { node, targets } = nodeWithTargets(await lens.truth(), 1);
    await inject(lens, { fault: "collector-not-ready", node });
    const want = key("AllocationLensUnassignedTargets", { cluster, role: "per-node" });
    const alerts = await waitForFiring(prom, [want]);
    const a = alerts.find((x) => x.state === "firing")!;
    expect(Number(a.value)).toBe(targets.length);
    expect(a.annotations.summary).toBe(`${targets.length} unassigned targets on the per-node TA of ${cluster}`);
    expect(a.annotations.dashboard_url).toBe(`http://dashboard.test/lost?cluster=${cluster}&role=per-node`);
    expect(a.annotations.runbook_url).toBe("https://runbooks.test/docs/runbooks/unassigned-targets.md");
    const v = await waitForView(lens, [want]);
    const row = v.alerts.find((x) => x.alert === "AllocationLensUnassignedTargets")!;
    expect(row.instances[0]).toMatchObject({ value: targets.length, summary: a.annotations.summary, dashboardPath: `/lost?cluster=${cluster}&role=per-node` });

    // the heal places the targets again; upstream's gauge keeps the count it recorded
    await lens.control.heal();
    const sticky = key("AllocationLensTaUnassignedGaugeWrong", { cluster, role: "per-node" });
    const after = await waitForFiring(prom, [sticky]);
    expect(Number(after.find((x) => x.state === "firing")!.value)).toBe(targets.length);
    await waitForView(lens, [sticky]);
    // a restarted TA starts without the gauge
    await inject(lens, { fault: "ta-killed", role: "per-node", downSeconds: 0 });
    await expectQuiet(prom);
    await waitForView(lens, []);
  });

  it("ta-outage: AllocationLensSourceDown for the TA's source, quiet once it answers again", async () => {
    await inject(lens, { fault: "ta-outage", role: "per-node", seconds: 20 });
    const want = key("AllocationLensSourceDown", { cluster, source: "ta/per-node" });
    const alerts = await waitForFiring(prom, [want]);
    expect(alerts.find((x) => x.state === "firing")!.annotations.dashboard_url).toBe(`http://dashboard.test/diagnostics?cluster=${cluster}`);
    await waitForView(lens, [want]);
    await healAndSettle(lens);
    await expectQuiet(prom);
  });

  it("ta-slow: a poll waiting for the TA is late: AllocationLensPollLate, quiet after the heal", async () => {
    await inject(lens, { fault: "ta-slow", role: "per-node", ms: 30_000 });
    const want = key("AllocationLensPollLate", { cluster });
    const alerts = await waitForFiring(prom, [want]);
    expect(Number(alerts.find((x) => x.state === "firing")!.value)).toBeGreaterThan(5);
    const v = await waitForView(lens, [want]);
    expect(v.alerts[0]).toMatchObject({ alert: "AllocationLensPollLate" });
    await healAndSettle(lens, 120_000);
    await expectQuiet(prom);
    expect((await alertsView(lens)).alerts.every((a) => a.state === "inactive")).toBe(true);
  }, 240_000);
});
