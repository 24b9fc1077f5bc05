/**
 * What `npm run bench` and `npm run attack` share: their command line, the build check, the embedded demo cluster (through the demo package's
 * launcher, the one place that spawns it and reads its JSON line), the built dashboard as `npm start` runs it on
 * 127.0.0.1, readiness, the RSS of a process tree, percentiles, and stopping every child process on exit.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import os from "node:os";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { chromium, type Browser } from "@playwright/test";
import { launchDemo, type LaunchedDemo } from "@allocation-lens/demo-cluster";
import { waitForHttp } from "@allocation-lens/test-support/wait";
import { SERVING_ENV, SERVING_NODE_FLAGS } from "@/lib/node-flags";

export { freePort } from "@allocation-lens/test-support/ports";

export const root = path.resolve(import.meta.dirname, "..");
export const nextBin = path.join(root, "node_modules/next/dist/bin/next");
export const hasBuild = () => fs.existsSync(path.join(root, ".next", "BUILD_ID"));

const children = new Set<ChildProcess>();
const runDirs = new Set<string>();
process.on("exit", () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of runDirs) fs.rmSync(d, { recursive: true, force: true });
});
// Node's default action for these signals skips "exit" handlers: a bench stopped with SIGTERM (or Ctrl-C) would leave
// its demo and dashboard running. They are stopped as at the end of a run, then this process exits.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stopAll().finally(() => process.exit(signal === "SIGINT" ? 130 : 143)));

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * The command line's options (`parseArgs`, strict): with --help, prints `usage` and exits 0 before anything starts; with
 * an unknown or malformed option, prints the problem and `usage` and exits 2.
 */
export function parseCommandLine<const O extends Options & { help: { type: "boolean" } }>(options: O, usage: string): ReturnType<typeof parseArgs<{ options: O }>>["values"] {
  let values: ReturnType<typeof parseArgs<{ options: O }>>["values"];
  try {
    values = parseArgs({ options }).values;
  } catch (e) {
    console.error(`${(e as Error).message}\n${usage}`);
    process.exit(2);
  }
  if ((values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return values;
}

/** Builds the dashboard (next build) when there is no build yet. */
export function buildIfMissing(log: (m: string) => void): void {
  if (hasBuild()) return;
  log("building the dashboard (next build)...");
  const b = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (b.status !== 0) throw new Error("next build failed");
}

/**
 * The demo cluster in its own process; `args` as for `npm run demo-cluster`. Stopped by stopAll() or at exit. `timeoutMs`:
 * how long its JSON line may take (default 60 s; a real allocator at thousands of nodes takes minutes to list its jobs).
 */
export async function startDemo(args: string[], timeoutMs?: number): Promise<LaunchedDemo> {
  const demo = await launchDemo(args, { root, timeoutMs, onLine: (line) => process.stdout.write(`[demo] ${line}\n`) });
  children.add(demo.child);
  return demo;
}

export interface Dashboard {
  child: ChildProcess;
  pid: number;
  port: number;
  base: string;
  /** stdout and stderr so far (when started with `capture`; the first 8 MiB) */
  output(): string;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * The built dashboard as `npm start` runs it (scripts/start.mjs: the server entry with its inbound limits, in front of
 * Next.js) on 127.0.0.1:`port` with ALLOCATION_LENS_CONFIG=`config`. Without `capture`, stdout is
 * dropped and stderr inherited (the bench); with it, both are kept for output().
 */
export function startDashboard(opts: { config: string; port: number; nodeArgs?: string[]; env?: Record<string, string>; capture?: boolean }): Dashboard {
  // with the flags `npm start` gives (package.json), then the caller's
  const child = spawn(process.execPath, [...SERVING_NODE_FLAGS, ...(opts.nodeArgs ?? []), path.join(root, "scripts/start.mjs")], {
    cwd: root,
    stdio: ["ignore", opts.capture ? "pipe" : "ignore", opts.capture ? "pipe" : "inherit"],
    env: { ...process.env, ...SERVING_ENV, ALLOCATION_LENS_CONFIG: opts.config, NEXT_TELEMETRY_DISABLED: "1", HOST: "127.0.0.1", PORT: String(opts.port), ...(opts.env ?? {}) },
  });
  children.add(child);
  const chunks: Buffer[] = [];
  let kept = 0;
  const keep = (c: Buffer) => {
    if (kept < 8 * 2 ** 20) chunks.push(c);
    kept += c.length;
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    pid: child.pid!,
    port: opts.port,
    base: `http://127.0.0.1:${opts.port}`,
    output: () => Buffer.concat(chunks).toString("utf8"),
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const t = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(t);
      }
      children.delete(child);
    },
  };
}

/** Waits for /api/readyz 200 (every cluster polled once); throws when the server exits or `timeoutMs` passes. */
export async function waitReady(d: Pick<Dashboard, "base" | "child">, timeoutMs = 120_000, headers: Record<string, string> = {}): Promise<void> {
  await waitForHttp(`${d.base}/api/readyz`, { timeoutMs, intervalMs: 500, headers, child: d.child, what: "the dashboard" });
}

/**
 * A temporary folder for this run (`prefix` and random characters, under the system's temporary folder), removed when
 * this process exits, also when a signal stops it before the run's own cleanup.
 */
export function runDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  runDirs.add(dir);
  return dir;
}

/** A process this run started by itself (Prometheus): stopped by stopAll() and at exit, as the dashboards are. */
export function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  return child;
}

