/**
 * Faults driven through the demo clusters' control APIs, asserted as a user sees them.
 */
import { test, expect } from "../fixtures/test";

/** A node of the world with a per-node agent, the same in both demos (same seed). */
async function aNode(truth: { collectors: { role: string; node: string }[] }): Promise<string> {
  return truth.collectors.filter((c) => c.role === "per-node").map((c) => c.node).sort()[2];
}

test("legacy tracking: a not-Ready collector turns its node's tile to ghosts and its targets appear as ghosts", async ({ page, demos }) => {
  const node = await aNode(await demos.legacy.truth());
  await page.goto(`/nodes?cluster=legacy`);
  const tile = page.locator(`[data-node="${node}"]`);
  await expect(tile).toHaveAttribute("data-state", "healthy");
  await demos.legacy.fault({ fault: "collector-not-ready", node });
  await expect(tile).toHaveAttribute("data-state", "ghosts", { timeout: 20_000 });
  const truth = await demos.legacy.truth();
  const onNode = truth.targets.filter((t) => t.role === "per-node" && t.node === node).length;
  expect(onNode, "the node runs targets of the per-node agent").toBeGreaterThan(0);
  await page.goto(`/targets?cluster=legacy&class=ghost`);
  // exactly the node's targets turned ghost, listed (not the filtered-to-nothing state)
  await expect(page.getByTestId("targets-headline")).toHaveText(new RegExp(`^${onNode.toLocaleString("en-US")} of [\\d,]+ match$`));
  await expect(page.getByText("No target matches")).toHaveCount(0);
  await expect(page.getByRole("row").filter({ hasText: node }).first()).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "not Ready" }).first()).toBeVisible();
  await page.goto(`/?cluster=legacy`);
  await expect(page.getByTestId("per-node-ghosts")).toHaveText(String(onNode));
  await expect(page.getByTestId("per-node-unassigned")).toHaveText("0");
});

test("ready-only tracking: a not-Ready collector degrades its node and its targets move to the fallback", async ({ page, demos }) => {
  const node = await aNode(await demos.ready.truth());
  await page.goto(`/nodes?cluster=ready`);
  const tile = page.locator(`[data-node="${node}"]`);
  await expect(tile).toHaveAttribute("data-state", "healthy");
  await demos.ready.fault({ fault: "collector-not-ready", node });
  await expect(tile).toHaveAttribute("data-state", "degraded", { timeout: 20_000 });
  await page.goto(`/targets?cluster=ready&node=${encodeURIComponent(node)}&class=cross_node,cross_zone`);
  await expect(page.getByRole("row").filter({ hasText: node }).first()).toBeVisible();
  await page.goto(`/?cluster=ready`);
  await expect(page.getByTestId("per-node-ghosts")).toHaveText("0");
  await expect(page.getByTestId("per-node-locality")).not.toHaveText("100%");
});

test("an annotated monitor changes owner on the ownership view", async ({ page, demos }) => {
  const truth = await demos.legacy.truth();
  const job = truth.targets.find((t) => t.role === "per-node" && t.job.startsWith("serviceMonitor/"))!.job;
  const [, namespace, name] = job.split("/");
  await page.goto(`/ownership?cluster=legacy&q=${encodeURIComponent(name)}`);
  const row = page.getByRole("row").filter({ hasText: `${namespace}/${name}` }).first();
  await expect(row).toContainText("per-node");
  await demos.legacy.fault({ fault: "annotate-monitor", namespace, name, value: "cluster-scraper" });
  await expect(row).toContainText("cluster-scraper", { timeout: 20_000 });
  await expect(row).toContainText("ok");
});

test("a TA outage shows a stale banner while the last good data stays on screen", async ({ page, demos }) => {
  // Wait for a settled state first: the previous test's fault was healed after it, and the demo TA takes up to a
  // reconcile (1 s) to re-allocate while the dashboard takes up to a poll (2 s) to read it. Settled = the page has shown
  // the demo's ground truth for 5 consecutive seconds; only then does the figure stand for "the last good data".
  await page.goto(`/?cluster=legacy`);
  const targets = page.getByTestId("per-node-targets");
  let matches = 0;
  let before = "";
  await expect
    .poll(
      async () => {
        const truth = await demos.legacy.truth();
        const want = truth.targets.filter((t) => t.role === "per-node" && t.collector).length.toLocaleString("en-US");
        const shown = (await targets.textContent()) ?? "";
        matches = shown === want && shown === before ? matches + 1 : 0;
        before = shown;
        return matches;
      },
      { timeout: 40_000, intervals: [1_000] },
    )
    .toBeGreaterThanOrEqual(5);
  await demos.legacy.fault({ fault: "ta-outage", role: "per-node", seconds: 30 });
  await expect(page.getByRole("status").filter({ hasText: /source.* failing/ })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole("status")).toContainText("ta/per-node");
  await expect(targets).toHaveText(before);
});

test("hostile strings from a TA render as text and run nothing", async ({ page, demos }) => {
  let dialogs = 0;
  page.on("dialog", async (d) => {
    dialogs++;
    await d.dismiss();
  });
  await demos.legacy.fault({ fault: "hostile-target", role: "per-node" });
  await page.goto(`/targets?cluster=legacy&q=${encodeURIComponent("onerror")}`);
  await expect(page.getByText(/<img src=x onerror=alert\(1\)>/).first()).toBeVisible({ timeout: 20_000 });
  expect(await page.locator("img[src=x]").count()).toBe(0);
  expect(dialogs).toBe(0);
});

test("a malformed answer fails one panel, not the page", async ({ page, consoleErrors }) => {
  // the summary without the node counts: the overview's "Nodes" panel cannot render, everything else can
  await page.route("**/api/v1/summary?*", async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    delete body.nodes.byState;
    await route.fulfill({ response, json: body });
  });
  await page.goto(`/?cluster=legacy`);
  const nodes = page.getByRole("region", { name: "Nodes", exact: true });
  await expect(nodes.getByRole("alert")).toContainText("This panel failed:");
  await expect(nodes.getByRole("button", { name: "Retry" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: "legacy" })).toBeVisible();
  await expect(page.getByTestId("per-node-targets")).toHaveText(/^\d[\d,]*$/);
  await expect(page.getByTestId("monitors-ok")).toHaveText(/^\d+$/);
  await expect(page.getByRole("region", { name: "Top problems" })).toBeVisible();
  await expect(page.getByText("This panel failed:")).toHaveCount(1);
  // React reports the caught error on the console (the message reaches the test a moment later): that one is expected,
  // any other still fails the test
  const caught = (e: string) => /reading 'healthy'|byState/.test(e);
  await expect.poll(() => consoleErrors.some(caught)).toBe(true);
  const unexpected = consoleErrors.filter((e) => !caught(e));
  consoleErrors.splice(0, consoleErrors.length, ...unexpected);
});
