/**
 * `npm run bench -- --fleet N` (default 100): the fleet view at N clusters, on this machine, judged against its targets.
 *
 *  1. One demo cluster and the built dashboard on it: its /metrics, scraped once, is the template of one cluster's
 *     `allocation_lens_*` series, as a dashboard exports them.
 *  2. N clusters' series from that template (the `cluster` label renamed, the figures the fleet reads varied per
 *     cluster, so that the clusters sort apart): 24 hours of every series, backfilled into a new TSDB with Debian's
 *     promtool (`tsdb create-blocks-from openmetrics`, a sample a minute, ending 6 minutes ago); three of the clusters
 *     stopped then (no current series).
 *  3. Debian's Prometheus on that TSDB, scraping every 5 s an exposition on loopback that holds the live clusters'
 *     current series (their last poll "now").
 *  4. The built dashboard with `fleet` on that Prometheus (`refreshSeconds: 1`): fresh fleet answers (each after the
 *     refresh interval, so each asks the backend), and fresh loads of the fleet page in Chromium to its first row.
 * Then a table with PASS or FAIL, and one JSON line.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import YAML from "yaml";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { DERIVED_METRICS } from "@/lib/metrics/derived";
import { fleetQueries, trendGrid } from "@/lib/fleet/queries";
import { loadConfigFile } from "@/server/config";
import { FleetService } from "@/server/fleet/service";
import { PrometheusClient } from "@/server/history/prometheus-client";
import { waitForHttp } from "@allocation-lens/test-support/wait";
import { buildIfMissing, freePort, launchChromium, pct, runDir, startDashboard, startDemo, stopAll, timeFirstPaint, track, waitReady, warmChromium, type FirstPaint } from "./harness.mts";

const PROMETHEUS = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
export const FLEET_TARGETS = { answerMs: 200, firstPaintMs: 1000 };
const HISTORY_MS = 24 * 3600_000;
/** one sample a minute for 24 hours: a dashboard scraped every minute */
const HISTORY_STEP_MS = 60_000;
const HISTORY_END_AGO_MS = 6 * 60_000;
const STOPPED = 3;
const ANSWERS = 10;
const LOADS = 6;
/** the fleet page's first row (its worst cluster) */
export const FIRST_ROW = '[aria-label="Clusters of the fleet"] tbody th';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const log = (m: string) => console.error(`[bench fleet] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const labelText = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`)
    .join(",");

/** One dashboard's allocation_lens_* gauges, as samples. */
function samplesOf(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const f of parsePrometheusTextFormat(text) as { name: string; type: string; metrics: { value?: string; labels?: Record<string, string> }[] }[]) {
    // the fleet reads gauges only
    if (!f.name.startsWith("allocation_lens_") || f.type !== "GAUGE") continue;
    types.set(f.name, f.type.toLowerCase());
    for (const m of f.metrics) if (m.labels?.cluster !== undefined) samples.push({ name: f.name, labels: m.labels, value: Number(m.value) });
  }
  return { samples, types };
}

const clusterName = (i: number) => `cluster-${String(i + 1).padStart(3, "0")}`;

/** The template's samples as cluster `i`'s: its name, and the figures the fleet reads varied (`t`: ms, for the last poll). */
function clusterSamples(template: Sample[], i: number, t: number): Sample[] {
  const name = clusterName(i);
  return template.map((s) => {
    let value = s.value;
    if (s.name === DERIVED_METRICS.lastPoll.name) value = Math.floor(t / 1000);
    else if (s.name === DERIVED_METRICS.locality.name) value = Math.max(0, 1 - ((i * 7) % 23) / 100);
    else if (s.name === DERIVED_METRICS.targets.name && s.labels.class === "ghost") value = (i * 13) % 17 === 0 ? 5 + (i % 9) : 0;
    else if (s.name === DERIVED_METRICS.unassigned.name) value = i % 11 === 0 ? 3 : 0;
    return { ...s, labels: { ...s.labels, cluster: name }, value };
  });
}

/**
 * Every cluster's series over the history (a sample every HISTORY_STEP_MS, as a dashboard scraped that often leaves
 * them), as OpenMetrics for promtool, written to `file` family by family without holding it in memory.
 */
