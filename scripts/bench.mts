/**
 * `npm run bench`: how Allocation Lens grows with the size of the cluster, on this machine, judged against its targets.
 *
 * For each scale (default 1,000, 2,500 and 5,000 nodes, smallest first), one after another:
 *  1. the demo cluster at that size (its own process, as a real TA would be);
 *  2. the yardstick, before any dashboard runs: this process fetches every job answer of one poll once, over the same TLS
 *     and HTTP as the dashboard, into a file; a child process (scripts/json-parse-yardstick.mts) times a plain JSON.parse
 *     of those bytes, best of 3, while nothing else of ours runs, with the dashboard's garbage collection setting (each
 *     thread collects its own garbage: GC_THREADING_FLAG), so that both sides count their collections in their thread's CPU;
 *  3. the built dashboard against it (its own process); after its first poll, a rolling update of the per-node agents for
 *     churn, then N polls: wall, CPU and bytes from the dashboard's own /metrics (allocation_lens_poll_*; the CPU is
 *     whatever that metric measures, its HELP text is printed), the API sampled every 200 ms, the serving thread's event-
 *     loop lag (prom-client, once a second), RSS of the dashboard's process tree after the polls;
 *  4. at the largest scale only: 10 fresh node map loads in Chromium, every other one timed to start 300 ms after a poll
 *     starts, hover feedback, the targets page's first rows, and the soak when asked.
 * Then a table per scale (poll CPU, wall, RSS and CPU per target), the targets with pass or fail, and one JSON line.
 *
 * With `--ta real` the demo runs upstream's real otel-allocator (`--flavor upstream --ta real`, scripts/bench-real.mts)
 * at 1,000 and 5,000 nodes by default, with the consistent-hashing fallback where its ring can hold the collectors (up
 * to 1,061) and without above. Each scale then also waits for the allocator's answers to settle, checks the dashboard's
 * counts against them, and measures the allocator itself: how long it took to list every job, the time to serve one
 * poll's answers, its CPU and RSS, and its /debug/targets page; a table of those follows the others.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import type { Browser } from "@playwright/test";
import { loadConfigFile } from "@/server/config";
import { TaHttp } from "@/server/ta/http";
import { escapeJobId } from "@/lib/routing";
import { ROLES } from "@/lib/model";
import { GC_THREADING_FLAG } from "@/lib/node-flags";
import { RING_PARTITIONS } from "@/lib/analysis/ring";
import type { RealTaStartup } from "@allocation-lens/demo-cluster";
import { buildIfMissing, freePort, launchChromium, parseCommandLine, pct, root, rssOfTree, runDir, startDashboard, startDemo, stopAll, waitReady, warmChromium } from "./harness.mts";
import { benchFleet, printFleet } from "./bench-fleet.mts";
import { benchClusters, printClusters } from "./bench-clusters.mts";
import { allocatorPid, checkCounts, crashesInLog, debugTargetsInChromium, fetchDebugTargets, servePoll, settle, usage, type CountCheck, type DebugTargets, type ServedPoll } from "./bench-real.mts";

const USAGE = `usage: npm run bench -- [options]
  --scales N,N,...        cluster sizes in nodes, each run in turn (default 1000,2500,5000); targets are judged at the largest
  --nodes N               one scale only (the same as --scales N)
  --polls N               polls measured at the largest scale (default 10; the smaller scales measure at most 8)
  --interval S            the dashboard's poll interval in seconds (default 10)
  --profile DIR           write a V8 CPU profile of the dashboard process to DIR (chrome://inspect, speedscope)
  --server-node-args="…"  extra Node/V8 flags for the dashboard process only (with "=": the value starts with a dash), e.g.
                          --server-node-args="--max-semi-space-size=64"; V8's flags hold for every thread of the process,
                          but Node refuses them as a worker's own: the poll worker is started without repeating them
  --keep-answers DIR      keep the yardstick's answers (answers.bin, answers.json) in DIR, for
                          scripts/bench-scan.mts --answers DIR (the scanner against JSON.parse on those very bytes)
  --fallback F            the per-node TA's fallback: none (default: a real allocator cannot build the
                          consistent-hashing fallback's ring over more than 1,061 collectors) or consistent-hashing
                          (only with scales of at most 1,061 nodes)
  --ta real               upstream's real otel-allocator under the demo (--flavor upstream) in place of the simulated
                          TA; default scales 1000,5000, with the consistent-hashing fallback at the scales of at most
                          1,061 nodes and none above (unless --fallback says); the allocator's answers settle before
                          the dashboard's counts are checked against them, and its own figures are printed beside ours
  --soak S                at the largest scale, then keep polling for S seconds with churn every 90 s (rollouts, a
                          crash-looping collector, nodes added, faults healed), RSS sampled every 30 s
  --fleet N               instead of the scales: the fleet view at N clusters (default 100) on Debian's Prometheus, their
                          allocation_lens_* series from a real dashboard's, 24 h backfilled with promtool: the fleet
                          answer and the fleet page's first paint (scripts/bench-fleet.mts); --screenshots DIR keeps
                          pictures of the fleet page at that size
  --clusters N            instead of the scales: N demo clusters of --nodes nodes each (default 20 of 250) polled by one
                          dashboard replica, then by two sharing them by their Leases, against one cluster of N x nodes
                          in the same run: CPU per target, RSS, API p95, the overview's and the fleet page's first
                          paint, the TAs' requests per poll interval (scripts/bench-clusters.mts); --polls: polls of
                          each cluster measured (default 8; the one large cluster twice as many); --hold: after the figures, keep the demos, Prometheus and
                          both replicas running (their addresses printed) until Ctrl-C, to look at them by hand
  --help                  this text
Needs a build (npm run build; built when missing) and Chromium (/usr/bin/chromium or CHROMIUM_PATH).`;

/** The targets the largest scale is judged against. */
const TARGETS = {
  cpuOverParse: 1.0,
  rssMiB: 400,
  lagWorstMs: 50,
  apiP95Ms: 20,
  nodeMapWorstMs: 1000,
  targetsFirstRowsMs: 500,
  /** CPU per target: largest over smallest across the scales, minus one */
  costSpread: 0.2,
};
/**
 * Polls measured at the smaller scales. The rollout that starts each scale's churn weighs on its first two or three
 * polls: with 4, they were most of a smaller scale's median (at 2,500 nodes 1,066, 989, 852 then 642 ms) against one
 * in ten at the largest, and CPU per target compared a churning cluster with a calm one. With 8, as at the largest,
 * most of the median is calm.
 */
