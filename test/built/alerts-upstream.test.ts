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
 * Each firing alert's dashboard_url (its path, on the built server polling the same demo with the same TA timeouts) is
 * opened in Chromium: Lost with the unassigned count, then with the TA's stale gauge; Diagnostics with the TA failing;
 * the overview's data older than the late poll's threshold. Screenshots under artifacts/alerts/.
 *
 * Needs Debian's prometheus, and for the browser checks the build and chromium (skipped with the reason without them; a
 * failure under ALLOCATION_LENS_REQUIRE_PEERS=1).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healAndSettle, inject, nodeWithTargets, type Lens } from "@/test/acceptance/support";
import YAML from "yaml";
import fs from "node:fs";
import { alertsView, expectQuiet, HAS_PROMETHEUS, key, startLensWithPrometheus, TEST_ALERTS_CONFIG, waitForFiring, waitForView, type Prom, type PromAlert } from "@/test/built/alerts";
import { missingUi, startAlertViews, type AlertViews } from "@/test/built/alerts-ui";

const UI_MISSING = missingUi("the upstream alerts' browser checks");

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the demo's generated configuration, as startLens hands it
type Config = Record<string, any>;
/** A slow TA is waited for (ta-slow), not timed out. */
const patient = (c: Config): Config => ({
  ...c,
  clusters: c.clusters.map((x: { targetAllocators: Record<string, object> }) => ({
    ...x,
    targetAllocators: Object.fromEntries(Object.entries(x.targetAllocators).map(([role, ta]) => [role, { ...ta, timeoutSeconds: 60, pollTimeoutSeconds: 90 }])),
  })),
});

describe.skipIf(!HAS_PROMETHEUS)("alerting rules on Prometheus: upstream, ready-only", () => {
  let lens: Lens;
  let prom: Prom;
  let stop: (() => Promise<void>) | undefined;
  let views: AlertViews | undefined;
  let cluster: string;

  beforeAll(async () => {
    ({ lens, prom, stop } = await startLensWithPrometheus({ flavor: "upstream", tracking: "ready-only", graceSeconds: 2, configure: patient }));
    cluster = lens.cluster;
    if (UI_MISSING.length === 0) {
      const config: Config = YAML.parse(fs.readFileSync(lens.demo.info.dashboardConfig, "utf8"));
      views = await startAlertViews(lens, { clusters: patient(config).clusters, alerts: TEST_ALERTS_CONFIG });
    }
  }, 240_000);

  afterAll(async () => {
    await views?.stop();
    await stop?.();
  });

  /** Opens the firing alert's dashboard_url on the built server; `shows` resolves once the page shows the problem. */
  const opensView = (a: PromAlert, shot: string, shows: Parameters<AlertViews["opens"]>[2]) => views?.opens(a.annotations.dashboard_url, shot, shows);

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
    await opensView(a, "dashboard-url-unassigned-targets", async (page) => {
      await expect.poll(() => page.getByTestId("per-node-unassigned").innerText().catch(() => ""), { timeout: 20_000 }).toMatch(new RegExp(`^Unassigned\\s+${targets.length}\\s`));
    });

    // the heal places the targets again; upstream's gauge keeps the count it recorded
    await lens.control.heal();
    const sticky = key("AllocationLensTaUnassignedGaugeWrong", { cluster, role: "per-node" });
    const after = await waitForFiring(prom, [sticky]);
    const g = after.find((x) => x.state === "firing")!;
    expect(Number(g.value)).toBe(targets.length);
    await waitForView(lens, [sticky]);
    await opensView(g, "dashboard-url-ta-unassigned-gauge-wrong", async (page) => {
      // the live count 0 beside the TA's gauge, marked stale
      await expect.poll(() => page.getByTestId("per-node-unassigned").innerText().catch(() => ""), { timeout: 20_000 }).toMatch(new RegExp(`^Unassigned\\s+0\\s+TA gauge: ${targets.length} \\(stale\\)`));
    });
    // a restarted TA starts without the gauge
    await inject(lens, { fault: "ta-killed", role: "per-node", downSeconds: 0 });
    await expectQuiet(prom);
    await waitForView(lens, []);
  });

  it("ta-outage: AllocationLensSourceDown for the TA's source, quiet once it answers again", async () => {
    // until the heal
    await inject(lens, { fault: "ta-outage", role: "per-node", seconds: 600 });
    const want = key("AllocationLensSourceDown", { cluster, source: "ta/per-node" });
    const alerts = await waitForFiring(prom, [want]);
    const a = alerts.find((x) => x.state === "firing")!;
    expect(a.annotations.dashboard_url).toBe(`http://dashboard.test/diagnostics?cluster=${cluster}`);
    await waitForView(lens, [want]);
    await opensView(a, "dashboard-url-source-down", async (page) => {
      const check = page.getByTestId("check-ta-reachable");
      await expect.poll(() => check.innerText().catch(() => ""), { timeout: 20_000 }).toContain(`${cluster}/ta/per-node: network:`);
    });
    await healAndSettle(lens);
    await expectQuiet(prom);
  });

  it("ta-slow: a poll waiting for the TA is late: AllocationLensPollLate, quiet after the heal", async () => {
    await inject(lens, { fault: "ta-slow", role: "per-node", ms: 30_000 });
    const want = key("AllocationLensPollLate", { cluster });
    const alerts = await waitForFiring(prom, [want]);
    const a = alerts.find((x) => x.state === "firing")!;
    expect(Number(a.value)).toBeGreaterThan(5);
    expect(a.annotations.dashboard_url).toBe(`http://dashboard.test/?cluster=${cluster}`);
    await opensView(a, "dashboard-url-poll-late", async (page) => {
      // the overview's data older than the late poll's threshold (pollLateIntervals polls of 1 s)
      const age = page.locator(".age").first();
      await expect.poll(async () => Number(/updated (\d+) s ago/.exec(await age.innerText().catch(() => ""))?.[1] ?? 0), { timeout: 30_000 }).toBeGreaterThan(TEST_ALERTS_CONFIG.pollLateIntervals);
    });
    const v = await waitForView(lens, [want]);
    expect(v.alerts[0]).toMatchObject({ alert: "AllocationLensPollLate" });
    await healAndSettle(lens, 120_000);
    await expectQuiet(prom);
    expect((await alertsView(lens)).alerts.every((a) => a.state === "inactive")).toBe(true);
  }, 240_000);
});
