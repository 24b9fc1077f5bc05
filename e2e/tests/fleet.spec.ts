/**
 * The fleet view and its embed, against the e2e dashboard whose own /metrics Debian's Prometheus scrapes (global setup):
 * both clusters listed, linked to their dashboards, the 24-hour trend drawn; no console error, an axe scan, screenshots
 * at 1280x800 (light and dark) and of the embed in a portal's iframe at 600x400. A TA outage in one cluster reaches its row.
 */
import path from "node:path";
import { test, expect, expectAccessible } from "../fixtures/test";
import { readEnv, SCREENSHOTS } from "../env";

test.beforeEach(async ({ request }) => {
  const clusters = (await (await request.get("/api/v1/clusters")).json()) as { fleet: boolean };
  test.skip(!clusters.fleet, "no fleet configured: /usr/bin/prometheus is not installed");
});

test("fleet view lists every cluster from the backend, is accessible, and is captured at 1280x800", async ({ page }) => {
  const { baseURL } = readEnv();
  await page.goto("/fleet");
  await expect(page.getByRole("heading", { level: 1, name: "Fleet" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Fleet" })).toHaveAttribute("aria-current", "page");
  await expect(page.locator("[aria-busy=true]")).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByText(/updated \d+ s ago/).first()).toBeVisible();
  const table = page.getByRole("region", { name: "Clusters of the fleet" });
  for (const name of ["legacy", "ready"]) {
    const link = table.getByRole("rowheader", { name }).getByRole("link", { name });
    await expect(link).toHaveAttribute("href", `${baseURL}/?cluster=${name}`);
  }
  await expect(table.getByRole("img", { name: /^24 h: ghosts at most \d+/ }).first()).toBeVisible();
  await expect(page.getByText(/^2 clusters/)).toBeVisible();
  await expectAccessible(page, "fleet");
  await page.screenshot({ path: path.join(SCREENSHOTS, "fleet-1280x800.png") });
  await page.goto("/fleet?theme=dark");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(page.locator("[aria-busy=true]")).toHaveCount(0, { timeout: 30_000 });
  await expect(table.getByRole("rowheader", { name: "legacy" })).toBeVisible();
  await expectAccessible(page, "fleet (dark)");
  await page.screenshot({ path: path.join(SCREENSHOTS, "fleet-dark-1280x800.png") });
});

test("fleet embed renders without navigation chrome, alone and in a portal's iframe at 600x400", async ({ page }) => {
  const { baseURL } = readEnv();
  await page.setViewportSize({ width: 600, height: 400 });
  await page.goto("/embed/fleet");
  await expect(page.getByRole("navigation", { name: "Views" })).toHaveCount(0);
  await expect(page.locator("[aria-busy=true]")).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByRole("rowheader", { name: "legacy" })).toBeVisible();
  await expectAccessible(page, "embed fleet");
  await page.screenshot({ path: path.join(SCREENSHOTS, "embed-fleet-600x400.png") });

  // a portal page on the dashboard's origin (frame-ancestors 'self'), its iframe showing the embed
  await page.setViewportSize({ width: 680, height: 480 });
  await page.route(`${baseURL}/portal-for-fleet`, (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!doctype html><html lang="en"><title>Portal</title><body style="margin:20px;font-family:sans-serif"><h1 style="font-size:16px">Portal</h1><iframe id="lens" title="Allocation Lens fleet" src="/embed/fleet" width="600" height="400" style="border:1px solid #ccc"></iframe></body></html>`,
    }),
  );
  await page.goto("/portal-for-fleet");
  const frame = page.frameLocator("#lens");
  await expect(frame.getByText("Fleet", { exact: true })).toBeVisible();
  await expect(frame.getByRole("rowheader", { name: "ready" })).toBeVisible();
  await expect(frame.locator("[aria-busy=true]")).toHaveCount(0, { timeout: 30_000 });
  await expect(frame.getByRole("img", { name: /^24 h:/ }).first()).toBeVisible();
  await page.screenshot({ path: path.join(SCREENSHOTS, "embed-fleet-iframe-600x400.png") });
});

test("a TA outage and a not-Ready collector in one cluster reach its fleet row, worst first", async ({ page, demos }) => {
  const truth = await demos.legacy.truth();
  const node = truth.targets.find((t) => t.role === "per-node" && t.node && t.collector)!.node!;
  // legacy tracking: the TA keeps the not-Ready collector, its targets become ghosts
  await demos.legacy.fault({ fault: "collector-not-ready", node });
  await demos.legacy.fault({ fault: "ta-outage", role: "cluster-scraper", seconds: 60 });
  await page.goto("/fleet");
  const first = page.getByRole("region", { name: "Clusters of the fleet" }).getByRole("row").nth(1);
  await expect(first.getByRole("rowheader")).toHaveText("legacy", { timeout: 30_000 });
  await expect(first.getByText(/^\d+ ghost targets?$/)).toBeVisible({ timeout: 30_000 });
  await expect(first.getByText(/source failing: ta\/cluster-scraper/)).toBeVisible({ timeout: 30_000 });
  await expect(first.getByText("problems", { exact: true })).toBeVisible();
  await page.screenshot({ path: path.join(SCREENSHOTS, "fleet-ta-outage-1280x800.png") });
});

test("the fleet page's rows are in its HTML: painted with scripts off", async ({ browser }) => {
  const { baseURL } = readEnv();
  // the server renders the rows when it has the fleet's answer at once: its first one (the backend asked) is awaited here
  await expect.poll(async () => ((await (await fetch(`${baseURL}/api/v1/fleet`)).json()) as { clusters: unknown[] }).clusters.length, { timeout: 30_000 }).toBe(2);
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    for (const url of ["/fleet", "/embed/fleet"]) {
      await page.goto(`${baseURL}${url}`);
      const table = page.getByRole("region", { name: "Clusters of the fleet" });
      for (const name of ["legacy", "ready"]) await expect(table.getByRole("rowheader", { name }), url).toBeVisible();
    }
  } finally {
    await context.close();
  }
});