const SMALL_SCALE_POLLS = 8;
const NODE_MAP_LOADS = 10;

const values = parseCommandLine(
  {
    scales: { type: "string" },
    nodes: { type: "string" },
    polls: { type: "string" },
    interval: { type: "string" },
    profile: { type: "string" },
    "server-node-args": { type: "string" },
    soak: { type: "string" },
    "keep-answers": { type: "string" },
    fallback: { type: "string" },
    ta: { type: "string" },
    fleet: { type: "string" },
    clusters: { type: "string" },
    screenshots: { type: "string" },
    hold: { type: "boolean" },
    help: { type: "boolean" },
  },
  USAGE,
);
function usageError(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}
if (values.fleet !== undefined) {
  const n = Number(values.fleet || 100);
  if (!Number.isInteger(n) || n < 4 || n > 2000) {
    console.error(`--fleet: a number of clusters from 4 to 2000, got "${values.fleet}"\n${USAGE}`);
    process.exit(2);
  }
  const r = await benchFleet(n, values.screenshots);
  printFleet(r);
  process.exit(Object.values(r.pass).every(Boolean) ? 0 : 1);
}
if (values.clusters !== undefined) {
  const clusters = Number(values.clusters || 20);
  const nodes = Number(values.nodes ?? 250);
  const polls = Number(values.polls ?? 8);
  const interval = Number(values.interval ?? 10);
  if (!Number.isInteger(clusters) || clusters < 2 || clusters > 100) usageError(`--clusters: a number of clusters from 2 to 100, got "${values.clusters}"`);
  if (!Number.isInteger(nodes) || nodes < 1 || clusters * nodes > 5000) usageError(`--nodes: nodes per cluster, at most 5,000 in all (the one cluster as large as all of them), got "${values.nodes}"`);
  if (!Number.isInteger(polls) || polls < 2 || polls > 100) usageError(`--polls: from 2 to 100, got "${values.polls}"`);
  if (!Number.isFinite(interval) || interval < 2 || interval > 120) usageError(`--interval: seconds from 2 to 120, got "${values.interval}"`);
  const r = await benchClusters({ clusters, nodes, pollsPerCluster: polls, intervalS: interval, profile: values.profile, hold: values.hold ? (r) => printClusters(r) : undefined });
  if (!values.hold) printClusters(r);
  process.exit(r.pass ? 0 : 1);
}
if (values.ta !== undefined && values.ta !== "real" && values.ta !== "simulated") {
  console.error(`--ta must be real or simulated, got "${values.ta}"\n${USAGE}`);
  process.exit(2);
}
/** upstream's real otel-allocator in place of the simulated TA */
const REAL = values.ta === "real";
const SCALES = (values.scales ?? values.nodes ?? (REAL ? "1000,5000" : "1000,2500,5000")).split(",").map((s) => Number(s.trim())).sort((a, b) => a - b);
if (SCALES.some((n) => !Number.isInteger(n) || n < 1 || n > 5000)) {
  console.error(`--scales: integers from 1 to 5000, got "${values.scales ?? values.nodes}"\n${USAGE}`);
  process.exit(2);
}
/**
 * The per-node TA's strategy in every scale: per-node without fallback unless asked. With the consistent-hashing fallback
 * the TA builds a ring over every collector, and a real allocator's ring holds at most 1,061 (it crash-loops above:
 * docs/target-allocator.md, "The ring's limit"), as the demo's simulated TA now does too.
 */
const FALLBACK = values.fallback ?? "none";
if (FALLBACK !== "none" && FALLBACK !== "consistent-hashing") usageError(`--fallback must be none or consistent-hashing, got "${FALLBACK}"`);
if (FALLBACK === "consistent-hashing" && SCALES.some((n) => n > RING_PARTITIONS)) {
  usageError(`--fallback consistent-hashing needs every scale at most ${RING_PARTITIONS} nodes: a consistent-hashing ring holds at most ${RING_PARTITIONS} collectors (got ${SCALES.join(",")})`);
}
type Fallback = "none" | "consistent-hashing";
/** On the real allocator without --fallback: the fallback wherever its ring holds the collectors, none above. */
const fallbackAt = (nodes: number): Fallback => (REAL && values.fallback === undefined ? (nodes <= RING_PARTITIONS ? "consistent-hashing" : "none") : (FALLBACK as Fallback));
const strategyLabel = (fallback: Fallback) => (fallback === "none" ? "per-node without fallback" : "per-node with the consistent-hashing fallback (at most 1,061 collectors)");
const STRATEGY_LABEL = strategyLabel(FALLBACK as Fallback);

