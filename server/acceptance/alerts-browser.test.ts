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
 * - a collector's readiness toggled again and again: AllocationLensCollectorFlapping for that pod; its dashboard_url opens
 *   the node's detail with the readiness history;
 * - after every heal nothing fires.
 *
 * The dashboard Prometheus scrapes is `startLens`'s, in-process, served on a loopback port; the one Chromium opens is the
 * built server (`npm run build`) on the same demo. Screenshots go to artifacts/alerts/. Needs the build and Debian's
 * prometheus and chromium: skipped with the reason without them, a failure under ALLOCATION_LENS_REQUIRE_PEERS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { chromium, type Browser, type Page } from "@playwright/test";
import { EARLIER_SCRAPER_ANNOTATION } from "@/lib/routing";
import { SERVING_NODE_FLAGS } from "@/lib/node-flags";
import { freePort } from "@allocation-lens/test-support/ports";
import { startProcess, type Proc } from "@allocation-lens/test-support/processes";
import { waitForHttp } from "@allocation-lens/test-support/wait";
import { requirePeers } from "../../scripts/peers.mjs";
import { healAndSettle, inject, nodeWithTargets, startLens, truthShows, type Lens } from "@/server/acceptance/support";
import { alertsView, expectQuiet, HAS_PROMETHEUS, key, serveMetrics, startPrometheus, TEST_ALERTS_CONFIG, waitForFiring, waitForView, type Prom, type PromAlert } from "@/server/acceptance/alerts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const ENTRY = path.join(ROOT, ".next", "allocation-lens-server.mjs");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SHOTS = path.join(ROOT, "artifacts", "alerts");
const missing = [!fs.existsSync(ENTRY) && `no build (${path.relative(ROOT, ENTRY)}): run \`npm run build\``, !fs.existsSync(CHROMIUM) && `no ${CHROMIUM}`].filter(Boolean);
if (missing.length && requirePeers()) throw new Error(`the alerts browser test cannot run: ${missing.join("; ")}`);
if (missing.length) console.warn(`skipping the alerts browser test: ${missing.join("; ")}`);

describe.skipIf(!HAS_PROMETHEUS || missing.length > 0)("alerting rules on Prometheus, their dashboard_url in Chromium: cloudwatch, legacy tracking", () => {
  let lens: Lens;
  let metrics: Awaited<ReturnType<typeof serveMetrics>>;
  let prom: Prom;
  let ui: Proc;
  let base: string;
  let portal: http.Server;
  let portalUrl: string;
  let browser: Browser;
  let dir: string;
  let cluster: string;

  const firingOne = (alerts: PromAlert[]) => alerts.filter((a) => a.state === "firing");
  async function open(url: string, shot: string, opts: { theme?: "light" | "dark" } = {}): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: opts.theme ?? "light" });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(url);
    (page as Page & { shot?: () => Promise<void>; errors?: string[] }).errors = errors;
    Object.assign(page, { shot: () => page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true }) });
    return page;
  }
  const shot = (page: Page) => (page as Page & { shot: () => Promise<void> }).shot();
  const pageErrors = (page: Page) => (page as Page & { errors: string[] }).errors;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-alerts-ui-"));
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
    const config = YAML.parse(fs.readFileSync(lens.demo.info.dashboardConfig, "utf8"));
    const file = path.join(dir, "ui.yaml");
    fs.writeFileSync(file, YAML.stringify({ ...config, history: { path: path.join(dir, "ui.sqlite") }, embed: { frameAncestors: ["'self'", portalUrl] } }));
    const port = await freePort();
    ui = startProcess(process.execPath, [...SERVING_NODE_FLAGS, ENTRY], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: "production", ALLOCATION_LENS_CONFIG: file, PORT: String(port), HOSTNAME: "127.0.0.1", NEXT_TELEMETRY_DISABLED: "1" },
    });
    base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/api/readyz`, { timeoutMs: 120_000, child: ui.child, what: "the built dashboard" });
    prom = await startPrometheus(metrics.target, base);
    browser = await chromium.launch({ executablePath: CHROMIUM });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await prom?.stop();
    await ui?.kill();
    await metrics?.close();
    await lens?.stop();
    await new Promise<void>((resolve) => (portal ? portal.close(() => resolve()) : resolve()));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
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
    const v = await alertsView(lens);
    expect(v.alerts.find((x) => x.alert === "AllocationLensCollectorFlapping")!.instances.map((n) => n.labels.pod)).toEqual([pod]);
    const page = await open(a.annotations.dashboard_url, "dashboard-url-collector-flapping");
    await expect.poll(() => page.getByText(pod).first().isVisible(), { timeout: 20_000 }).toBe(true);
    await shot(page);
    await page.close();
    // the flips leave the one-minute window
    await expectQuiet(prom, 120_000);
  }, 240_000);
});