function writeBackfill(file: string, template: Sample[], types: Map<string, string>, clusters: number, now: number): void {
  const fd = fs.openSync(file, "w");
  const end = now - HISTORY_END_AGO_MS;
  try {
    for (const [name, type] of types) {
      fs.writeSync(fd, `# TYPE ${name} ${type}\n`);
      const family = template.filter((s) => s.name === name);
      for (let i = 0; i < clusters; i++) {
        for (const s of family) {
          const lines: string[] = [];
          for (let t = end - HISTORY_MS; t <= end; t += HISTORY_STEP_MS) {
            const [c] = clusterSamples([s], i, t);
            // a slow wave, so that the locality trends are not flat
            const v = s.name === DERIVED_METRICS.locality.name ? Math.max(0, c.value - 0.02 * (1 + Math.sin(t / 3_600_000 + i))) : c.value;
            lines.push(`${s.name}{${labelText(c.labels)}} ${v} ${(t / 1000).toFixed(3)}`);
          }
          fs.writeSync(fd, `${lines.join("\n")}\n`);
        }
      }
    }
    fs.writeSync(fd, "# EOF\n");
  } finally {
    fs.closeSync(fd);
  }
}

export interface FleetBench {
  clusters: number;
  seriesPerCluster: number;
  answers: number[];
  /** a new fleet service's first answer in this process: every query, the trends among them (ms) */
  withTrends: number[];
  /** each of the answer's queries alone against the backend, best of 3 (ms) */
  queries: Record<string, number>;
  loads: number[];
  rows: number;
  firstRow: string;
  worstFirst: boolean;
  pass: { answer: boolean; firstPaint: boolean; worstFirst: boolean };
}