const POLLS = Number(values.polls ?? 10);
const INTERVAL = Number(values.interval ?? 10);
const SOAK_S = Number(values.soak ?? 0);
const dir = runDir("allocation-lens-bench-");
const started = Date.now();
const log = (m: string) => console.error(`[bench ${((Date.now() - started) / 1000).toFixed(0)} s] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sleepUntil = (epochMs: number) => sleep(Math.max(0, epochMs - Date.now()));

interface Metrics {
  values: Map<string, number>;
  help: Map<string, string>;
}

async function metrics(base: string): Promise<Metrics> {
  const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const out: Metrics = { values: new Map(), help: new Map() };
  for (const f of parsePrometheusTextFormat(text) as { name: string; help?: string; metrics: { value?: string; labels?: Record<string, string> }[] }[]) {
    if (f.help) out.help.set(f.name, f.help);
    for (const m of f.metrics) {
      const key = `${f.name}${m.labels?.role ? `{${m.labels.role}}` : ""}`;
      out.values.set(key, (out.values.get(key) ?? 0) + Number(m.value ?? NaN));
    }
  }
  return out;
}

interface Poll {
  /** when it finished (epoch ms) */
  endMs: number;
  wallMs: number;
  cpuMs: number;
  bytes: number;
}

/**
 * Scrapes the dashboard's /metrics once a second: each poll as it ends, and the serving thread's worst event-loop lag of
 * each second (prom-client's nodejs_eventloop_lag_max_seconds, reset at each scrape).
 */
function recorder(base: string) {
  const polls: Poll[] = [];
  const lag: { atMs: number; ms: number }[] = [];
  let lastAt = 0;
  let cpuHelp = "";
  let running = true;
  const done = (async () => {
    while (running) {
      const m = await metrics(base).catch(() => null);
      if (m) {
        cpuHelp ||= m.help.get("allocation_lens_poll_cpu_seconds") ?? "";
        const l = m.values.get("nodejs_eventloop_lag_max_seconds");
        if (l !== undefined && Number.isFinite(l)) lag.push({ atMs: Date.now(), ms: l * 1000 });
        const at = m.values.get("allocation_lens_last_poll_timestamp_seconds") ?? 0;
        if (at > lastAt) {
          if (lastAt > 0) {
            const v = (k: string) => m.values.get(k) ?? NaN;
            polls.push({ endMs: at * 1000, wallMs: v("allocation_lens_poll_duration_seconds") * 1000, cpuMs: v("allocation_lens_poll_cpu_seconds") * 1000, bytes: v("allocation_lens_poll_bytes") });
          }
          lastAt = at;
        }
      }
      await sleep(1000);
    }
  })();
  return {
    polls,
    lag,
    cpuHelp: () => cpuHelp,
    /** resolves when `n` polls have ended since the recorder started (the one before it not counted) */
    async waitPolls(n: number, timeoutMs = 30 * 60_000) {
      const t0 = Date.now();
      while (polls.length < n) {
        if (Date.now() - t0 > timeoutMs) throw new Error(`no poll ended within ${timeoutMs / 1000} s`);
        await sleep(250);
      }
    },
    async stop() {
      running = false;
      await done;
    },
  };
}
type Recorder = ReturnType<typeof recorder>;

interface Yardstick {
  answers: number;
  bytes: number;
  perThread: boolean;
  threadMs: number[];
  processMs: number[];
}

/**
 * Fetches every job answer of one poll once (GET /jobs, then each job's targets, per TA, over the dashboard's own TA
 * client) into a file, then times JSON.parse of those bytes in a child process. Called while no dashboard runs.
 */
async function yardstick(config: string, where: string): Promise<Yardstick> {
  const cluster = loadConfigFile(config).clusters[0];
  const file = path.join(where, "answers.bin");
  const lengthsFile = path.join(where, "answers.json");
  const lengths: number[] = [];
  const fd = fs.openSync(file, "w");
  try {
    for (const role of ROLES) {
      const ta = cluster.targetAllocators[role];
      if (!ta) continue;
      const http = new TaHttp(`bench/${role}`, ta);
      try {
        const list = (await http.get("/jobs")).body;
        fs.writeSync(fd, list);
        lengths.push(list.length);
        for (const job of Object.keys(JSON.parse(list.toString("utf8")))) {
          const body = (await http.get(`/jobs/${escapeJobId(job)}/targets`)).body;
          fs.writeSync(fd, body);
          lengths.push(body.length);
        }
      } finally {
        http.close();
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  fs.writeFileSync(lengthsFile, JSON.stringify(lengths));
  // collected as the dashboard collects (GC_THREADING_FLAG): each side's garbage on its own thread, counted in its CPU
  const child = spawn(process.execPath, [GC_THREADING_FLAG, "--expose-gc", "--import", "tsx", path.join(root, "scripts/json-parse-yardstick.mts"), file, lengthsFile, "3"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (values["keep-answers"]) {
    fs.mkdirSync(values["keep-answers"], { recursive: true });
    fs.copyFileSync(file, path.join(values["keep-answers"], "answers.bin"));
    fs.copyFileSync(lengthsFile, path.join(values["keep-answers"], "answers.json"));
  }
  fs.rmSync(file, { force: true });
  if (code !== 0) throw new Error(`the JSON.parse yardstick exited with ${code}`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as Yardstick;
}

interface Browsing {
  /** each node map load: its first paint, and whether it overlapped a poll */
  loads: { ms: number; duringPoll: boolean }[];
  feedbackMs: number;
  targetsFirstRowsMs: number;
}

/**
 * Fresh node map loads, two per poll period: one between polls, one 300 ms after the next poll starts. When that is, is
 * taken from the polls seen so far (start = end - wall; the period between two starts), not from how the poller schedules.
 * Each load is then marked by whether it overlapped a poll. Then hover feedback and the targets page.
 */
async function browse(browser: Browser, base: string, rec: Recorder): Promise<Browsing> {
  await warmChromium(browser);
  const loads: { ms: number; startMs: number; endMs: number }[] = [];
  const load = async (atMs: number) => {
    const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await sleepUntil(atMs);
    const startMs = Date.now();
    const t0 = performance.now();
    await p.goto(`${base}/nodes`);
    await p.locator("[data-node]").first().waitFor({ state: "visible", timeout: 60_000 });
    loads.push({ ms: performance.now() - t0, startMs, endMs: Date.now() });
    await p.close();
  };
  const startOf = (p: Poll) => p.endMs - p.wallMs;
  // right after a poll ends
  await rec.waitPolls(Math.max(2, rec.polls.length + 1));
  while (loads.length < NODE_MAP_LOADS) {
    const [before, last] = rec.polls.slice(-2);
    const period = Math.max(1000, startOf(last) - startOf(before));
    const nextStart = startOf(last) + period;
    const seen = rec.polls.length;
    await load(last.endMs + Math.max(0, nextStart - last.endMs) / 4);
    if (loads.length < NODE_MAP_LOADS) await load(nextStart + 300);
    // the poll it landed on has ended (to tell whether it did): the next pair follows it
    await rec.waitPolls(seen + 1, 120_000).catch(() => {});
  }
  const overlaps = (l: { startMs: number; endMs: number }) => rec.polls.some((p) => startOf(p) < l.endMs && p.endMs > l.startMs);

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${base}/nodes`);
  await page.locator("[data-node]").first().waitFor({ state: "visible", timeout: 60_000 });
  // Feedback: time from a pointer move onto a tile to the next painted frame showing its tooltip or focus.
  const feedbackMs = await page.evaluate(async () => {
    const tiles = [...document.querySelectorAll<HTMLElement>("[data-node]")];
    const target = tiles[Math.floor(tiles.length / 2)];
    const r = target.getBoundingClientRect();
    const t0 = performance.now();
    target.dispatchEvent(new PointerEvent("pointerover", { bubbles: true, clientX: r.x + 2, clientY: r.y + 2 }));
    target.dispatchEvent(new MouseEvent("mouseover", { bubbles: true, clientX: r.x + 2, clientY: r.y + 2 }));
    target.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: r.x + 2, clientY: r.y + 2 }));
    await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
    return performance.now() - t0;
  });
  const t = performance.now();
  await page.goto(`${base}/targets`);
  await page.locator("[role=row][aria-rowindex]:not([aria-busy]):not([aria-rowindex=\"1\"])").first().waitFor({ state: "visible", timeout: 60_000 });
  const targetsFirstRowsMs = performance.now() - t;
  await page.close();
  return { loads: loads.map((l) => ({ ms: l.ms, duringPoll: overlaps(l) })), feedbackMs, targetsFirstRowsMs };
}

