/**
 * The alerting rules on a real Prometheus against the dashboard on the cloudwatch flavor with `ready-only` tracking: a
 * not-Ready collector's targets fall back to other nodes' collectors (the fork's fallback), per-node locality drops below
 * the threshold: exactly AllocationLensLocalityLow fires (no ghost, nothing unassigned), the Alerts view agrees, its
 * dashboard_url (its path, on the built server polling the same demo) shows that node alone on the node map filtered to
 * `degraded`, in Chromium; nothing fires after the heal.
 *
 * Needs Debian's prometheus, and for the browser check the build and chromium (skipped with the reason without them; a
 * failure under ALLOCATION_LENS_REQUIRE_PEERS=1).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healAndSettle, inject, nodeWithTargets, type Lens } from "@/test/acceptance/support";
import { expectQuiet, HAS_PROMETHEUS, key, startLensWithPrometheus, TEST_ALERTS_CONFIG, waitForFiring, waitForView, type Prom } from "@/test/built/alerts";
import { missingUi, startAlertViews, type AlertViews } from "@/test/built/alerts-ui";

const UI_MISSING = missingUi("the locality alert's browser check");

describe.skipIf(!HAS_PROMETHEUS)("alerting rules on Prometheus: cloudwatch, ready-only", () => {
  let lens: Lens;
  let prom: Prom;
  let stop: (() => Promise<void>) | undefined;
  let views: AlertViews | undefined;

  beforeAll(async () => {
    ({ lens, prom, stop } = await startLensWithPrometheus({ flavor: "cloudwatch", tracking: "ready-only" }));
    if (UI_MISSING.length === 0) views = await startAlertViews(lens);
  }, 240_000);

  afterAll(async () => {
    await views?.stop();
    await stop?.();
  });

  it("calm: nothing fires", async () => {
    await expectQuiet(prom);
    await waitForView(lens, []);
  });

  it("collector-not-ready: the node's targets scraped from other nodes: AllocationLensLocalityLow with the ratio, quiet after the heal", async () => {
    const cluster = lens.cluster;
    const { node } = nodeWithTargets(await lens.truth(), 1);
    await inject(lens, { fault: "collector-not-ready", node });
    const want = key("AllocationLensLocalityLow", { cluster, role: "per-node" });
    const alerts = await waitForFiring(prom, [want]);
    const a = alerts.find((x) => x.state === "firing")!;
    const m = await lens.metrics();
    const ratio = m.value("allocation_lens_locality_ratio", { cluster, role: "per-node" })!;
    expect(ratio).toBeLessThan(TEST_ALERTS_CONFIG.localityMin);
    expect(Number(a.value)).toBeCloseTo(ratio, 10);
    expect(a.annotations.summary).toMatch(new RegExp(`^Per-node locality [0-9.]+% in ${cluster}$`));
    expect(a.annotations.dashboard_url).toBe(`http://dashboard.test/nodes?cluster=${cluster}&state=degraded`);
    const v = await waitForView(lens, [want]);
    // the view renders the same summary as Prometheus' template
    expect(v.alerts.find((x) => x.alert === "AllocationLensLocalityLow")!.instances[0].summary).toBe(a.annotations.summary);
    await views?.opens(a.annotations.dashboard_url, "dashboard-url-locality-low", async (page) => {
      // the node map filtered to degraded nodes: the node whose collector is not Ready, alone
      const tiles = page.locator("button[data-node]");
      await expect.poll(() => tiles.evaluateAll((els) => els.map((e) => `${e.getAttribute("data-node")} ${e.getAttribute("data-state")}`)), { timeout: 20_000 }).toEqual([`${node} degraded`]);
    });
    await healAndSettle(lens);
    await expectQuiet(prom);
    await waitForView(lens, []);
  });
});