/** `screenshots`: a folder for pictures of the fleet page at that size (light, dark, the embed), taken after the loads */
export async function benchFleet(clusters: number, screenshots?: string): Promise<FleetBench> {
  for (const bin of [PROMETHEUS, PROMTOOL]) if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: install Debian's "prometheus" package (apt-get install -y prometheus)`);
  buildIfMissing(log);
  const dir = runDir("allocation-lens-bench-fleet-");
  const procs: ReturnType<typeof spawn>[] = [];
  let exposition: http.Server | undefined;
  try {
    log("one demo cluster and the dashboard on it, for the template of a cluster's series...");
    const demo = await startDemo(["--nodes", "40", "--poll-interval", "5", "--dir", path.join(dir, "demo")]);
    const one = startDashboard({ config: demo.info.dashboardConfig, port: await freePort() });
    await waitReady(one);
    const { samples: template, types } = samplesOf(await (await fetch(`${one.base}/metrics`)).text());
    await one.stop();
    const seriesPerCluster = template.length;
    log(`a cluster exports ${seriesPerCluster} allocation_lens_* series; ${clusters} clusters, ${STOPPED} of them stopped`);

    const now = Date.now();
    const om = path.join(dir, "history.om");
    writeBackfill(om, template, types, clusters, now);
    const tsdb = path.join(dir, "tsdb");
    log(`backfilling 24 h (${(fs.statSync(om).size / 1e6).toFixed(0)} MB of OpenMetrics) with promtool...`);
    const made = spawnSync(PROMTOOL, ["tsdb", "create-blocks-from", "openmetrics", om, tsdb], { encoding: "utf8" });
    if (made.status !== 0) throw new Error(`promtool tsdb create-blocks-from openmetrics failed: ${(made.stderr || made.stdout).slice(-2000)}`);
    fs.rmSync(om);

    // the live clusters' current series, their last poll now
    const live = clusters - STOPPED;
    exposition = http.createServer((_req, res) => {
      const t = Date.now();
      const out: string[] = [];
      for (const [name, type] of types) {
        out.push(`# TYPE ${name} ${type}`);
        for (let i = 0; i < live; i++) for (const s of clusterSamples(template.filter((x) => x.name === name), i, t)) out.push(`${s.name}{${labelText(s.labels)}} ${s.value}`);
      }
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(`${out.join("\n")}\n`);
    });
    await new Promise<void>((r) => exposition!.listen(0, "127.0.0.1", r));
    const expoPort = (exposition.address() as { port: number }).port;
    const promPort = await freePort();
    const promConfig = path.join(dir, "prometheus.yml");
    fs.writeFileSync(
      promConfig,
      YAML.stringify({ global: { scrape_interval: "5s", evaluation_interval: "5s" }, scrape_configs: [{ job_name: "allocation-lens", honor_labels: true, static_configs: [{ targets: [`127.0.0.1:${expoPort}`] }] }] }),
    );
    const prom = track(spawn(PROMETHEUS, [`--config.file=${promConfig}`, `--storage.tsdb.path=${tsdb}`, `--web.listen-address=127.0.0.1:${promPort}`, "--storage.tsdb.retention.time=30d"], { stdio: ["ignore", "ignore", "pipe"] }));
    procs.push(prom);
    let promLog = "";
    prom.stderr!.on("data", (c: Buffer) => (promLog = (promLog + c.toString("utf8")).slice(-8000)));
    await waitForHttp(`http://127.0.0.1:${promPort}/-/ready`, { timeoutMs: 120_000, child: prom, what: "Prometheus" }).catch((e) => {
      throw new Error(`${(e as Error).message}\n${promLog}`);
    });
    // every live cluster scraped at least once
    const promUrl = `http://127.0.0.1:${promPort}`;
    for (const t0 = Date.now(); ; ) {
      const q = await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(`count(group by (cluster) (${DERIVED_METRICS.lastPoll.name}))`)}`)).json().catch(() => null);
      if (Number(q?.data?.result?.[0]?.value?.[1] ?? 0) === live) break;
      if (Date.now() - t0 > 60_000) throw new Error(`Prometheus did not scrape the ${live} live clusters within 60 s`);
      await sleep(500);
    }

    const config = YAML.parse(fs.readFileSync(demo.info.dashboardConfig, "utf8"));
    config.fleet = { prometheus: { url: promUrl }, refreshSeconds: 1, staleAfterSeconds: 60 };
    const fleetConfig = path.join(dir, "fleet.yaml");
    fs.writeFileSync(fleetConfig, YAML.stringify(config));
    const dash = startDashboard({ config: fleetConfig, port: await freePort() });
    await waitReady(dash);

    log(`${ANSWERS} fresh fleet answers (each after the 1 s refresh interval)...`);
    const answers: number[] = [];
    let body: { clusters: { cluster: string }[] } | undefined;
    for (let i = 0; i <= ANSWERS; i++) {
      await sleep(1100);
      const t0 = performance.now();
      const res = await fetch(`${dash.base}/api/v1/fleet`);
      const text = await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`GET /api/v1/fleet: ${res.status} ${text.slice(0, 300)}`);
      body = JSON.parse(text);
      // the first one warms the route up
      if (i > 0) answers.push(ms);
    }
    const rows = body!.clusters.length;
    const expectedFirst = body!.clusters[0].cluster;

    // where a fresh answer's time goes: each of its queries alone, best of 3 (over HTTP here, and through the dashboard's
    // client, which validates the answer)
    const queries: Record<string, number> = {};
    const viaClient: Record<string, number> = {};
    const client = new PrometheusClient(loadConfigFile(fleetConfig).fleet!.prometheus, "fleet.prometheus");
    for (const [name, promql] of Object.entries(fleetQueries([]))) {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        if (name.startsWith("trend")) await client.queryRange(promql, trendGrid(Date.now()));
        else await client.query(promql, Date.now() / 1000);
        times.push(performance.now() - t0);
      }
      viaClient[name] = Math.min(...times);
    }
    client.close();
    log(`each query through the dashboard's client (best of 3): ${Object.entries(viaClient).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(", ")}`);
    for (const [name, promql] of Object.entries(fleetQueries([]))) {
      const range = name.startsWith("trend");
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const g = trendGrid(Date.now());
        const params = new URLSearchParams(range ? { query: promql, start: String(g.start), end: String(g.end), step: String(g.step) } : { query: promql, time: String(Date.now() / 1000) });
        const t0 = performance.now();
        const res = await fetch(`${promUrl}/api/v1/${range ? "query_range" : "query"}?${params}`);
        await res.arrayBuffer();
        times.push(performance.now() - t0);
      }
      queries[name] = Math.min(...times);
    }
    // the fleet service alone, in this process, as on an answer that asks the trends too (a new service: every query,
    // the trends among them), without the route and its JSON
    const fleet = loadConfigFile(fleetConfig).fleet!;
    const serviceMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const service = new FleetService(fleet, new PrometheusClient(fleet.prometheus, "fleet.prometheus"));
      const t0 = performance.now();
      await service.get(Date.now());
      serviceMs.push(performance.now() - t0);
      service.close();
    }
    log(`the fleet service alone, trends included: ${serviceMs.map((x) => x.toFixed(0)).join(", ")} ms`);
    log(`each query alone (best of 3): ${Object.entries(queries).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(", ")}`);

    log(`${LOADS} fresh loads of the fleet page in Chromium (first row: the first frame that has it, from the navigation's start)...`);
    const browser = await launchChromium();
    const loads: number[] = [];
    const phases: FirstPaint[] = [];
    let firstRow = "";
    try {
      await warmChromium(browser);
      // Next.js loads a page's server code at its first request after the server starts: that first render is asked once
      // here, its time kept apart, before the loads are timed
      const t = performance.now();
      await (await fetch(`${dash.base}/fleet`)).arrayBuffer();
      log(`the fleet page's first render (not timed below): ${(performance.now() - t).toFixed(0)} ms`);
      for (let i = 0; i < LOADS; i++) {
        await sleep(1100);
        const p = await timeFirstPaint(browser, `${dash.base}/fleet`, FIRST_ROW, { api: "/api/v1/fleet" });
        loads.push(p.painted);
        phases.push(p);
      }
      // the row the page shows first
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${dash.base}/fleet`);
      firstRow = (await page.locator(FIRST_ROW).first().innerText()).trim();
      await page.close();
      if (screenshots) {
        fs.mkdirSync(screenshots, { recursive: true });
        for (const [name, url, width] of [
          ["fleet-light.png", "/fleet", 1280],
          ["fleet-dark.png", "/fleet?theme=dark", 1280],
          ["fleet-embed.png", "/embed/fleet", 900],
        ] as const) {
          const page = await browser.newPage({ viewport: { width, height: 900 } });
          await page.goto(`${dash.base}${url}`);
          await page.locator(FIRST_ROW).first().waitFor({ state: "visible", timeout: 30_000 });
          await page.screenshot({ path: path.join(screenshots, name) });
          await page.close();
        }
        log(`screenshots in ${screenshots}`);
      }
    } finally {
      await browser.close();
    }
    await dash.stop();
    for (const p of phases) log(`load: ${Object.entries(p).map(([k, v]) => `${k} ${(v as number).toFixed(0)} ms`).join(", ")}`);
    const worstFirst = firstRow.includes(expectedFirst);
    return {
      clusters,
      seriesPerCluster,
      answers,
      withTrends: serviceMs,
      queries,
      loads,
      rows,
      firstRow: expectedFirst,
      worstFirst,
      pass: { answer: Math.max(...answers) <= FLEET_TARGETS.answerMs, firstPaint: Math.max(...loads) <= FLEET_TARGETS.firstPaintMs, worstFirst: worstFirst && rows === clusters },
    };
  } finally {
    exposition?.close();
    for (const p of procs) p.kill("SIGTERM");
    await stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The fleet figures as the bench prints them: a table with PASS or FAIL, then one JSON line. */
export function printFleet(r: FleetBench): void {
  const mark = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const f = (xs: number[]) => `median ${pct(xs, 50).toFixed(0)} ms, worst ${Math.max(...xs).toFixed(0)} ms`;
  console.log(`\nThe fleet view at ${r.clusters} clusters (${r.seriesPerCluster} allocation_lens_* series each, 24 h of history at one sample a minute; ${STOPPED} stopped):`);
  console.log(`| figure | value | target | |`);
  console.log(`| --- | --- | --- | --- |`);
  console.log(`| fresh fleet answer (${r.answers.length}, each asking the backend; the trends once a minute) | ${f(r.answers)} | worst <= ${FLEET_TARGETS.answerMs} ms | ${mark(r.pass.answer)} |`);
  console.log(`| ... with the trends (${r.withTrends.length}, the service alone, in the bench) | ${f(r.withTrends)} | | |`);
  console.log(`| fleet page, first row painted (${r.loads.length} fresh loads) | ${f(r.loads)} | worst <= ${FLEET_TARGETS.firstPaintMs} ms | ${mark(r.pass.firstPaint)} |`);
  console.log(`| rows, worst cluster first | ${r.rows}, first ${r.firstRow} | ${r.clusters}, the API's first | ${mark(r.pass.worstFirst)} |`);
  console.log(JSON.stringify({ fleet: r }));
}
