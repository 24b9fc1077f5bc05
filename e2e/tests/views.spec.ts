/**
 * Every view and every embed renders from the demo cluster without console errors, passes an axe scan (no serious or
 * critical violation) and is captured as a screenshot (artifacts/screenshots, not committed): 1280x800 for the views,
 * 600x400 for the embeds.
 */
import path from "node:path";
import { test, expect, expectAccessible } from "../fixtures/test";
import type { Page, Request } from "@playwright/test";
import { readEnv, SCREENSHOTS } from "../env";

const VIEWS = [
  { path: "/", name: "overview", heading: "legacy" },
  { path: "/nodes", name: "nodes", heading: "Nodes" },
  { path: "/ownership", name: "ownership", heading: "Monitor ownership" },
  { path: "/lost", name: "lost", heading: "Unassigned and lost" },
  { path: "/targets", name: "targets", heading: "Targets" },
  { path: "/collectors", name: "collectors", heading: "Collectors" },
  { path: "/churn", name: "churn", heading: "Churn" },
  { path: "/diagnostics", name: "diagnostics", heading: "Diagnostics" },
];

for (const v of VIEWS) {
  test(`${v.name} view renders, is accessible, and is captured at 1280x800`, async ({ page }) => {
    await page.goto(`${v.path}?cluster=legacy`);
    await expect(page.getByRole("heading", { level: 1, name: v.heading })).toBeVisible();
    await expect(page.getByText(/updated \d+ s ago/).first()).toBeVisible();
    await expect(page.locator("[aria-busy=true]")).toHaveCount(0, { timeout: 30_000 });
    await expectAccessible(page, v.name);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${v.name}-1280x800.png`) });
    await page.goto(`${v.path}?cluster=legacy&theme=dark`);
    await expect(page.getByRole("heading", { level: 1, name: v.heading })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    await expect(page.locator("[aria-busy=true]")).toHaveCount(0, { timeout: 30_000 });
    await expectAccessible(page, `${v.name} (dark)`);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${v.name}-dark-1280x800.png`) });
  });

  if (v.path !== "/") {
    test(`${v.name} embed renders without navigation chrome at 600x400`, async ({ page }) => {
      await page.setViewportSize({ width: 600, height: 400 });
      await page.goto(`/embed${v.path}?cluster=legacy`);
      await expect(page.getByRole("navigation", { name: "Views" })).toHaveCount(0);
      await expect(page.getByText(/updated \d+ s ago/).first()).toBeVisible();
      await expect(page.locator("[aria-busy=true]")).toHaveCount(0, { timeout: 30_000 });
      await expectAccessible(page, `embed ${v.name}`);
      await page.screenshot({ path: path.join(SCREENSHOTS, `embed-${v.name}-600x400.png`) });
    });
  }
}

test("views keep the cluster when navigating, and the cluster picker switches it", async ({ page }) => {
  await page.goto("/?cluster=ready");
  await expect(page.getByRole("heading", { level: 1, name: "ready" })).toBeVisible();
  await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Nodes" }).click();
  await expect(page).toHaveURL(/\/nodes\?cluster=ready/);
  await expect(page.getByRole("heading", { level: 1, name: "Nodes" })).toBeVisible();
  await expect(page.getByText("ready · 12 nodes", { exact: false })).toBeVisible();
  await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Overview" }).click();
  await expect(page).toHaveURL(/\/\?cluster=ready$/);
  await expect(page.getByRole("heading", { level: 1, name: "ready" })).toBeVisible();
  await page.getByLabel("Cluster", { exact: true }).selectOption("legacy");
  await expect(page).not.toHaveURL(/cluster=ready/); // the first cluster is the default: no parameter
  await expect(page.getByRole("heading", { level: 1, name: "legacy" })).toBeVisible();
});

test("a URL naming a cluster the configuration lacks: the clusters there are, one request, no polling, links that lead to them keeping the URL's other parameters", async ({ page, consoleErrors }) => {
  await page.clock.install();
  const api = "/api/v1/collectors?cluster=nope";
  const { asked } = recordRequests(page, api);
  await page.goto("/collectors?theme=light&cluster=nope");
  const state = page.getByRole("alert").filter({ hasText: "No cluster named “nope”" });
  await expect(state).toBeVisible();
  await expect(state.getByRole("link")).toHaveText(["legacy", "ready"]);
  await expect(page.getByRole("button", { name: /Retry/ })).toHaveCount(0);
  await expect(page.getByLabel("Cluster", { exact: true })).toHaveValue("nope");
  await expectAccessible(page, "unknown cluster");
  await page.clock.runFor(30_000); // six poll intervals
  await state.getByRole("link", { name: "ready" }).click();
  await expect(page).toHaveURL(/\/collectors\?theme=light&cluster=ready$/);
  await expect(page.getByRole("heading", { level: 1, name: "Collectors" })).toBeVisible();
  await expect(page.getByText(/updated \d+ s ago/).first()).toBeVisible();
  // asked once (no retry, no polling) before the other cluster's view had loaded
  expect(asked.filter((a) => a === api)).toEqual([api]);
  // the one 404, as the console and the network report it, and nothing else
  expect(consoleErrors.splice(0).sort()).toEqual([`404 GET ${api}`, "Failed to load resource: the server responded with a status of 404 (Not Found)"]);
});