/** One scale: demo, yardstick, dashboard, polls; browser and soak when `largest`. */
async function measureScale(nodes: number, polls: number, largest: boolean) {
  const where = path.join(dir, String(nodes));
  fs.mkdirSync(where, { recursive: true });
  const fallback = fallbackAt(nodes);
  log(`${nodes} nodes: starting the demo cluster${REAL ? ` on upstream's real otel-allocator (${strategyLabel(fallback)}; it takes minutes to list every job at thousands of nodes)` : ""}...`);
  const demoArgs = ["--nodes", String(nodes), "--poll-interval", String(INTERVAL), "--dir", where, "--strategy", "per-node", "--fallback", fallback];
  const demo = await startDemo(REAL ? [...demoArgs, "--flavor", "upstream", "--ta", "real"] : demoArgs, REAL ? 45 * 60_000 : undefined);
  const { info } = demo;
  // the real allocator: how it came up, its process, its plain-HTTP listener (the URL the dashboard polls), its answers settled
  let real: RealScale | null = null;
  const taUrl = info.targetAllocators["per-node"]?.url ?? "";
  const taPid = REAL ? allocatorPid(demo.child.pid!) : undefined;
  if (REAL) {
    const startup = info.realTaStartup?.["per-node"];
    if (!startup) throw new Error("the demo's JSON line has no realTaStartup: not a real allocator?");
    log(`${nodes} nodes: otel-allocator ${info.taVersion} ready in ${ms(startup.readyMs)}, every one of its ${startup.jobs} jobs listed ${ms(startup.jobsListedMs)} later (its CPU ${ms(startup.allocatorCpuMs ?? NaN)}, the demo's ${ms(startup.demoCpuMs)}); pid ${taPid ?? "not found"}`);
    log(`${nodes} nodes: waiting for the allocator's answers to settle (the same over 11 s)...`);
    const calm = await settle(taUrl, log);
    log(`${nodes} nodes: settled after ${ms(calm.ms)} (${calm.reads} reads): ${calm.raw.assigned} targets assigned to ${calm.raw.perCollector.size} collectors, ${calm.raw.unassigned} unassigned, ${calm.raw.jobs.length} jobs, ${(calm.raw.bytes / 1e6).toFixed(0)} MB read in ${ms(calm.raw.ms)}`);
    real = {
      taVersion: info.taVersion ?? "",
      fallback,
      startup,
      settledMs: calm.ms,
      rssAfterStartBytes: usage(taPid).rssBytes,
      served: [],
      debugTargets: null,
      countsCalm: null,
      countsAfterRollout: null,
      countsAfterRolloutError: null,
      crashes: { count: 0, first: null },
      cpuDuringPolls: { cpuMs: NaN, seconds: NaN, polls: 0 },
      rssAfterPollsBytes: NaN,
    };
  }

  log(`${nodes} nodes: the yardstick (one poll's answers, JSON.parse in a child process, no dashboard running)...`);
  const ys = await yardstick(info.dashboardConfig, where);
  log(`${nodes} nodes: JSON.parse of ${(ys.bytes / 1e6).toFixed(0)} MB in ${ys.answers} answers: ${Math.min(...ys.processMs).toFixed(0)} ms CPU (process), ${Math.min(...ys.threadMs).toFixed(0)} ms (its thread)`);

  if (real) {
    // the allocator alone serving one poll's answers, no dashboard running: one at a time, then as the dashboard asks
    const concurrency = loadConfigFile(info.dashboardConfig).clusters[0].targetAllocators["per-node"]?.concurrency ?? 4;
    for (const c of [1, concurrency]) {
      const served = await servePoll(taUrl, c, taPid);
      real.served.push(served);
      log(`${nodes} nodes: the allocator served one poll's ${served.answers} answers (${(served.bytes / 1e6).toFixed(0)} MB) ${c === 1 ? "one at a time" : `${c} at a time`} in ${ms(served.ms)}, its CPU ${ms(served.cpuMs)}`);
    }
    real.debugTargets = await fetchDebugTargets(taUrl, taPid);
    log(`${nodes} nodes: its /debug/targets: ${(real.debugTargets.bytes / 1e6).toFixed(1)} MB, ${real.debugTargets.rows} rows, first byte ${ms(real.debugTargets.ttfbMs)}, last ${ms(real.debugTargets.ms)}, its CPU ${ms(real.debugTargets.cpuMs)}`);
  }

  log(`${nodes} nodes: starting the dashboard...`);
  const nodeArgs = largest && values.profile ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(values.profile)] : [];
  nodeArgs.push(...(values["server-node-args"]?.split(/\s+/).filter(Boolean) ?? []));
  const server = startDashboard({ config: info.dashboardConfig, port: await freePort(), nodeArgs });
  const base = server.base;
  await waitReady(server, 30 * 60_000);
  log(`${nodes} nodes: first poll done`);
  /** resolves when the dashboard has finished a poll that started after `epochMs` */
  const pollStartedAfter = async (epochMs: number) => {
    const t0 = Date.now();
    for (;;) {
      const m = await metrics(base).catch(() => null);
      const end = (m?.values.get("allocation_lens_last_poll_timestamp_seconds") ?? 0) * 1000;
      const wall = (m?.values.get("allocation_lens_poll_duration_seconds") ?? 0) * 1000;
      if (end - wall > epochMs) return;
      if (Date.now() - t0 > 10 * 60_000) throw new Error("no dashboard poll started after the allocator's answers settled, in 10 minutes");
      await sleep(500);
    }
  };
  if (real) {
    log(`${nodes} nodes: the dashboard's counts against the allocator's raw answers, both settled...`);
    real.countsCalm = await checkCounts(taUrl, base, "per-node", pollStartedAfter, log);
    log(`${nodes} nodes: counts ${real.countsCalm.pass ? "equal" : "DIFFER"}: ${countLine(real.countsCalm)}`);
  }
  const rec = recorder(base);

  // Churn during the run: a rollout of the per-node agents.
  const controlHeaders = { Authorization: `Bearer ${info.controlToken}` };
  await fetch(`${info.control}/faults`, { method: "POST", headers: controlHeaders, body: JSON.stringify({ fault: "rollout", role: "per-node" }) });

  const taRequests = async () => [...(await metrics(base)).values].filter(([k]) => k.startsWith("allocation_lens_ta_requests_total")).reduce((s, [, v]) => s + v, 0);
  const requests0 = await taRequests();
  const apiLatencies: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const t = performance.now();
      await fetch(`${base}/api/v1/summary`).then((r) => r.arrayBuffer());
      apiLatencies.push(performance.now() - t);
      await sleep(200);
    }
  })();
  const phaseStart = Date.now();
  const taCpu0 = usage(taPid).cpuMs;
  for (let n = 1; n <= polls; n++) {
    await rec.waitPolls(n);
    const p = rec.polls[n - 1];
    log(`${nodes} nodes: poll ${n}: ${p.wallMs.toFixed(0)} ms wall, ${p.cpuMs.toFixed(0)} ms CPU, ${(p.bytes / 1e6).toFixed(0)} MB`);
  }
  sampling = false;
  await sampler;
  if (real) {
    real.cpuDuringPolls = { cpuMs: usage(taPid).cpuMs - taCpu0, seconds: (Date.now() - phaseStart) / 1000, polls };
    real.rssAfterPollsBytes = usage(taPid).rssBytes;
  }
  const pollsMeasured = rec.polls.slice(0, polls);
  // A poll that read less than half of one poll's answers (a TA timed out during the rollout of 5,000 agents, or was down:
  // a real allocator crash-looping while the rollout's surge holds its ring over the limit) is not a poll of these bytes:
  // counted, but left out of the medians.
  const pollsRead = pollsMeasured.filter((p) => p.bytes >= ys.bytes / 2);
  const lagMs = rec.lag.filter((l) => l.atMs > phaseStart).map((l) => l.ms);
  // the serving thread's three worst seconds, placed against the polls (a second is the window before its sample)
  for (const l of rec.lag.filter((x) => x.atMs > phaseStart).sort((a, b) => b.ms - a.ms).slice(0, 3)) {
    const near = rec.polls.map((q) => ({ sinceStart: l.atMs - (q.endMs - q.wallMs), sinceEnd: l.atMs - q.endMs })).sort((a, b) => Math.abs(a.sinceStart) - Math.abs(b.sinceStart))[0];
    if (near) log(`${nodes} nodes: lag ${l.ms.toFixed(0)} ms in the second before ${(near.sinceStart / 1000).toFixed(1)} s after a poll's start (${(near.sinceEnd / 1000).toFixed(1)} s after its end; at ${new Date(l.atMs).toISOString().slice(11, 23)})`);
  }
  const rss = rssOfTree(server.pid);
  const taRequestsPerPoll = ((await taRequests()) - requests0) / polls;
  const targets = ((await (await fetch(`${base}/api/v1/targets?limit=1`)).json()) as { total: number }).total;

  const api: Record<string, { bytes: number; ms: number }> = {};
  for (const [name, p] of [["summary", "/api/v1/summary"], ["nodes", "/api/v1/nodes"], ["targets", "/api/v1/targets?limit=200"]] as const) {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      bytes = (await (await fetch(`${base}${p}`)).arrayBuffer()).byteLength;
      times.push(performance.now() - t);
    }
    api[name] = { bytes, ms: pct(times, 50) };
  }

  let browsing: Browsing | null = null;
  if (largest) {
    log(`${nodes} nodes: browser timings (${NODE_MAP_LOADS} node map loads, half of them as a poll starts)...`);
    const browser = await launchChromium();
    try {
      browsing = await browse(browser, base, rec);
      if (real?.debugTargets) {
        log(`${nodes} nodes: the allocator's /debug/targets in Chromium...`);
        real.debugTargets.chromiumFirstRowsMs = await debugTargetsInChromium(browser, taUrl);
      }
    } finally {
      await browser.close();
    }
  }
  await rec.stop();
  const soak = largest && SOAK_S > 0 ? await soakRun(base, info.control, controlHeaders, server.pid, loadConfigFile(info.dashboardConfig).history.path) : null;
  if (real) {
    // after the rollout of every agent: once the allocator has settled again (within 10 minutes), the same check
    log(`${nodes} nodes: after the rollout, the counts again once the allocator has settled...`);
    try {
      real.countsAfterRollout = await checkCounts(taUrl, base, "per-node", pollStartedAfter, log, 10 * 60_000);
      log(`${nodes} nodes: counts after the rollout ${real.countsAfterRollout.pass ? "equal" : "DIFFER"}: ${countLine(real.countsAfterRollout)}`);
    } catch (e) {
      real.countsAfterRolloutError = (e as Error).message;
      log(`${nodes} nodes: no check after the rollout: ${real.countsAfterRolloutError}`);
    }
    // a rollout with maxSurge adds collectors for a while: with the fallback's ring, more than 1,061 crash it
    real.crashes = crashesInLog(path.join(where, "real-ta", "per-node", "otel-allocator.log"));
    if (real.crashes.count) log(`${nodes} nodes: the allocator crashed ${real.crashes.count} time(s) during the run (restarted by the demo with the kubelet's back-off): ${real.crashes.first}`);
  }
  await server.stop();
  await demo.stop();

  const cpu = pct(pollsRead.map((p) => p.cpuMs), 50);
  // Like with like: the poll's figure is per thread once its metric says so, the process's until then.
  const cpuIsThread = /thread/i.test(rec.cpuHelp());
  const parseMs = Math.min(...(cpuIsThread ? ys.threadMs : ys.processMs));
  return {
    nodes,
    targets,
    polls: pollsMeasured.length,
    pollsReadingNothing: pollsMeasured.length - pollsRead.length,
    bytesPerPoll: pct(pollsRead.map((p) => p.bytes), 50),
    pollWallMsP50: pct(pollsRead.map((p) => p.wallMs), 50),
    pollCpuMsP50: cpu,
    pollCpuMs: pollsMeasured.map((p) => Math.round(p.cpuMs)),
    pollCpuMetricHelp: rec.cpuHelp(),
    cpuUsPerTarget: (cpu * 1000) / targets,
    yardstick: { bytes: ys.bytes, answers: ys.answers, processMs: Math.min(...ys.processMs), threadMs: Math.min(...ys.threadMs), compared: cpuIsThread ? "thread" : "process" },
    jsonParseMs: parseMs,
    cpuOverParse: cpu / parseMs,
    rssBytesAfterPolls: rss,
    apiP95MsDuringPolls: pct(apiLatencies, 95),
    apiSamples: apiLatencies.length,
    eventLoopLagWorstMs: Math.max(...lagMs),
    eventLoopLagP95Ms: pct(lagMs, 95),
    taRequestsPerPoll,
    api,
    browsing,
    soak,
    ...(real ? { real } : {}),
  };
}
type ScaleResult = Awaited<ReturnType<typeof measureScale>>;