/** Stops every child process started here (dashboards, demo), SIGTERM then SIGKILL after 5 s. */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...children].map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const done = new Promise((r) => c.once("exit", r));
      c.kill("SIGTERM");
      const t = setTimeout(() => c.kill("SIGKILL"), 5_000);
      await done;
      clearTimeout(t);
    }),
  );
  children.clear();
}

export { cpuOfThreads, cpuOfTree, processTree, rssOfTree, runQueueWaitMs } from "./proc.mts";

/** Headless Chromium as the benches time pages in it (/usr/bin/chromium, or CHROMIUM_PATH). */
export async function launchChromium(): Promise<Browser> {
  const launch = (extra: string[]) =>
    chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic", ...extra],
    });
  // Headless Chromium (156 here) starts a renderer for its address bar's pop-up (chrome://omnibox-popup.top-chrome) with
  // every new window, which each fresh load here is: about 1 s of CPU per load on 2 cores, beside the page measured, for
  // a pop-up a user's browser keeps once per window. Its features are turned off with Playwright's own (Chromium keeps
  // the last --disable-features only, so the list Playwright passed is read from a first browser and extended; the
  // browser tells its command line only under --enable-automation).
  const first = await launch(["--enable-automation"]);
  const cdp = await first.newBrowserCDPSession();
  const { arguments: argv } = (await cdp.send("Browser.getBrowserCommandLine")) as { arguments: string[] };
  await first.close();
  const disabled = argv.findLast((a) => a.startsWith("--disable-features="))?.slice("--disable-features=".length).split(",").filter(Boolean) ?? [];
  return launch([`--disable-features=${[...disabled, ...OMNIBOX_POPUP_FEATURES].join(",")}`]);
}

/** Chromium's features for its address bar's pop-up (the WebUI one, and the AI mode's). */
const OMNIBOX_POPUP_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup"];

/**
 * Chromium's own first navigation (its network service, its connection and cache machinery, fonts and first renderer
 * coming up) is not the dashboard's: one page of static HTML from a loopback server of its own goes first, unmeasured.
 */
export async function warmChromium(browser: Browser): Promise<void> {
  const html = "<!doctype html><title>warm-up</title><link rel=stylesheet href=/s.css><p style='font:14px system-ui'>warm-up</p>";
  const server = http.createServer((req, res) => {
    res.writeHead(200, { "Content-Type": req.url === "/s.css" ? "text/css" : "text/html", Connection: "close" });
    res.end(req.url === "/s.css" ? "p{color:#333}" : html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const warm = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await warm.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await warm.close();
  } finally {
    server.close();
  }
}

export interface FirstPaint {
  /** from the navigation's start to the first frame that shows `selector` (ms) */
  painted: number;
  /** to the response's commit, and to the load event (ms) */
  committed: number;
  loaded: number;
  /** when the page asked for and received the answer whose URL contains `api` (ms; NaN without `api`) */
  apiAsked: number;
  apiAnswered: number;
  /**
   * The page's own Navigation Timing, from the navigation's start (ms): the response's first byte, of which the time
   * from the request's start (the server's work and loopback: `server`), and the document parsed (domInteractive).
   * What is left from the first byte to `painted` is the browser's.
   */
  firstByte: number;
  server: number;
  parsed: number;
}

/**
 * A fresh page at `url` in its own tab: the time from the navigation's start to the first frame that has `selector`,
 * checked every frame in the page (an init script: no polling from here). The script is a string: a function from a
 * tsx script would be compiled with helpers the page does not have.
 */
export async function timeFirstPaint(browser: Browser, url: string, selector: string, opts: { api?: string; width?: number } = {}): Promise<FirstPaint> {
  const page = await browser.newPage({ viewport: { width: opts.width ?? 1280, height: 800 } });
  try {
    await page.addInitScript(`(() => {
      const check = () => {
        if (document.querySelector(${JSON.stringify(selector)})) window.__firstPaintMs = performance.now();
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    })();`);
    let apiAsked = NaN;
    let apiAnswered = NaN;
    const t0 = performance.now();
    if (opts.api) {
      const api = opts.api;
      page.on("request", (r) => {
        if (r.url().includes(api) && Number.isNaN(apiAsked)) apiAsked = performance.now() - t0;
      });
      page.on("response", (r) => {
        if (r.url().includes(api) && Number.isNaN(apiAnswered)) apiAnswered = performance.now() - t0;
      });
    }
    await page.goto(url, { waitUntil: "commit" });
    const committed = performance.now() - t0;
    await page.waitForLoadState("load");
    const loaded = performance.now() - t0;
    await page.waitForFunction(() => (window as unknown as { __firstPaintMs?: number }).__firstPaintMs !== undefined, undefined, { timeout: 30_000 }).catch(async (e) => {
      const seen = await page.evaluate((s) => [document.querySelectorAll(s).length, document.visibilityState], selector);
      throw new Error(`${url}: no frame showed ${selector}: ${(e as Error).message} (${JSON.stringify(seen)})`);
    });
    const { painted, firstByte, server, parsed } = await page.evaluate(() => {
      const n = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
      return {
        painted: (window as unknown as { __firstPaintMs: number }).__firstPaintMs,
        firstByte: n ? n.responseStart : NaN,
        server: n ? n.responseStart - n.requestStart : NaN,
        parsed: n ? n.domInteractive : NaN,
      };
    });
    return { painted, committed, loaded, apiAsked, apiAnswered, firstByte, server, parsed };
  } finally {
    await page.close();
  }
}

/** The p-th percentile (nearest rank) of `xs`; NaN when empty. */
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN;
};
