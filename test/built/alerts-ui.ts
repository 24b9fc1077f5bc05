/**
 * Support for opening the alerts' dashboard_url in Debian's Chromium: the built server (`npm run build`,
 * .next/allocation-lens-server.mjs) started on the demo of a `startLens` dashboard, with a history of its own, and pages
 * opened at 1280 px with their page errors collected and a full-page screenshot under artifacts/alerts/. What is missing
 * (the build, Chromium) is named: the suites skip with it, or fail under ALLOCATION_LENS_REQUIRE_PEERS=1.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { chromium, type Browser, type Page } from "@playwright/test";
import { SERVING_ENV, SERVING_NODE_FLAGS } from "@/lib/node-flags";
import { freePort } from "@allocation-lens/test-support/ports";
import { startProcess } from "@allocation-lens/test-support/processes";
import { waitForHttp } from "@allocation-lens/test-support/wait";
import { requirePeers } from "../../scripts/peers.mjs";
import type { Lens } from "@/test/acceptance/support";

const ROOT = path.resolve(import.meta.dirname, "../..");
const ENTRY = path.join(ROOT, ".next", "allocation-lens-server.mjs");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SHOTS = path.join(ROOT, "artifacts", "alerts");

/** What the browser checks need and this machine lacks (empty: they can run). */
export function missingUi(what: string): string[] {
  const missing = [!fs.existsSync(ENTRY) && `no build (${path.relative(ROOT, ENTRY)}): run \`npm run build\``, !fs.existsSync(CHROMIUM) && `no ${CHROMIUM}`].filter((x): x is string => !!x);
  if (missing.length && requirePeers()) throw new Error(`${what} cannot run: ${missing.join("; ")}`);
  if (missing.length) console.warn(`skipping ${what}: ${missing.join("; ")}`);
  return missing;
}

export interface BuiltDashboard {
  /** its URL on loopback */
  base: string;
  stop(): Promise<void>;
}

/** The built server on `lens`'s demo (its generated configuration, plus `extra`), with a history of its own; ready when it returns. */
export async function startBuiltDashboard(lens: Lens, extra: Record<string, unknown> = {}): Promise<BuiltDashboard> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-alerts-ui-"));
  const config = YAML.parse(fs.readFileSync(lens.demo.info.dashboardConfig, "utf8"));
  const file = path.join(dir, "ui.yaml");
  fs.writeFileSync(file, YAML.stringify({ ...config, history: { path: path.join(dir, "ui.sqlite") }, ...extra }));
  const port = await freePort();
  const ui = startProcess(process.execPath, [...SERVING_NODE_FLAGS, ENTRY], {
    cwd: ROOT,
    env: { ...process.env, ...SERVING_ENV, NODE_ENV: "production", ALLOCATION_LENS_CONFIG: file, PORT: String(port), HOSTNAME: "127.0.0.1", NEXT_TELEMETRY_DISABLED: "1" },
  });
  const stop = async () => {
    await ui.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${base}/api/readyz`, { timeoutMs: 120_000, child: ui.child, what: "the built dashboard" });
  } catch (e) {
    await stop();
    throw e;
  }
  return { base, stop };
}

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM });

export interface OpenedPage {
  page: Page;
  /** the errors the page threw so far */
  errors: string[];
  /** a full-page screenshot: artifacts/alerts/<name>.png */
  shot(): Promise<void>;
}

/** Opens `url` in a new 1280 x 900 page of `browser`. */
export async function openPage(browser: Browser, url: string, name: string, opts: { theme?: "light" | "dark" } = {}): Promise<OpenedPage> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: opts.theme ?? "light" });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  return { page, errors, shot: async () => void (await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true })) };
}

/** An alert's dashboard_url (made with another base URL) as the same path and query on the built server. */
export function onBuilt(ui: BuiltDashboard, dashboardUrl: string): string {
  const u = new URL(dashboardUrl);
  return `${ui.base}${u.pathname}${u.search}`;
}

/** The built server on a `startLens` demo with Chromium, to open the alerts' dashboard_url. */
export interface AlertViews {
  /**
   * Opens `dashboardUrl`'s path and query on the built server, waits for `shows` (the page shows the problem), takes the
   * screenshot `shot` and checks that the page threw nothing.
   */
  opens(dashboardUrl: string, shot: string, shows: (page: Page) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/** The built server on `lens`'s demo (its configuration plus `extra`) and Chromium. */
export async function startAlertViews(lens: Lens, extra: Record<string, unknown> = {}): Promise<AlertViews> {
  const ui = await startBuiltDashboard(lens, extra);
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (e) {
    await ui.stop();
    throw e;
  }
  return {
    async opens(dashboardUrl, shot, shows) {
      const { page, errors, shot: screenshot } = await openPage(browser, onBuilt(ui, dashboardUrl), shot);
      await shows(page);
      await screenshot();
      if (errors.length) throw new Error(`${shot}: the page threw ${errors.join("; ")}`);
      await page.close();
    },
    async stop() {
      await browser.close();
      await ui.stop();
    },
  };
}