/** What a scale on the real allocator measured of it (`--ta real`). */
interface RealScale {
  taVersion: string;
  fallback: Fallback;
  /** how it came up, from the demo's JSON line */
  startup: RealTaStartup;
  /** from the demo's JSON line to its answers settled */
  settledMs: number;
  rssAfterStartBytes: number;
  /** one poll's answers served to the bench alone: one at a time, then with the dashboard's concurrency */
  served: ServedPoll[];
  debugTargets: DebugTargets | null;
  countsCalm: CountCheck | null;
  countsAfterRollout: CountCheck | null;
  countsAfterRolloutError: string | null;
  /** its CPU while the dashboard's measured polls ran (the rollout's work included) */
  cpuDuringPolls: { cpuMs: number; seconds: number; polls: number };
  /** its panics during the run (the demo restarts it), from its log */
  crashes: { count: number; first: string | null };
  rssAfterPollsBytes: number;
}

function countLine(c: CountCheck): string {
  return `assigned ${c.assigned.dashboard} / ${c.assigned.allocator}, unassigned ${c.unassigned.dashboard} / ${c.unassigned.allocator}, jobs ${c.jobs.dashboard} / ${c.jobs.allocator}, collectors ${c.collectors.dashboard} / ${c.collectors.allocator} with ${c.collectors.differing} differing (dashboard / allocator)${c.collectors.examples.length ? `: ${c.collectors.examples.join("; ")}` : ""}`;
}

