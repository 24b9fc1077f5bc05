/**
 * The alerting rules on a real Prometheus against the dashboard on the cloudwatch flavor with `legacy` collector tracking,
 * and each firing alert's dashboard_url opened in Debian's Chromium: it must open a view that shows the problem.
 *
 * - calm: nothing fires or is pending, in Prometheus or in the Alerts view;
 * - collector-not-ready: the TA keeps the not-Ready collector (legacy), its node's targets are ghosts:
 *   AllocationLensGhostTargets for that collector; its dashboard_url opens Targets listing them;
 * - routing-off on the cluster-scraper: every per-node monitor is held by both TAs: AllocationLensMonitorScrapedTwice;
 *   its dashboard_url opens Ownership listing them as double;
 * - annotate-monitor with the earlier annotation key, which the dashboard reads and the TAs do not: the monitor is held
 *   by the TA it does not name: AllocationLensMonitorMisrouted;
 * - the cluster-scraper TA down (ta-outage) while a per-node monitor is annotated for it: the per-node TA drops it and no
 *   TA serves it: AllocationLensMonitorOrphaned, with AllocationLensSourceDown for the TA; its dashboard_url opens
 *   Ownership listing it as orphaned;
 * - a node's agent pod deleted and not recreated: AllocationLensNodesWithoutCollector, with AllocationLensLocalityLow (the
 *   fork's fallback scrapes the node's targets from other nodes); its dashboard_url opens the node map filtered to it;
 * - a collector's readiness toggled again and again: AllocationLensCollectorFlapping for that pod; its dashboard_url opens
 *   the node's detail with the readiness history;
 * - after every heal nothing fires.
 *
 * The dashboard Prometheus scrapes is `startLens`'s, in-process, served on a loopback port; the one Chromium opens is the
 * built server (`npm run build`) on the same demo. Screenshots go to artifacts/alerts/. Needs the build and Debian's
 * prometheus and chromium: skipped with the reason without them, a failure under ALLOCATION_LENS_REQUIRE_PEERS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import type { Browser, Page } from "@playwright/test";
import { EARLIER_SCRAPER_ANNOTATION } from "@/lib/routing";
import { healAndSettle, inject, nodeWithTargets, startLens, truthShows, type Lens } from "@/test/acceptance/support";
import { alertsView, expectQuiet, HAS_PROMETHEUS, key, serveMetrics, startPrometheus, TEST_ALERTS_CONFIG, waitForFiring, waitForView, type Prom, type PromAlert } from "@/test/built/alerts";
import { launchChromium, missingUi, openPage, startBuiltDashboard, type BuiltDashboard } from "@/test/built/alerts-ui";

const missing = missingUi("the alerts browser test");

describe.skipIf(!HAS_PROMETHEUS || missing.length > 0)("alerting rules on Prometheus, their dashboard_url in Chromium: cloudwatch, legacy tracking", () => {
  let lens: Lens;
  let metrics: Awaited<ReturnType<typeof serveMetrics>>;
  let prom: Prom;
  let ui: BuiltDashboard;
  let base: string;
  let portal: http.Server;
  let portalUrl: string;
  let browser: Browser;
  let cluster: string;

  const firingOne = (alerts: PromAlert[]) => alerts.filter((a) => a.state === "firing");
  const pages = new WeakMap<Page, { errors: string[]; shot(): Promise<void> }>();
  async function open(url: string, shot: string, opts: { theme?: "light" | "dark" } = {}): Promise<Page> {
    const o = await openPage(browser, url, shot, opts);
    pages.set(o.page, o);
    return o.page;
  }
  const shot = (page: Page) => pages.get(page)!.shot();
  const pageErrors = (page: Page) => pages.get(page)!.errors;
  /** the screenshot, no page error, closed */
  async function shotAndClose(page: Page): Promise<void> {
    await shot(page);
    expect(pageErrors(page)).toEqual([]);
    await page.close();
  }
  /** the demo healed: nothing fires or is pending, in Prometheus or in the Alerts view */
  async function healedAndQuiet(): Promise<void> {
    await healAndSettle(lens);
    await expectQuiet(prom);
    await waitForView(lens, []);
  }

  beforeAll(async () => {
    // a portal page on loopback whose iframe shows /embed/alerts
    portal = http.createServer((req, res) => {
      const src = new URL(req.url ?? "/", "http://x").searchParams.get("src") ?? "";
      res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><html lang="en"><title>Portal</title><h1>Portal</h1><iframe title="Allocation Lens alerts" src="${src.replace(/"/g, "&quot;")}" width="600" height="400"></iframe></html>`);
    });
    await new Promise<void>((resolve) => portal.listen(0, "127.0.0.1", resolve));
    portalUrl = `http://127.0.0.1:${(portal.address() as { port: number }).port}`;

    lens = await startLens({
      flavor: "cloudwatch",
      tracking: "legacy",
      configure: (c) => {
        // both spellings of the scraper annotation recognised (no `scraperAnnotation`): the earlier key, which the demo's
        // TAs do not read, routes a monitor for the dashboard only
        for (const x of c.clusters) delete x.scraperAnnotation;
        return { ...c, alerts: TEST_ALERTS_CONFIG };
      },
    });
    cluster = lens.cluster;
    metrics = await serveMetrics(lens);
    // the built server on the same demo, with its own history, embeddable by the portal
    ui = await startBuiltDashboard(lens, { embed: { frameAncestors: ["'self'", portalUrl] } });
    base = ui.base;
    prom = await startPrometheus(metrics.target, base);
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await prom?.stop();
    await ui?.stop();
    await metrics?.close();
    await lens?.stop();
    await new Promise<void>((resolve) => (portal ? portal.close(() => resolve()) : resolve()));
  });

  it("calm: nothing fires or is pending; the Alerts view says so, at 1280 px, light, and in a portal's iframe", async () => {
    await expectQuiet(prom);
    await waitForView(lens, []);
    const page = await open(`${base}/alerts?cluster=${cluster}`, "alerts-calm-light");
    await expect.poll(() => page.getByRole("heading", { level: 1, name: "Alerts" }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText("No alert would fire now").isVisible(), { timeout: 20_000 }).toBe(true);
    expect(await page.getByRole("link", { name: "Alerts" }).getAttribute("aria-current")).toBe("page");
    expect(await page.getByRole("list", { name: "Quiet rules" }).getByRole("listitem").count()).toBe(13);
    await shot(page);
    expect(pageErrors(page)).toEqual([]);
    await page.close();
    const framed = await open(`${portalUrl}/?src=${encodeURIComponent(`${base}/embed/alerts?cluster=${cluster}`)}`, "alerts-calm-iframe");
    const frame = framed.frameLocator("iframe");
    await expect.poll(() => frame.getByText("No alert would fire now").isVisible(), { timeout: 20_000 }).toBe(true);
    await shot(framed);
    await framed.close();
  });

  it("collector-not-ready under legacy tracking: AllocationLensGhostTargets for the collector; its dashboard_url lists the ghosts", async () => {
    const { node, pod, targets } = nodeWithTargets(await lens.truth(), 1);
    await inject(lens, { fault: "collector-not-ready", node });
    const want = key("AllocationLensGhostTargets", { cluster, role: "per-node", collector: pod });
    const [a] = firingOne(await waitForFiring(prom, [want]));
    expect(Number(a.value)).toBe(targets.length);
    expect(a.labels).toMatchObject({ cluster, role: "per-node", collector: pod, severity: "warning" });
    expect(a.annotations.summary).toBe(`${targets.length} ghost targets on collector ${pod} (${cluster}, per-node)`);
    expect(a.annotations.runbook_url).toBe("https://runbooks.test/docs/runbooks/ghost-targets.md");
    expect(a.annotations.dashboard_url).toBe(`${base}/targets?cluster=${cluster}&role=per-node&class=ghost&collector=${pod}`);
    await waitForView(lens, [want]);

    const page = await open(a.annotations.dashboard_url, "dashboard-url-ghost-targets");
    const rows = page.getByRole("row").filter({ hasText: pod });
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(targets.length);
    await expect.poll(() => page.getByRole("row").filter({ hasText: "ghost" }).count()).toBeGreaterThanOrEqual(targets.length);
    await shot(page);
    expect(pageErrors(page)).toEqual([]);
    await page.close();

    // the Alerts view with the fault, dark: the alert with its since, its runbook and its view
    const view = await open(`${base}/alerts?cluster=${cluster}&theme=dark`, "alerts-ghost-dark", { theme: "dark" });
    const active = view.getByRole("list", { name: "Alerts that hold" });
    await expect.poll(() => active.getByRole("heading", { name: "AllocationLensGhostTargets" }).isVisible(), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => active.getByText(`${targets.length} ghost targets on collector ${pod}`).isVisible()).toBe(true);
    const link = active.getByRole("link", { name: "Open in Targets" });
    expect(await link.getAttribute("href")).toBe(`/targets?cluster=${cluster}&role=per-node&class=ghost&collector=${pod}&theme=dark`);
    expect(await active.getByRole("link", { name: "Runbook" }).first().getAttribute("href")).toBe("https://runbooks.test/docs/runbooks/ghost-targets.md");
    await shot(view);
    await link.click();
    await expect.poll(() => view.getByRole("row").filter({ hasText: pod }).count(), { timeout: 20_000 }).toBe(targets.length);
    await view.close();

    await healAndSettle(lens);
    await expectQuiet(prom);
    await waitForView(lens, []);
  });

  it("routing-off on the cluster-scraper: AllocationLensMonitorScrapedTwice; its dashboard_url lists the double monitors", async () => {
    const before = (await lens.get<{ monitors: { expectedRole: string; namespace: string; name: string }[] }>("/api/v1/monitors")).body.monitors;
    const perNode = before.filter((m) => m.expectedRole === "per-node");
    await inject(lens, { fault: "routing-off", role: "cluster-scraper" });
    const want = key("AllocationLensMonitorScrapedTwice", { cluster, ownership: "double" });
    const [a] = firingOne(await waitForFiring(prom, [want]));
    expect(Number(a.value)).toBe(perNode.length);
    expect(a.annotations.dashboard_url).toBe(`${base}/ownership?cluster=${cluster}&ownership=double`);
    await waitForView(lens, [want]);

    const page = await open(a.annotations.dashboard_url, "dashboard-url-monitor-scraped-twice");
    const m = perNode[0];
    await expect.poll(() => page.getByRole("row").filter({ hasText: `${m.namespace}/${m.name}` }).filter({ hasText: "double" }).count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await shot(page);
    expect(pageErrors(page)).toEqual([]);
    await page.close();

    await healAndSettle(lens);
    await expectQuiet(prom);
  });

  it("a monitor annotated with the key the TAs do not read: AllocationLensMonitorMisrouted; its dashboard_url shows it", async () => {
    const monitors = (await lens.get<{ monitors: { expectedRole: string; namespace: string; name: string; kind: string }[] }>("/api/v1/monitors")).body.monitors;
    const m = monitors.find((x) => x.expectedRole === "per-node")!;
    await inject(lens, { fault: "annotate-monitor", namespace: m.namespace, name: m.name, kind: m.kind, value: "cluster-scraper", key: EARLIER_SCRAPER_ANNOTATION });
    const want = key("AllocationLensMonitorMisrouted", { cluster, ownership: "misrouted" });
    const [a] = firingOne(await waitForFiring(prom, [want]));
    expect(Number(a.value)).toBe(1);
    await waitForView(lens, [want]);
    const page = await open(a.annotations.dashboard_url, "dashboard-url-monitor-misrouted");
    await expect.poll(() => page.getByRole("row").filter({ hasText: `${m.namespace}/${m.name}` }).count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await shot(page);
    await page.close();
    await healAndSettle(lens);
    await expectQuiet(prom);
  }, 180_000);

  it("the cluster-scraper TA down while a monitor is annotated for it: AllocationLensMonitorOrphaned and the TA's source down; its dashboard_url lists the orphan", async () => {
    const monitors = (await lens.get<{ monitors: { expectedRole: string; namespace: string; name: string; kind: string }[] }>("/api/v1/monitors")).body.monitors;
    const m = monitors.find((x) => x.expectedRole === "per-node")!;
    // the TA that should take the monitor does not answer: the per-node TA drops it, and no TA serves it
    await inject(lens, { fault: "ta-outage", role: "cluster-scraper", seconds: 600 });
    await inject(lens, { fault: "annotate-monitor", namespace: m.namespace, name: m.name, kind: m.kind, value: "cluster-scraper" });
    const want = key("AllocationLensMonitorOrphaned", { cluster, ownership: "orphaned" });
    const down = key("AllocationLensSourceDown", { cluster, source: "ta/cluster-scraper" });
    const alerts = firingOne(await waitForFiring(prom, [want, down]));
    const a = alerts.find((x) => x.labels.alertname === "AllocationLensMonitorOrphaned")!;
    expect(Number(a.value)).toBe(1);
    expect(a.labels.severity).toBe("critical");
    expect(a.annotations.summary).toBe(`1 monitors scraped by no TA in ${cluster}`);
    expect(a.annotations.runbook_url).toBe("https://runbooks.test/docs/runbooks/monitor-orphaned.md");
    expect(a.annotations.dashboard_url).toBe(`${base}/ownership?cluster=${cluster}&ownership=orphaned`);
    await waitForView(lens, [want, down]);

    const page = await open(a.annotations.dashboard_url, "dashboard-url-monitor-orphaned");
    const rows = page.getByRole("row").filter({ hasText: `${m.namespace}/${m.name}` });
    await expect.poll(() => rows.filter({ hasText: "orphaned" }).count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await shotAndClose(page);
    await healedAndQuiet();
  }, 180_000);

  it("a node's agent pod deleted and not recreated: AllocationLensNodesWithoutCollector (and its targets scraped elsewhere: AllocationLensLocalityLow); its dashboard_url shows the node", async () => {
    const { node, pod } = nodeWithTargets(await lens.truth(), 3);
    // what a DaemonSet pod that cannot be scheduled leaves (no room on the node): the node keeps its targets, without an
    // agent; the demo has no DaemonSet controller, so the pod stays gone until the heal puts the baseline back
    const agent = lens.demo.store.list("pods").find((p) => p.metadata.name === pod)!;
    lens.demo.store.remove("pods", agent.metadata.namespace, pod);
    await truthShows(lens, `no agent pod on ${node}`, (t) => !t.collectors.some((c) => c.role === "per-node" && c.node === node));
    const want = key("AllocationLensNodesWithoutCollector", { cluster });
    const locality = key("AllocationLensLocalityLow", { cluster, role: "per-node" });
    const alerts = firingOne(await waitForFiring(prom, [want, locality]));
    const a = alerts.find((x) => x.labels.alertname === "AllocationLensNodesWithoutCollector")!;
    expect(Number(a.value)).toBe(1);
    expect(a.annotations.summary).toBe(`1 nodes with targets but no collector in ${cluster}`);
    expect(a.annotations.runbook_url).toBe("https://runbooks.test/docs/runbooks/nodes-without-collector.md");
    expect(a.annotations.dashboard_url).toBe(`${base}/nodes?cluster=${cluster}&state=no_collector`);
    await waitForView(lens, [want, locality]);

    const page = await open(a.annotations.dashboard_url, "dashboard-url-nodes-without-collector");
    // the map filtered to the nodes without a collector: that node alone
    const tiles = page.locator("button[data-node]");
    await expect.poll(() => tiles.evaluateAll((els) => els.map((e) => `${e.getAttribute("data-node")} ${e.getAttribute("data-state")}`)), { timeout: 20_000 }).toEqual([`${node} no_collector`]);
    await shotAndClose(page);
    await healedAndQuiet();
  }, 180_000);

  it("a collector whose readiness flips again and again: AllocationLensCollectorFlapping for that pod; its dashboard_url opens its node", async () => {
    const { node, pod } = nodeWithTargets(await lens.truth(), 2);
    const eligible = (want: boolean) => (t: Awaited<ReturnType<Lens["truth"]>>) => t.collectors.some((c) => c.id === pod && c.eligible === want);
    for (let i = 0; i < 6; i++) {
      await inject(lens, { fault: "collector-not-ready", node });
      await truthShows(lens, `${pod} not Ready`, eligible(false));
      await lens.control.heal();
      await truthShows(lens, `${pod} Ready again`, eligible(true));
    }
    const want = key("AllocationLensCollectorFlapping", { cluster, role: "per-node", pod, node });
    const [a] = firingOne(await waitForFiring(prom, [want]));
    expect(Number(a.value)).toBeGreaterThan(TEST_ALERTS_CONFIG.flappingPerHour);
    expect(a.annotations.dashboard_url).toBe(`${base}/nodes?cluster=${cluster}&node=${node}`);
    // the view counts the flips from the churn history, which the worker writes as the pod events come: asked until it has
    // them (Prometheus may fire from the counter first), never at a fixed time
    await expect
      .poll(async () => (await alertsView(lens)).alerts.find((x) => x.alert === "AllocationLensCollectorFlapping")?.instances.map((n) => n.labels.pod), { timeout: 20_000, interval: 250 })
      .toEqual([pod]);
    const page = await open(a.annotations.dashboard_url, "dashboard-url-collector-flapping");
    await expect.poll(() => page.getByText(pod).first().isVisible(), { timeout: 20_000 }).toBe(true);
    await shot(page);
    await page.close();
    // the flips leave the one-minute window
    await expectQuiet(prom, 120_000);
  }, 240_000);
});
