import { test, expect } from "../fixtures/test";

test.describe("overview", () => {
  test("shows live counts from the demo cluster that match its ground truth", async ({ page, demos }) => {
    await page.goto("/?cluster=legacy");
    await expect(page.getByRole("heading", { name: "Per-node agent" })).toBeVisible();
    // The previous test's heal may still be propagating (the demo TA re-allocates within a reconcile, the dashboard within
    // a poll): compare with the ground truth as it is now, until both have settled on the same figures.
    await expect(async () => {
      const truth = await demos.legacy.truth();
      const perNodePods = truth.collectors.filter((c) => c.role === "per-node");
      const assigned = truth.targets.filter((t) => t.role === "per-node" && t.collector).length;
      await expect(page.getByTestId("per-node-collectors")).toHaveText(`${perNodePods.length}/${perNodePods.length}`, { timeout: 1000 });
      await expect(page.getByTestId("per-node-targets")).toHaveText(assigned.toLocaleString("en-US"), { timeout: 1000 });
    }).toPass({ timeout: 30_000 });
    await expect(page.getByTestId("per-node-ghosts")).toHaveText("0");
    await expect(page.getByTestId("per-node-locality")).toHaveText("100%");
    await expect(page.getByText(/updated \d+ s ago/)).toBeVisible();
  });

  test("the cluster-scraper card shows its monitors, its balance over its replicas and its targets by zone, with locality only as a note", async ({ page, demos }) => {
    await page.goto("/?cluster=legacy");
    await expect(page.getByRole("heading", { name: "Cluster-scraper agent" })).toBeVisible();
    // the per-node agent keeps its gauge; the cluster-scraper has none, its locality is a note that says it is not expected
    await expect(page.getByTestId("per-node-locality")).toBeVisible();
    await expect(page.getByTestId("cluster-scraper-locality")).toHaveCount(0);
    await expect(page.getByTestId("cluster-scraper-locality-note")).toHaveText(/^locality (n\/a|[\d.<>]+%) \(not expected for the cluster-scraper\)$/);
    await expect(async () => {
      const truth = await demos.legacy.truth();
      const ids = truth.collectors.filter((c) => c.role === "cluster-scraper" && c.eligible && c.registered).map((c) => c.id);
      const counts = ids.map((id) => truth.targets.filter((t) => t.role === "cluster-scraper" && t.collector === id).length);
      const [min, max] = [Math.min(...counts), Math.max(...counts)];
      await expect(page.getByTestId("cluster-scraper-per-collector")).toHaveText(min === max ? `${min}` : `${min}–${max}`, { timeout: 1000 });
      // every assigned target sits in one zone entry (or no zone / no node)
      const assigned = truth.targets.filter((t) => t.role === "cluster-scraper" && t.collector).length;
      const zones = await page.getByTestId("cluster-scraper-zone").allTextContents();
      expect(zones.reduce((sum, z) => sum + Number(z.match(/([\d,]+)$/)![1].replace(/,/g, "")), 0)).toBe(assigned);
    }).toPass({ timeout: 30_000 });
    await expect(page.getByTestId("cluster-scraper-balance")).toHaveText(/^(balanced|uneven|skewed|too few targets|n\/a)$/);
    // the calm demo routes every annotated monitor to the cluster-scraper once
    const total = (await page.getByTestId("cluster-scraper-monitors").textContent())!;
    expect(Number(total)).toBeGreaterThan(0);
    await expect(page.getByTestId("cluster-scraper-monitors-ok")).toHaveText(total);
    for (const state of ["double", "orphaned", "misrouted"]) await expect(page.getByTestId(`cluster-scraper-monitors-${state}`)).toHaveText("0");
    // the card's link opens the Ownership view filtered to the role: the same monitors
    await page.getByRole("link", { name: "Monitors", exact: true }).click();
    await expect(page).toHaveURL(/\/ownership\?cluster=legacy&role=cluster-scraper$/);
    await expect(page.getByRole("region", { name: "Monitors table" }).locator("tbody tr")).toHaveCount(Number(total));
  });
});
