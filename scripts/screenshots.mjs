#!/usr/bin/env node
// `npm run screenshots`: the README's pictures, taken from the dashboard on the embedded demo cluster.
//
// Starts `npm start`'s launcher (scripts/start.mjs, with the Node flags of package.json's start script: it builds the
// app first when there is no build) on the embedded demo with the fork's earlier collector tracking (`--tracking legacy`,
// where a not-Ready agent keeps its node's targets), waits until it has polled, makes one per-node agent not Ready
// through the demo routes, waits until the overview counts its targets as ghosts, and writes the overview, the node map
// and the lost targets at 1280x800 in the light and the dark theme into docs/images/. Then it stops the dashboard (which
// stops its demo) and the browser.
//
// Environment: PORT (default 3301; refused when something already answers there), CHROMIUM_PATH (default
// /usr/bin/chromium), ALLOCATION_LENS_DEMO_ARGS (the demo's options; default below), OUT (default docs/images).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const port = process.env.PORT || "3301";
const base = `http://127.0.0.1:${port}`;
const out = path.resolve(root, process.env.OUT || path.join("docs", "images"));
const demoArgs = process.env.ALLOCATION_LENS_DEMO_ARGS || "--tracking legacy --nodes 24 --poll-interval 2 --seed 1";
const VIEWPORT = { width: 1280, height: 800 };
const PAGES = [
  { name: "overview", path: "/", heading: null },
  { name: "nodes", path: "/nodes", heading: "Nodes" },
  { name: "lost", path: "/lost", heading: "Unassigned and lost" },
];
const THEMES = ["light", "dark"];

const log = (line) => console.log(`screenshots: ${line}`);