const ms = (x: number) => (!Number.isFinite(x) ? "n/a" : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${x.toFixed(0)} ms`);
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

function judge(scales: ScaleResult[]) {
  const top = scales.at(-1)!;
  const costs = scales.map((s) => s.cpuUsPerTarget);
  const spread = scales.length > 1 ? Math.max(...costs) / Math.min(...costs) - 1 : NaN;
  const worstPaint = top.browsing ? Math.max(...top.browsing.loads.map((l) => l.ms)) : NaN;
  const onPoll = top.browsing?.loads.filter((l) => l.duringPoll).length ?? 0;
  const rows = [
    { name: "poll CPU / JSON.parse of the same bytes", value: top.cpuOverParse, shown: `${top.cpuOverParse.toFixed(2)} (${ms(top.pollCpuMsP50)} / ${ms(top.jsonParseMs)})`, limit: TARGETS.cpuOverParse, target: `<= ${TARGETS.cpuOverParse.toFixed(1)}x` },
    { name: `RSS after ${top.polls} polls`, value: top.rssBytesAfterPolls / 2 ** 20, shown: mib(top.rssBytesAfterPolls), limit: TARGETS.rssMiB, target: `<= ${TARGETS.rssMiB} MiB` },
    { name: "event-loop lag, worst second, polling", value: top.eventLoopLagWorstMs, shown: `${ms(top.eventLoopLagWorstMs)} (p95 ${ms(top.eventLoopLagP95Ms)})`, limit: TARGETS.lagWorstMs, target: `<= ${TARGETS.lagWorstMs} ms` },
    { name: "API p95 while polling", value: top.apiP95MsDuringPolls, shown: `${ms(top.apiP95MsDuringPolls)} (${top.apiSamples} samples)`, limit: TARGETS.apiP95Ms, target: `<= ${TARGETS.apiP95Ms} ms` },
    { name: `node map first paint, worst of ${top.browsing?.loads.length ?? 0}`, value: worstPaint, shown: `${ms(worstPaint)} (${onPoll} loads on a poll)`, limit: TARGETS.nodeMapWorstMs, target: `<= ${TARGETS.nodeMapWorstMs} ms` },
    { name: "targets page first rows", value: top.browsing?.targetsFirstRowsMs ?? NaN, shown: ms(top.browsing?.targetsFirstRowsMs ?? NaN), limit: TARGETS.targetsFirstRowsMs, target: `<= ${TARGETS.targetsFirstRowsMs} ms` },
    { name: `CPU per target, ${scales[0].nodes} to ${top.nodes} nodes`, value: spread, shown: Number.isNaN(spread) ? "one scale only" : `${costs.map((c) => c.toFixed(1)).join(" / ")} µs, spread ${(spread * 100).toFixed(0)} %`, limit: TARGETS.costSpread, target: `flat within ${TARGETS.costSpread * 100} %` },
  ];
  if (REAL) {
    // every check made (settled, before and after the rollout), at every scale: the number that found a difference
    const checks = scales.flatMap((s) => [s.real?.countsCalm, s.real?.countsAfterRollout]).filter((c): c is CountCheck => !!c);
    const differ = checks.filter((c) => !c.pass).length;
    rows.push({ name: "counts = the allocator's raw answers", value: checks.length ? differ : NaN, shown: `${checks.length - differ} of ${checks.length} checks equal`, limit: 0, target: "every check equal" });
  }
  // NaN (not measured) is neither a pass nor a fail
  return rows.map((r) => ({ ...r, pass: Number.isNaN(r.value) ? null : r.value <= r.limit }));
}

async function main() {
  buildIfMissing(log);
  if (REAL) log(`upstream's real otel-allocator at ${SCALES.map((n) => `${n} nodes: ${strategyLabel(fallbackAt(n))}`).join("; ")}`);
  else log(`the per-node TA runs ${STRATEGY_LABEL} at every scale`);
  const scales: ScaleResult[] = [];
  for (const nodes of SCALES) {
    const largest = nodes === SCALES.at(-1);
    scales.push(await measureScale(nodes, largest ? POLLS : Math.min(POLLS, SMALL_SCALE_POLLS), largest));
  }
  const top = scales.at(-1)!;
  const verdicts = judge(scales);

  console.log(`\nGrowth with the number of targets (p50 of each scale's polls; CPU: ${top.pollCpuMetricHelp || "allocation_lens_poll_cpu_seconds"})`);
  const growth = [["nodes", "targets", "MB/poll", "poll CPU", "poll wall", "RSS", "CPU/target", "JSON.parse", "CPU/parse"]];
  for (const s of scales) {
    growth.push([String(s.nodes), String(s.targets), (s.bytesPerPoll / 1e6).toFixed(0), ms(s.pollCpuMsP50), ms(s.pollWallMsP50), `${mib(s.rssBytesAfterPolls)} (${s.pollsReadingNothing ? `${s.polls - s.pollsReadingNothing} of ` : ""}${s.polls} polls)`, `${s.cpuUsPerTarget.toFixed(1)} µs`, ms(s.jsonParseMs), s.cpuOverParse.toFixed(2)]);
  }
  if (scales.length > 1) {
    const a = scales[0];
    const x = (f: (s: ScaleResult) => number) => `x${(f(top) / f(a)).toFixed(2)}`;
    growth.push([`${a.nodes}->${top.nodes}`, x((s) => s.targets), x((s) => s.bytesPerPoll), x((s) => s.pollCpuMsP50), x((s) => s.pollWallMsP50), x((s) => s.rssBytesAfterPolls), x((s) => s.cpuUsPerTarget), x((s) => s.jsonParseMs), ""]);
  }
  const widths = growth[0].map((_, i) => Math.max(...growth.map((r) => r[i].length)));
  for (const r of growth) console.log(r.map((c, i) => c.padEnd(widths[i])).join("  "));

  console.log(`\nAt ${top.nodes} nodes`);
  const info: [string, string][] = [
    ["per-node TA", top.real ? `upstream's otel-allocator ${top.real.taVersion}, ${strategyLabel(top.real.fallback)}` : STRATEGY_LABEL],
    ["bytes fetched per poll", `${(top.bytesPerPoll / 1e6).toFixed(0)} MB (yardstick: ${(top.yardstick.bytes / 1e6).toFixed(0)} MB in ${top.yardstick.answers} answers)`],
    ["poll + analysis wall (p50)", ms(top.pollWallMsP50)],
    ["poll + analysis CPU (p50)", `${ms(top.pollCpuMsP50)} (each: ${top.pollCpuMs.join(", ")} ms${top.pollsReadingNothing ? `; ${top.pollsReadingNothing} read less than half the answers, left out` : ""})`],
    ["JSON.parse of the same bytes, quiet", `${ms(top.yardstick.processMs)} process, ${ms(top.yardstick.threadMs)} its thread (compared: ${top.yardstick.compared})`],
    ["summary answer", `${(top.api.summary.bytes / 1e3).toFixed(1)} kB, ${ms(top.api.summary.ms)}`],
    ["nodes answer", `${(top.api.nodes.bytes / 1e3).toFixed(0)} kB, ${ms(top.api.nodes.ms)}`],
    ["targets answer (200 rows)", `${(top.api.targets.bytes / 1e3).toFixed(0)} kB, ${ms(top.api.targets.ms)}`],
    ["TA requests per poll", top.taRequestsPerPoll.toFixed(0)],
  ];
  if (top.browsing) {
    const paints = top.browsing.loads.map((l) => l.ms);
    info.push(["node map first paint", `median ${ms(pct(paints, 50))}; each: ${top.browsing.loads.map((l) => `${l.ms.toFixed(0)}${l.duringPoll ? "*" : ""}`).join(", ")} ms (* on a poll)`]);
    info.push(["node map hover feedback", ms(top.browsing.feedbackMs)]);
  }
  if (top.soak) {
    const soak = top.soak;
    info.push([`RSS over a ${(soak.seconds / 60).toFixed(0)} min soak with churn`, `${soak.startMiB.toFixed(0)} -> ${soak.endMiB.toFixed(0)} MiB (max ${soak.maxMiB.toFixed(0)})`]);
    info.push(["RSS trend, second half of the soak", `${soak.slopeMiBPerHour.toFixed(0)} MiB/h (${soak.polls} polls, ${soak.churn} churn steps)`]);
    if (soak.historyMiB !== null) info.push(["churn history on disk after the soak", `${soak.historyMiB.toFixed(0)} MiB (bounded by history.maxBytes)`]);
  }
  for (const [k, v] of info) console.log(`${k.padEnd(40)} ${v}`);
  if (REAL) printReal(scales);

  console.log("\nTargets");
  for (const v of verdicts) console.log(`${v.pass === null ? "n/a " : v.pass ? "PASS" : "FAIL"}  ${v.name.padEnd(40)} ${v.shown.padEnd(36)} ${v.target}`);
  const result = {
    ...(REAL ? { ta: "real", taVersion: top.real?.taVersion } : {}),
    perNodeStrategy: { strategy: "per-node", fallback: REAL && values.fallback === undefined ? Object.fromEntries(SCALES.map((n) => [n, fallbackAt(n)])) : FALLBACK },
    scales,
    targets: verdicts.map(({ name, value, limit, target, pass }) => ({ name, value, limit, target, pass })),
    pass: verdicts.every((v) => v.pass !== false),
    totalSeconds: (Date.now() - started) / 1000,
  };
  console.log(JSON.stringify(result));
}

