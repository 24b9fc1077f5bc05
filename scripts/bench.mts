/**
 * `npm run bench`: Allocation Lens at the largest Kubernetes scale on this machine.
 *
 * Starts the demo cluster at 5,000 nodes (its own process, as a real TA would be), the built dashboard against it (its own
 * process), lets the real poller and analysis run, reads the same bytes itself to time a plain JSON.parse of them, measures
 * the API while polls run, and drives the node map and the targets page in Chromium. Prints a table, then one JSON line.
 *
 * Options: --nodes N (default 5000), --polls N (default 10), --interval S (dashboard poll interval, default 15),
 * --profile DIR (write a V8 CPU profile of the dashboard process to DIR, for chrome://inspect or speedscope),
 * --server-node-args "..." (extra Node/V8 flags for the dashboard process only, e.g. "--max-semi-space-size=64"),
 * --soak S (then keep polling for S seconds with churn every 90 s: rollouts, a crash-looping collector, nodes added, faults
 * healed; RSS sampled every 30 s; prints its start, end, maximum and trend over the second half, in MiB per hour).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { chromium } from "@playwright/test";
import { loadConfigFile } from "@/server/config";
import { TaHttp } from "@/server/ta/http";
import { escapeJobId } from "@/lib/routing";
import { ROLES } from "@/lib/model";
import { buildIfMissing, pct, rssOfTree, startDashboard, startDemo, stopAll, waitReady } from "./harness.mts";

const { values } = parseArgs({ options: { nodes: { type: "string" }, polls: { type: "string" }, interval: { type: "string" }, profile: { type: "string" }, "server-node-args": { type: "string" }, soak: { type: "string" } } });
const NODES = Number(values.nodes ?? 5000);
const POLLS = Number(values.polls ?? 10);
const INTERVAL = Number(values.interval ?? 15);
const SOAK_S = Number(values.soak ?? 0);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-bench-"));
const started = Date.now();
const log = (m: string) => console.error(`[bench ${((Date.now() - started) / 1000).toFixed(0)} s] ${m}`);

async function metrics(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out = new Map<string, number>();
  for (const f of parsePrometheusTextFormat(text) as { name: string; metrics: { value?: string; labels?: Record<string, string> }[] }[]) {
    for (const m of f.metrics) {
      const key = `${f.name}${m.labels?.role ? `{${m.labels.role}}` : ""}`;
      out.set(key, (out.get(key) ?? 0) + Number(m.value ?? NaN));
    }
  }
  return out;
}

async function main() {
  buildIfMissing(log);
  log(`starting the demo cluster at ${NODES} nodes...`);
  const { info } = await startDemo(["--nodes", String(NODES), "--poll-interval", String(INTERVAL), "--dir", dir]);
  const config = loadConfigFile(info.dashboardConfig);
  const cluster = config.clusters[0];

  log("starting the dashboard...");
  const port = 3190;
  const profile = values.profile ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(values.profile)] : [];
  profile.push(...(values["server-node-args"]?.split(/\s+/).filter(Boolean) ?? []));
  const server = startDashboard({ config: info.dashboardConfig, port, nodeArgs: profile });
  const base = server.base;
  await waitReady(server, 30 * 60_000);
  log("first poll done");

  // The yardstick: the same bytes, fetched by this process, parsed with a plain JSON.parse.
  const bodies: Buffer[] = [];
  for (const role of ROLES) {
    const ta = cluster.targetAllocators[role];
    if (!ta) continue;
    const http = new TaHttp(`bench/${role}`, ta);
    const jobs = Object.keys(JSON.parse((await http.get("/jobs")).body.toString("utf8")));
    bodies.push((await http.get("/jobs")).body);
    for (const job of jobs) bodies.push((await http.get(`/jobs/${escapeJobId(job)}/targets`)).body);
    http.close();
  }
  const jsonBytes = bodies.reduce((s, b) => s + b.length, 0);
  const parseTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    const c0 = process.cpuUsage();
    for (const b of bodies) JSON.parse(b.toString("utf8"));
    const c = process.cpuUsage(c0);
    parseTimes.push((c.user + c.system) / 1000);
  }
  const parseMs = Math.min(...parseTimes);
  bodies.length = 0;
  log(`JSON.parse of ${(jsonBytes / 1e6).toFixed(0)} MB: ${parseMs.toFixed(0)} ms CPU`);

  // Churn during the run: a rollout of the per-node agents.
  const controlHeaders = { Authorization: `Bearer ${info.controlToken}` };
  await fetch(`${info.control}/faults`, { method: "POST", headers: controlHeaders, body: JSON.stringify({ fault: "rollout", role: "per-node" }) });

  // Polls: wall, CPU, bytes from the dashboard's own /metrics; API latency sampled all along.
  const polls: { wallMs: number; cpuMs: number; bytes: number }[] = [];
  const apiLatencies: number[] = [];
  let lastPollAt = (await metrics(base)).get("allocation_lens_last_poll_timestamp_seconds") ?? 0;
  const reqStart = new Map<string, number>();
  for (const [k, v] of await metrics(base)) if (k.startsWith("allocation_lens_ta_requests_total")) reqStart.set(k, v);
  const pollsBefore = POLLS;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const t = performance.now();
      await fetch(`${base}/api/v1/summary`).then((r) => r.arrayBuffer());
      apiLatencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  // The server's own view of event-loop starvation: prom-client's lag histogram, reset at each scrape (once a second here).
  const lagMax: number[] = [];
  while (polls.length < pollsBefore) {
    await new Promise((r) => setTimeout(r, 1000));
    const m = await metrics(base);
    const lag = m.get("nodejs_eventloop_lag_max_seconds");
    if (lag !== undefined && Number.isFinite(lag)) lagMax.push(lag * 1000);
    const at = m.get("allocation_lens_last_poll_timestamp_seconds") ?? 0;
    if (at > lastPollAt) {
      lastPollAt = at;
      polls.push({ wallMs: (m.get("allocation_lens_poll_duration_seconds") ?? NaN) * 1000, cpuMs: (m.get("allocation_lens_poll_cpu_seconds") ?? NaN) * 1000, bytes: m.get("allocation_lens_poll_bytes") ?? NaN });
      log(`poll ${polls.length}: ${polls.at(-1)!.wallMs.toFixed(0)} ms wall, ${polls.at(-1)!.cpuMs.toFixed(0)} ms CPU, ${(polls.at(-1)!.bytes / 1e6).toFixed(0)} MB`);
    }
  }
  sampling = false;
  await sampler;
  const rss = rssOfTree(server.pid!);
  const reqEnd = await metrics(base);
  let taRequests = 0;
  for (const [k, v] of reqEnd) if (k.startsWith("allocation_lens_ta_requests_total")) taRequests += v - (reqStart.get(k) ?? 0);

  // API answers.
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

  // Browser.
  log("browser timings...");
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
  // Five fresh page loads, 3 s apart: some land while a poll runs (the server shares one event loop with it).
  const paints: number[] = [];
  for (let i = 0; i < 5; i++) {
    const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const t0 = performance.now();
    await p.goto(`${base}/nodes`);
    await p.locator("[data-node]").first().waitFor({ state: "visible", timeout: 60_000 });
    paints.push(performance.now() - t0);
    await p.close();
    await new Promise((r) => setTimeout(r, 3_000));
  }
  const nodeMapPaintMs = pct(paints, 50);
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
  await browser.close();

  const soak = SOAK_S > 0 ? await soakRun(base, info.control, controlHeaders, server.pid!, config.history.path) : null;

  const cpu = polls.map((p) => p.cpuMs);
  const wall = polls.map((p) => p.wallMs);
  const result = {
    nodes: NODES,
    targetsBytesPerPoll: pct(polls.map((p) => p.bytes), 50),
    pollWallMsP50: pct(wall, 50),
    pollCpuMsP50: pct(cpu, 50),
    jsonParseMs: parseMs,
    cpuOverParse: pct(cpu, 50) / parseMs,
    serverRssBytesAfterPolls: rss,
    polls: polls.length,
    api,
    apiP95MsDuringPolls: pct(apiLatencies, 95),
    apiSamples: apiLatencies.length,
    eventLoopLagMaxMs: Math.max(...lagMax),
    eventLoopLagMaxP95Ms: pct(lagMax, 95),
    taRequestsPerPoll: taRequests / polls.length,
    nodeMapFirstPaintMs: nodeMapPaintMs,
    nodeMapFirstPaintMaxMs: Math.max(...paints),
    nodeMapFeedbackMs: feedbackMs,
    targetsFirstRowsMs,
    soak,
    totalSeconds: (Date.now() - started) / 1000,
  };
  const rows: [string, string, string][] = [
    ["bytes fetched per poll", `${(result.targetsBytesPerPoll / 1e6).toFixed(0)} MB`, ""],
    ["poll + analysis wall (p50)", `${result.pollWallMsP50.toFixed(0)} ms`, ""],
    ["poll + analysis CPU (p50)", `${result.pollCpuMsP50.toFixed(0)} ms`, ""],
    ["plain JSON.parse of the same bytes", `${parseMs.toFixed(0)} ms`, ""],
    ["CPU / JSON.parse", result.cpuOverParse.toFixed(2), "target <= 2"],
    [`server RSS after ${polls.length} polls`, `${(rss / 2 ** 20).toFixed(0)} MiB`, "target <= 1024 MiB"],
    ["summary answer", `${(api.summary.bytes / 1e3).toFixed(1)} kB, ${api.summary.ms.toFixed(0)} ms`, "target <= 100 kB, 50 ms"],
    ["nodes answer", `${(api.nodes.bytes / 1e3).toFixed(0)} kB, ${api.nodes.ms.toFixed(0)} ms`, ""],
    ["targets answer (200 rows)", `${(api.targets.bytes / 1e3).toFixed(0)} kB, ${api.targets.ms.toFixed(0)} ms`, ""],
    ["API p95 while polling", `${result.apiP95MsDuringPolls.toFixed(0)} ms (${apiLatencies.length} samples)`, "target <= 100 ms"],
    ["event-loop lag, max per second", `p95 ${result.eventLoopLagMaxP95Ms.toFixed(0)} ms, worst ${result.eventLoopLagMaxMs.toFixed(0)} ms`, "the server's own view of the above"],
    ["TA requests per poll", result.taRequestsPerPoll.toFixed(0), "one per job + 4 per TA"],
    ["node map first paint (median of 5)", `${nodeMapPaintMs.toFixed(0)} ms (worst ${Math.max(...paints).toFixed(0)} ms)`, "target <= 1500 ms"],
    ["node map hover feedback", `${feedbackMs.toFixed(0)} ms`, "target <= 100 ms"],
    ["targets page first rows", `${targetsFirstRowsMs.toFixed(0)} ms`, "target <= 1000 ms"],
  ];
  if (soak) {
    rows.push([`RSS over a ${(soak.seconds / 60).toFixed(0)} min soak with churn`, `${soak.startMiB.toFixed(0)} -> ${soak.endMiB.toFixed(0)} MiB (max ${soak.maxMiB.toFixed(0)})`, "target <= 1024 MiB, flat"]);
    rows.push(["RSS trend, second half of the soak", `${soak.slopeMiBPerHour.toFixed(0)} MiB/h (${soak.polls} polls, ${soak.churn} churn steps)`, ""]);
    if (soak.historyMiB !== null) rows.push(["churn history on disk after the soak", `${soak.historyMiB.toFixed(0)} MiB`, "bounded by history.maxBytes"]);
  }
  for (const [k, v, target] of rows) console.log(`${k.padEnd(38)} ${v.padEnd(28)} ${target}`);
  console.log(JSON.stringify(result));
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
  const pollsAt0 = (await metrics(base)).get("allocation_lens_last_poll_timestamp_seconds") ?? 0;
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
    const at = (await metrics(base).catch(() => new Map<string, number>())).get("allocation_lens_last_poll_timestamp_seconds") ?? lastPoll;
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