test("a discovered cluster: Diagnostics lists the TAs found in its Kubernetes API and how each is reached", async ({ page }) => {
  await page.goto("/diagnostics?cluster=ready");
  await expect(page.getByRole("heading", { level: 1, name: "Diagnostics" })).toBeVisible();
  await expect(page.locator("[aria-busy=true]")).toHaveCount(0, { timeout: 30_000 });
  const panel = page.getByRole("region", { name: "Discovered Target Allocators" });
  await expect(panel).toBeVisible();
  const rows = panel.getByRole("row");
  await expect(rows).toHaveCount(3); // the header and two TAs
  await expect(panel.getByRole("row", { name: /Per-node agent/ })).toContainText("cloudwatch-agent-target-allocator");
  await expect(panel.getByRole("row", { name: /Per-node agent/ })).toContainText("port-forward through the API server");
  await expect(panel.getByRole("row", { name: /Cluster-scraper agent/ })).toContainText("consistent-hashing");
  await expect(page.getByText("Target Allocators discovered")).toBeVisible();
  await expectAccessible(page, "diagnostics (discovered)");
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SCREENSHOTS, "diagnostics-discovered-1280x800.png"), fullPage: true });
});

/** Records the page's requests of `api`'s path (path and query, in order) until `stop()`. */
function recordRequests(page: Page, api: string): { asked: string[]; stop(): void } {
  const asked: string[] = [];
  const pathname = api.split("?")[0];
  const listener = (r: Request) => {
    const u = new URL(r.url());
    if (u.pathname === pathname) asked.push(`${u.pathname}${u.search}`);
  };
  page.on("request", listener);
  return { asked, stop: () => page.off("request", listener) };
}

test("the overview's figures come with its HTML, without a preload of the answer it carries; the view polls on", async ({ page }) => {
  const api = "/api/v1/summary?cluster=legacy";
  const { asked } = recordRequests(page, api);
  await page.goto("/?cluster=legacy");
  await expect(page.locator("[data-testid^='monitors-']").first()).toBeVisible();
  await expect(page.locator(`link[rel=preload][href^="/api/v1/summary"]`)).toHaveCount(0);
  // the view has hydrated and polls: it asks when the HTML's answer is a poll interval old
  await expect.poll(() => asked.length, { timeout: 15_000 }).toBeGreaterThan(0);
  expect(asked[0]).toBe(api);
});

test("the node map's and the targets listing's first data come from the HTML's preload: one request each", async ({ page }) => {
  for (const [view, api, ready] of [
    ["/nodes", "/api/v1/nodes?cluster=legacy", "[data-node]"],
    ["/targets", "/api/v1/targets?offset=0&limit=100&cluster=legacy", "[role=row][aria-rowindex]:not([aria-busy]):not([aria-rowindex='1'])"],
  ] as const) {
    const { asked, stop } = recordRequests(page, api);
    await page.goto(`${view}?cluster=legacy`);
    await expect(page.locator(ready).first()).toBeVisible();
    stop();
    // the head asks for it, and the client's fetch takes that answer: a preload of another URL would make two requests
    await expect(page.locator(`link[rel=preload][href="${api}"]`)).toHaveCount(1);
    expect(asked, view).toEqual([api]);
  }
});

test("churn: the locality chart draws the per-node line and leaves the cluster-scraper's out, saying why", async ({ page }) => {
  await page.goto("/churn?cluster=legacy");
  const chart = page.getByRole("img", { name: /^Locality ratio over the range; latest per-node / });
  await expect(chart).toBeVisible();
  await expect(chart).toHaveAttribute("aria-label", /Locality is not expected for the cluster-scraper: its targets are cluster-level endpoints/);
  await expect(chart.locator(".recharts-line")).toHaveCount(1);
  await expect(page.getByTestId("locality-left-out")).toHaveText("cluster-scraper: not charted");
  // narrowed to the cluster-scraper, the chart's place says why there is no line
  await page.getByRole("group", { name: "Role", exact: true }).getByRole("button", { name: "cluster-scraper", exact: true }).click();
  await expect(page).toHaveURL(/role=cluster-scraper/);
  await expect(page.getByText(/^Locality is not expected for the cluster-scraper/)).toBeVisible();
  await expect(page.getByRole("img", { name: /^Locality ratio/ })).toHaveCount(0);
});

test("the overview's figures are in its HTML: painted with scripts off", async ({ browser }) => {
  const { baseURL } = readEnv();
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await page.goto(`${baseURL}/?cluster=legacy`);
    await expect(page.getByRole("heading", { level: 1, name: "legacy" })).toBeVisible();
    // the same figures the API gives
    const summary = (await (await fetch(`${baseURL}/api/v1/summary?cluster=legacy`)).json()) as { monitors: { ok: number } };
    await expect(page.getByTestId("monitors-ok")).toHaveText(String(summary.monitors.ok));
  } finally {
    await context.close();
  }
});