/** The real allocator's own figures beside the dashboard's, one column per scale. */
function printReal(scales: ScaleResult[]) {
  const reals = scales.filter((s): s is ScaleResult & { real: RealScale } => !!s.real);
  if (!reals.length) return;
  const first = reals[0].real;
  console.log(`\nThe real allocator (upstream's otel-allocator ${first.taVersion}) beside the dashboard; the 2 cores are shared, figures are noisy`);
  const mb = (b: number) => `${(b / 1e6).toFixed(b < 10e6 ? 1 : 0)} MB`;
  const checkCell = (c: CountCheck | null, error?: string | null) =>
    c ? `${c.pass ? "equal" : "DIFFER"}: ${c.assigned.allocator} assigned, ${c.unassigned.allocator} unassigned, ${c.collectors.allocator} collectors${c.pass ? "" : ` (ours: ${c.assigned.dashboard}, ${c.unassigned.dashboard}, ${c.collectors.differing} collectors differ)`}` : `not checked${error ? ` (${error})` : ""}`;
  const rows: [string, (s: ScaleResult & { real: RealScale }) => string][] = [
    ["nodes", (s) => String(s.nodes)],
    ["strategy", (s) => (s.real.fallback === "none" ? "per-node, no fallback" : "per-node + consistent-hashing")],
    ["ready after its start", (s) => ms(s.real.startup.readyMs)],
    ["every job listed, after ready", (s) => `${ms(s.real.startup.jobsListedMs)} (${s.real.startup.jobs} jobs)`],
    ["  its CPU / the demo's, meanwhile", (s) => `${ms(s.real.startup.allocatorCpuMs ?? NaN)} / ${ms(s.real.startup.demoCpuMs)}`],
    ["  demo API requests, serving time", (s) => `${Object.entries(s.real.startup.kubeRequests).filter(([k]) => !k.includes(":")).reduce((n, [, v]) => n + v, 0)}, ${ms(Object.entries(s.real.startup.kubeServeMs).filter(([k]) => !k.includes(":")).reduce((n, [, v]) => n + v, 0))}`],
    ["answers settled, after that", (s) => ms(s.real.settledMs)],
    ["one poll's answers, one at a time", (s) => { const p = s.real.served.find((x) => x.concurrency === 1); return p ? `${ms(p.ms)}, ${mb(p.bytes)}, its CPU ${ms(p.cpuMs)}` : "n/a"; }],
    ["one poll's answers, as the dashboard", (s) => { const p = s.real.served.find((x) => x.concurrency > 1) ?? s.real.served[0]; return p ? `${ms(p.ms)} (${p.concurrency} at a time), its CPU ${ms(p.cpuMs)}` : "n/a"; }],
    ["our poll + analysis (p50)", (s) => `${ms(s.pollWallMsP50)} wall, ${ms(s.pollCpuMsP50)} CPU`],
    ["its CPU during our polls", (s) => `${ms(s.real.cpuDuringPolls.cpuMs)} in ${s.real.cpuDuringPolls.seconds.toFixed(0)} s (${s.real.cpuDuringPolls.polls} polls, a rollout)`],
    ["its RSS after start / our polls", (s) => `${mib(s.real.rssAfterStartBytes)} / ${Number.isFinite(s.real.rssAfterPollsBytes) ? mib(s.real.rssAfterPollsBytes) : "n/a (the process it started as is gone)"}`],
    ["our RSS after the polls", (s) => mib(s.rssBytesAfterPolls)],
    ["its /debug/targets", (s) => (s.real.debugTargets ? `${mb(s.real.debugTargets.bytes)}, ${s.real.debugTargets.rows} rows` : "n/a")],
    ["  fetched: first byte, last byte", (s) => (s.real.debugTargets ? `${ms(s.real.debugTargets.ttfbMs)}, ${ms(s.real.debugTargets.ms)} (its CPU ${ms(s.real.debugTargets.cpuMs)})` : "n/a")],
    ["  in Chromium: first rows", (s) => (s.real.debugTargets?.chromiumFirstRowsMs != null ? ms(s.real.debugTargets.chromiumFirstRowsMs) : "(largest scale only)")],
    ["our targets page: first rows", (s) => (s.browsing ? ms(s.browsing.targetsFirstRowsMs) : "(largest scale only)")],
    ["counts, settled", (s) => checkCell(s.real.countsCalm)],
    ["counts, settled after the rollout", (s) => checkCell(s.real.countsAfterRollout, s.real.countsAfterRolloutError)],
    ["its crashes during the run", (s) => (s.real.crashes.count ? `${s.real.crashes.count}, panic: ${s.real.crashes.first}` : "none")],
  ];
  const table = rows.map(([name, f]) => [name, ...reals.map(f)]);
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const r of table) console.log(r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd());
}

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den ? num / den : 0;
}
/** Polls go on for SOAK_S seconds while the demo churns; RSS of the dashboard's process tree every 30 s. */
async function soakRun(base: string, control: string, headers: Record<string, string>, pid: number, historyPath: string | undefined) {
  log(`soak: ${SOAK_S} s with churn...`);
  const truth = (await (await fetch(`${control}/truth`, { headers })).json()) as { collectors: { role: string; node: string }[] };
  const nodes = truth.collectors.filter((c) => c.role === "per-node").map((c) => c.node).sort();
  const fault = (body: object) => fetch(`${control}/faults`, { method: "POST", headers, body: JSON.stringify(body) }).then((r) => r.arrayBuffer());
  const steps = [
    () => fault({ fault: "rollout", role: "per-node" }),
    () => fault({ fault: "collector-crashloop", node: nodes[Math.floor(Math.random() * nodes.length)] }),
    () => fault({ fault: "node-add" }),
    () => fault({ fault: "collector-not-ready", node: nodes[Math.floor(Math.random() * nodes.length)] }),
    () => fetch(`${control}/faults`, { method: "DELETE", headers }).then((r) => r.arrayBuffer()),
  ];
  const t0 = Date.now();
  const pollsAt0 = (await metrics(base)).values.get("allocation_lens_last_poll_timestamp_seconds") ?? 0;
  let polls = 0;
  let lastPoll = pollsAt0;
  let churn = 0;
  let nextChurn = t0;
  const samples: { x: number; y: number }[] = [];
  let nextSample = t0;
  while (Date.now() - t0 < SOAK_S * 1000) {
    const now = Date.now();
    if (now >= nextChurn) {
      await steps[churn % steps.length]().catch((e) => log(`soak: churn step failed: ${(e as Error).message}`));
      churn++;
      nextChurn += 90_000;
    }
    if (now >= nextSample) {
      const rss = rssOfTree(pid) / 2 ** 20;
      samples.push({ x: (now - t0) / 3_600_000, y: rss });
      log(`soak: ${((now - t0) / 60_000).toFixed(1)} min, RSS ${rss.toFixed(0)} MiB, ${polls} polls`);
      nextSample += 30_000;
    }
    const at = (await metrics(base).catch(() => null))?.values.get("allocation_lens_last_poll_timestamp_seconds") ?? lastPoll;
    if (at > lastPoll) {
      polls++;
      lastPoll = at;
    }
    await new Promise((r) => setTimeout(r, 5_000));
  }
  const second = samples.slice(Math.floor(samples.length / 2));
  return {
    seconds: (Date.now() - t0) / 1000,
    polls,
    churn,
    startMiB: samples[0].y,
    endMiB: samples.at(-1)!.y,
    maxMiB: Math.max(...samples.map((p) => p.y)),
    slopeMiBPerHour: slope(second),
    /** the SQLite history on disk (bounded by history.retentionDays and history.maxBytes) */
    historyMiB: historyPath ? ["", "-wal"].reduce((s, x) => s + (fs.statSync(historyPath + x, { throwIfNoEntry: false })?.size ?? 0), 0) / 2 ** 20 : null,
    samples: samples.map((p) => Math.round(p.y)),
  };
}

main()
  .catch((e) => {
    console.error(`bench failed: ${(e as Error).stack ?? e}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
    setTimeout(() => process.exit(), 2000).unref();
  });