/** Polls `check` every `intervalMs` until it returns something truthy; throws naming `what` after `timeoutMs`. */
async function until(what, check, { timeoutMs, intervalMs = 250, child } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`the dashboard exited (${child.exitCode}) while waiting for ${what}`);
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (${last.message})` : ""}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

async function getJson(p) {
  const r = await fetch(base + p, { headers: { accept: "application/json" } });
  if (!r.ok) throw new Error(`GET ${p}: ${r.status}`);
  return r.json();
}

async function answers(p) {
  try {
    return (await fetch(base + p)).status > 0;
  } catch {
    return false;
  }
}

// the Node flags `npm start` runs the launcher with (package.json), so the pictures come from the same process setup
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const nodeFlags = pkg.scripts.start.split(/\s+/).filter((a) => a.startsWith("--"));

if (await answers("/api/healthz")) {
  console.error(`screenshots: something already answers on ${base}: set PORT to a free port`);
  process.exit(2);
}

const env = { ...process.env, PORT: port, HOST: "127.0.0.1", NEXT_TELEMETRY_DISABLED: "1", ALLOCATION_LENS_DEMO_ARGS: demoArgs };
for (const k of ["ALLOCATION_LENS_CONFIG", "ALLOCATION_LENS_KUBECONFIG", "ALLOCATION_LENS_CONTEXT", "ALLOCATION_LENS_DISCOVER"]) delete env[k];
const hasBuild = fs.existsSync(path.join(root, env.ALLOCATION_LENS_DIST_DIR || ".next", "BUILD_ID"));
log(`starting the dashboard on ${base} (demo: ${demoArgs})${hasBuild ? "" : "; no build yet: building first"}`);
// its own process group, so that whatever it starts can be stopped with it
const server = spawn(process.execPath, [...nodeFlags, path.join(root, "scripts", "start.mjs")], { cwd: root, env, stdio: ["ignore", "inherit", "inherit"], detached: true });
const exited = new Promise((resolve) => server.once("exit", resolve));

let browser;
async function stop() {
  if (browser) await browser.close().catch(() => {});
  if (server.exitCode !== null || server.signalCode !== null) return;
  server.kill("SIGTERM"); // the dashboard stops its pollers and the demo, and waits for the demo to close
  const stopped = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 20_000).unref())]);
  if (!stopped) {
    log("the dashboard did not stop within 20 s of SIGTERM: killing its process group");
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {
      /* already gone */
    }
    await exited;
  }
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    void stop().then(() => process.exit(130));
  });
}

try {
  await until("the dashboard's first poll (/api/readyz 200)", async () => (await fetch(`${base}/api/readyz`)).status === 200, {
    timeoutMs: hasBuild ? 180_000 : 900_000,
    intervalMs: 500,
    child: server,
  });
  const clusters = await getJson("/api/v1/clusters");
  if (!clusters.demo) throw new Error("the dashboard is not in demo mode");

  // one per-node agent stops being Ready: with legacy tracking its TA keeps the node's targets on it
  const nodes = await getJson("/api/v1/nodes");
  const all = nodes.zones.flatMap((z) => z.nodes);
  const candidates = all.filter((n) => n.state === "healthy" && n.collectors.some((c) => c.role === "per-node" && c.eligible) && n.targets.local > 0);
  if (!candidates.length) throw new Error("no healthy node with a per-node agent and local targets");
  const chosen = candidates[Math.min(2, candidates.length - 1)];
  const node = chosen.name;
  const collector = chosen.collectors.find((c) => c.role === "per-node" && c.eligible).id;
  const r = await fetch(`${base}/api/v1/demo/faults`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ fault: "collector-not-ready", node }),
  });
  if (!r.ok) throw new Error(`POST /api/v1/demo/faults: ${r.status} ${await r.text()}`);
  log(`collector-not-ready on ${node} (its per-node agent ${collector})`);
  const ghosts = await until(
    "the overview to count ghosts",
    async () => {
      const s = await getJson("/api/v1/summary");
      return s.roles["per-node"]?.classes.ghost > 0 ? s.roles["per-node"].classes.ghost : 0;
    },
    { timeoutMs: 60_000, intervalMs: 500, child: server },
  );
  log(`${ghosts} ghost targets`);

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
  fs.mkdirSync(out, { recursive: true });
  for (const theme of THEMES) {
    // the system preference: the page follows it when no theme is stored or asked for in the URL
    const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: theme, reducedMotion: "reduce" });
    const page = await context.newPage();
    const errors = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(e.message));
    for (const p of PAGES) {
      await page.goto(base + p.path, { waitUntil: "load" });
      await page.locator(`html[data-theme="${theme}"]`).waitFor({ timeout: 10_000 });
      if (p.heading) await page.getByRole("heading", { level: 1, name: p.heading }).waitFor({ timeout: 30_000 });
      await page.getByText(/updated \d+ s ago/).first().waitFor({ timeout: 30_000 });
      await until("the page's data (nothing aria-busy)", async () => (await page.locator("[aria-busy=true]").count()) === 0, { timeoutMs: 30_000, intervalMs: 100 });
      if (p.name === "overview") await until("the ghosts on the overview", async () => Number((await page.getByTestId("per-node-ghosts").innerText()).replace(/\D/g, "")) > 0, { timeoutMs: 30_000, intervalMs: 100 });
      if (p.name === "lost") {
        // open the not-Ready collector's group: its ghost targets, listed
        await page.locator("button[aria-expanded]", { hasText: collector }).first().click();
        await page.getByRole("table", { name: `Ghost targets of ${collector}` }).getByRole("row").nth(1).waitFor({ timeout: 30_000 });
      }
      await page.evaluate(() => document.fonts.ready);
      const file = path.join(out, `${p.name}-${theme}.png`);
      await page.screenshot({ path: file, animations: "disabled" });
      log(`${path.relative(root, file)} (${Math.round(fs.statSync(file).size / 1024)} kB)`);
    }
    if (errors.length) log(`console errors in the ${theme} theme: ${errors.join(" | ")}`);
    await context.close();
  }
} catch (e) {
  console.error(`screenshots: ${e.message}`);
  process.exitCode = 1;
} finally {
  await stop();
}
