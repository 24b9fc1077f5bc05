/**
 * `npm run bench -- --clusters N [--nodes M]` (default 20 clusters of 250 nodes): many clusters on few replicas, against
 * one cluster as large as all of them together, in the same run, on this machine, judged against its targets.
 *
 *  1. One demo cluster of N × M nodes and the built dashboard on it (as `npm run bench` runs its largest scale, without
 *     the churn): after its first poll, 2K polls measured (SINGLE_POLLS_FACTOR: the yardstick's own spread).
 *  2. N demo clusters of M nodes (each its own process, seeds apart, the same strategy), Debian's Prometheus scraping the
 *     replicas, and one replica: the built dashboard with the N clusters, `lease` (the Leases on the first demo's API)
 *     and `fleet` (that Prometheus) in its configuration. It holds every cluster's Lease; K poll intervals measured.
 *  3. A second replica started beside it, as a scale-up does: the clusters are shared out (N/2 each, by their Leases);
 *     once balanced, every cluster polled twice by its new holder, and both replicas' CPU per poll interval settled (two
 *     intervals in a row within 10 %: the scale-up's transient is not polling), K poll intervals measured again.
 *
 * Each measurement runs from a poll's end until K polls of every cluster have ended, and takes:
 *  - poll CPU: the poll worker threads' own (user + system, from /proc) over the window, per target polled in it (each
 *    poll's targets counted: the cluster's total, read from the API). That thread reads, validates and analyses every
 *    poll and collects its own garbage (`--single-threaded-gc`); it is what `npm run bench` calls the poll's CPU, and
 *    what the N clusters are judged on against the one large cluster. Not the sum of allocation_lens_poll_cpu_seconds:
 *    that is the thread's CPU during each poll, and the polls of many clusters overlap on the one thread;
 *  - the processes' CPU (every thread) per target, shown beside it and not judged: what the serving thread does for many
 *    clusters (renewing their Leases, forwarding between replicas, larger /metrics) is not polling, and is the price of
 *    the sharing; also each replica's by thread (serving, poll worker, the rest) and by half of the window;
 *  - the API: GET /api/v1/summary of each cluster in turn, on each replica in turn, every 200 ms, its p95;
 *  - RSS of each replica's process tree after the window;
 *  - the requests each cluster's TAs served, read from the TAs' own metrics (the request-duration histogram's count, as
 *    the real allocators export it) right after each poll ends, so that no poll straddles two readings: the requests of
 *    one poll, and the requests per poll interval. N clusters' worth is N polls' requests per interval, whatever the
 *    number of replicas; a cluster polled twice (two replicas both holding it) shows as twice its worth;
 *  - after the window, fresh loads of the overview (each cluster in turn) and the fleet page in Chromium, to the first
 *    frame with their figures; with each, the machine's busy cores during it and how long the replicas' serving threads
 *    waited for a core (the browser shares the machine's cores with the replicas, the demos and Prometheus).
 * Then a table with PASS or FAIL, and one JSON line.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { spawn, type ChildProcess } from "node:child_process";
import YAML from "yaml";
import * as k8s from "@kubernetes/client-node";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import type { Browser } from "@playwright/test";
import type { LaunchedDemo } from "@allocation-lens/demo-cluster";
import { waitForHttp } from "@allocation-lens/test-support/wait";
import { ROLES, type Role } from "@/lib/model";
import { DERIVED_METRICS } from "@/lib/metrics/derived";
import { loadConfigFile } from "@/server/config";
import { TaHttp } from "@/server/ta/http";
import { FIRST_ROW } from "./bench-fleet.mts";
import { buildIfMissing, cpuOfThreads, cpuOfTree, freePort, launchChromium, pct, rssOfTree, runDir, runQueueWaitMs, startDashboard, startDemo, stopAll, timeFirstPaint, track, waitReady, warmChromium, type Dashboard, type FirstPaint } from "./harness.mts";

const PROMETHEUS = "/usr/bin/prometheus";
export const CLUSTERS_TARGETS = {
  /** CPU per target polled, N clusters against the one cluster as large as all of them */
  cpuPerTargetSpread: 0.15,
  rssOneMiB: 450,
  rssEachOfTwoMiB: 300,
  apiP95Ms: 20,
  firstPaintMs: 1000,
  /** TA requests per poll interval against N clusters' worth */
  taRequestsTolerance: 0.05,
};
const LEASE = { namespace: "allocation-lens", name: "allocation-lens", durationSeconds: 10, renewSeconds: 2 };
const REPLICAS = ["lens-a", "lens-b"];
const LOADS = 6;
/**
 * The one large cluster is measured over this many times the polls of each of the N clusters. Its CPU per target is the
 * yardstick of the N clusters' and must be steadier than they are: over 8 polls it came out at 15.4 to 21.0 µs in clean
 * runs on the same code (2026-12-06; whether a full collection of its ~300 MB heap falls inside the window or not), the
 * N clusters' 160 polls at 18.2 to 20.2 µs. Twice the polls cost another 80 s at the default 10 s interval.
 */
export const SINGLE_POLLS_FACTOR = 2;
/** the overview's figures: the monitors' ownership counts */
const OVERVIEW_FIGURES = '[data-testid^="monitors-"]';

const log = (m: string) => console.error(`[bench clusters] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const clusterName = (i: number) => `c${String(i + 1).padStart(2, "0")}`;
const mib = (b: number) => b / 2 ** 20;

async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, timeoutMs: number, intervalMs = 250): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`${what}: not within ${(timeoutMs / 1000).toFixed(0)} s`);
    await sleep(intervalMs);
  }
}

/** The requests a TA served so far, from its own metrics: every path's count of its request-duration histogram. */
function requestsServed(metricsText: string): number {
  let n = 0;
  for (const m of metricsText.matchAll(/^\w+_allocator_http_duration_seconds_count(?:\{[^}]*\})? (\S+)$/gm)) n += Number(m[1]);
  return n;
}

interface Reading {
  /** when the reading was asked (epoch ms) */
  at: number;
  /** the end of the poll it follows (epoch ms, the dashboard's clock) */
  afterPollEnd: number;
  /** requests served by the cluster's TAs so far, this reading's own not yet counted */
  served: number;
}

/**
 * Every poll end the replicas report (their /metrics, every 2.5 s: each cluster's last poll timestamp, the same value
 * from any replica), and after each, the cluster's TAs' request counts. A poll of 250 nodes takes a fraction of a second
 * and the next one starts an interval (10 s) after this one started: a reading taken within 2.5 s of a poll's end falls
 * between two polls. Not more often: each scrape of a replica that polled since the last has its worker render the
 * whole exposition, and this process shares the machine's cores with the dashboards it measures.
 */
const WATCH_EVERY_MS = 2500;

/** The serving thread's worst event-loop delay since the last scrape (prom-client's, reset by every scrape). */
const LAG_MAX = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m;

class Watch {
  readonly ends = new Map<string, Set<number>>();
  readonly readings = new Map<string, Reading[]>();
  /** per replica (its base URL): when it was scraped and the worst event-loop delay it reported (ms) */
  readonly lags = new Map<string, Array<{ at: number; maxMs: number }>>();
  private running = true;
  private readonly done: Promise<void>;
  private seen = 0;

  constructor(
    private readonly replicas: () => Dashboard[],
    readonly tas: Map<string, TaHttp[]>,
  ) {
    this.done = this.loop();
  }

  /** poll ends seen so far, over every cluster */
  get polls(): number {
    return this.seen;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      for (const r of this.replicas()) {
        const text = await fetch(`${r.base}/metrics`, { signal: AbortSignal.timeout(5_000) })
          .then((x) => x.text())
          .catch(() => "");
        if (!text) continue;
        const lag = LAG_MAX.exec(text);
        if (lag) {
          let list = this.lags.get(r.base);
          if (!list) this.lags.set(r.base, (list = []));
          list.push({ at: Date.now(), maxMs: Number(lag[1]) * 1000 });
        }
        // the last-poll family alone to the parser: the whole exposition of 20 clusters is large, and read often
        const family = text.split("\n").filter((line) => line.startsWith(DERIVED_METRICS.lastPoll.name) || line.startsWith(`# TYPE ${DERIVED_METRICS.lastPoll.name} `)).join("\n");
        // (the parser drops a last sample without its newline)
        for (const f of parsePrometheusTextFormat(`${family}\n`) as { name: string; metrics: { value?: string; labels?: Record<string, string> }[] }[]) {
          if (f.name !== DERIVED_METRICS.lastPoll.name) continue;
          for (const m of f.metrics) {
            const cluster = m.labels?.cluster;
            const end = Number(m.value) * 1000;
            if (!cluster || !(end > 0)) continue;
            let ends = this.ends.get(cluster);
            if (!ends) this.ends.set(cluster, (ends = new Set()));
            if (ends.has(end)) continue;
            ends.add(end);
            this.seen++;
            void this.read(cluster, end);
          }
        }
      }
      await sleep(WATCH_EVERY_MS);
    }
  }

  private async read(cluster: string, afterPollEnd: number): Promise<void> {
    const tas = this.tas.get(cluster);
    if (!tas) return;
    const at = Date.now();
    try {
      let served = 0;
      for (const ta of tas) served += requestsServed((await ta.get("/metrics")).body.toString("utf8"));
      let list = this.readings.get(cluster);
      if (!list) this.readings.set(cluster, (list = []));
      list.push({ at, afterPollEnd, served });
    } catch (e) {
      log(`reading ${cluster}'s TA metrics failed: ${(e as Error).message}`);
    }
  }

  /** resolves with the end (epoch ms) of the next poll seen of any cluster */
  async nextPollEnd(): Promise<number> {
    const before = this.seen;
    await until("a poll's end", () => (this.seen > before ? true : undefined), 120_000, 100);
    return Math.max(...[...this.ends.values()].flatMap((s) => [...s]));
  }

  /** Resolves once every replica in `bases` has been scraped after `t` (epoch ms); gives up quietly after 20 s. */
  async scrapedAfter(bases: string[], t: number, what: string): Promise<void> {
    const after = () => bases.every((b) => (this.lags.get(b) ?? []).some((l) => l.at > t));
    await until(what, () => (after() ? true : undefined), 20_000, 100).catch(() => undefined);
  }

  /** The worst event-loop delay a replica reported in scrapes from `from` to `to` (epoch ms); NaN without one. */
  worstLagMs(base: string, from: number, to: number): number {
    const seen = (this.lags.get(base) ?? []).filter((l) => l.at >= from && l.at <= to).map((l) => l.maxMs);
    return seen.length ? Math.max(...seen) : NaN;
  }

  endsIn(cluster: string, fromExclusive: number, toInclusive: number): number {
    return [...(this.ends.get(cluster) ?? [])].filter((e) => e > fromExclusive && e <= toInclusive).length;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

interface TaFigures {
  /** requests of one poll, per cluster */
  perPoll: Record<string, number>;
  /** requests per poll interval, per cluster */
  perInterval: Record<string, number>;
}

/** Between the first and the last reading in the window, per cluster (each reading's own request per TA taken off). */
function taFigures(w: Watch, clusters: string[], fromMs: number, toMs: number, intervalS: number): TaFigures {
  const perPoll: Record<string, number> = {};
  const perInterval: Record<string, number> = {};
  for (const c of clusters) {
    const all = w.readings.get(c) ?? [];
    const first = all.findIndex((r) => r.at >= fromMs);
    const last = all.findLastIndex((r) => r.at <= toMs);
    if (first < 0 || last <= first) continue;
    const a = all[first];
    const b = all[last];
    const roles = w.tas.get(c)!.length;
    const requests = b.served - a.served - (last - first) * roles;
    const polls = w.endsIn(c, a.afterPollEnd, b.afterPollEnd);
    perPoll[c] = polls ? requests / polls : NaN;
    perInterval[c] = requests / ((b.afterPollEnd - a.afterPollEnd) / 1000 / intervalS);
  }
  return { perPoll, perInterval };
}

/**
 * What the machine did during a page load: its cores busy (every process, /proc/stat), and how long the replicas'
 * serving threads, runnable, waited on a run queue for a core (their schedstat). The browser runs on the same cores as
 * the replicas, the demo clusters and Prometheus: a load whose serving threads waited hundreds of milliseconds measured
 * the machine more than the dashboard.
 */
export interface LoadContention {
  busyCores: number;
  servingWaitedMs: number;
}

export interface Phase {
  label: string;
  replicas: number;
  clusters: number;
  /** the window: from a poll's end until every cluster's polls had ended (ms) */
  windowMs: number;
  polls: number;
  targetsPolled: number;
  /** every thread of the dashboard processes (ms) */
  cpuMs: number;
  cpuUsPerTarget: number;
  /** the poll worker threads (ms): judged */
  pollCpuMs: number;
  pollCpuUsPerTarget: number;
  rssMiB: number[];
  apiP95Ms: number;
  apiSamples: number;
  apiErrors: number;
  ta: TaFigures;
  taPerInterval: number;
  pollsPerClusterPerInterval: { min: number; max: number };
  overviewMs: number[];
  fleetMs: number[];
  /** each page load in turn (the overview's, then the fleet page's): what the machine did meanwhile */
  loadContention: LoadContention[];
  fleetRows: number | null;
  /** before the loads: each page's HTML asked once on each replica (ms), the first after a start loading its server code */
  firstRenders: number[];
  /** the machine's cores busy over the window (every process, from /proc/stat: 1 = one core) */
  machineCores: number;
  /** CPU of the demo clusters' processes (their TAs and API servers) over the window (ms) */
  peersCpuMs: number;
  /** clusters without two readings of their TAs in the window */
  taReadingsMissing?: number;
  /** each replica's CPU over the window (ms), by thread and by half of the window (a replica warming up shows in its first half) */
  cpuByReplica: ReplicaCpu[];
  /**
   * each replica's serving thread: the worst event-loop delay its scrapes by the bench reported over the window, and
   * over the page loads (ms; Prometheus' scrapes reset the same figure, so a stall it took in is not seen here)
   */
  lagMs: { window: number[]; loads: number[] };
}

export interface ReplicaCpu {
  /** the serving thread (the process' main thread) */
  servingMs: number;
  /** the busiest other thread: the poll worker */
  workerMs: number;
  /** every other thread (the garbage collector's, libuv's) */
  otherMs: number;
  firstHalfMs: number;
  secondHalfMs: number;
}

/**
 * Waits for the replicas' CPU to settle: their CPU over successive intervals of `intervalMs`, until two in a row are
 * within `tolerance` of each other, or `max` intervals have passed.
 */
async function settledCpu(replicas: Dashboard[], intervalMs: number, tolerance: number, max: number): Promise<{ settled: boolean; perInterval: number[] }> {
  const total = () => replicas.reduce((x, r) => x + cpuOfTree(r.pid), 0);
  const perInterval: number[] = [];
  let last = total();
  for (let i = 0; i < max; i++) {
    await sleep(intervalMs);
    const now = total();
    perInterval.push(now - last);
    last = now;
    const [x, y] = perInterval.slice(-2);
    if (perInterval.length >= 2 && Math.abs(y - x) <= tolerance * Math.max(x, y)) return { settled: true, perInterval };
  }
  return { settled: false, perInterval };
}

/** Each thread's CPU between two readings of cpuOfThreads, split as ReplicaCpu says (`mid`: a reading between them). */
export function replicaCpu(pid: number, at0: Map<string, number>, mid: Map<string, number>, at1: Map<string, number>): ReplicaCpu {
  const delta = (a: Map<string, number>, b: Map<string, number>, key: string) => (b.get(key) ?? a.get(key) ?? 0) - (a.get(key) ?? 0);
  const main = `${pid}/${pid}`;
  const others = [...at1.keys()].filter((k) => k !== main).map((k) => delta(at0, at1, k)).sort((x, y) => y - x);
  const sum = (a: Map<string, number>, b: Map<string, number>) => [...b.keys()].reduce((s, k) => s + delta(a, b, k), 0);
  return {
    servingMs: delta(at0, at1, main),
    workerMs: others[0] ?? 0,
    otherMs: others.slice(1).reduce((s, x) => s + x, 0),
    firstHalfMs: sum(at0, mid),
    secondHalfMs: sum(mid, at1),
  };
}

/**
 * From the next poll's end until `pollsPerCluster` polls of each cluster have ended since: CPU, the API, RSS, the TAs'
 * requests; then the pages.
 */
async function measure(
  label: string,
  o: { replicas: Dashboard[]; watch: Watch; clusters: string[]; targets: Map<string, number>; pollsPerCluster: number; intervalS: number; peers: number[]; browser?: Browser; fleet?: boolean },
): Promise<Phase> {
  const { replicas, watch, clusters } = o;
  const t0 = await watch.nextPollEnd();
  const seen0 = Date.now();
  const cpu0 = replicas.map((r) => cpuOfTree(r.pid));
  const threads0 = replicas.map((r) => cpuOfThreads(r.pid));
  let threadsMid: Map<string, number>[] | undefined;
  const machine0 = machineTicks();
  const peers0 = o.peers.reduce((x, pid) => x + cpuOfTree(pid), 0);
  const latencies: number[] = [];
  let errors = 0;
  let sampling = true;
  const sampler = (async () => {
    for (let i = 0; sampling; i++) {
      const r = replicas[i % replicas.length];
      const t = performance.now();
      const res = await fetch(`${r.base}/api/v1/summary?cluster=${clusters[i % clusters.length]}`).catch(() => null);
      await res?.arrayBuffer();
      if (res?.status === 200) latencies.push(performance.now() - t);
      else errors++;
      await sleep(200);
    }
  })();
  const need = o.pollsPerCluster * clusters.length;
  const polledSince = () => clusters.reduce((s, c) => s + watch.endsIn(c, t0, Infinity), 0);
  log(`${label}: measuring until ${o.pollsPerCluster} polls of each of the ${clusters.length} cluster(s) end...`);
  await until(
    `${need} polls`,
    () => {
      const n = polledSince();
      if (!threadsMid && n >= need / 2) threadsMid = replicas.map((r) => cpuOfThreads(r.pid));
      return n >= need ? true : undefined;
    },
    (o.pollsPerCluster + 6) * o.intervalS * 2000,
    100,
  );
  const seen1 = Date.now();
  const cpu1 = replicas.map((r) => cpuOfTree(r.pid));
  const threads1 = replicas.map((r) => cpuOfThreads(r.pid));
  const cpuByReplica = replicas.map((r, i) => replicaCpu(r.pid, threads0[i], threadsMid?.[i] ?? threads1[i], threads1[i]));
  const machine1 = machineTicks();
  const peersCpuMs = o.peers.reduce((x, pid) => x + cpuOfTree(pid), 0) - peers0;
  const t1 = Math.max(...clusters.flatMap((c) => [...(watch.ends.get(c) ?? [])]));
  sampling = false;
  await sampler;
  const rssMiB = replicas.map((r) => mib(rssOfTree(r.pid)));
  const pollsOf = new Map(clusters.map((c) => [c, watch.endsIn(c, t0, t1)]));
  const polls = [...pollsOf.values()].reduce((a, b) => a + b, 0);
  const targetsPolled = clusters.reduce((s, c) => s + pollsOf.get(c)! * o.targets.get(c)!, 0);
  const cpuMs = cpu1.reduce((s, v, i) => s + v - cpu0[i], 0);
  const pollCpuMs = cpuByReplica.reduce((s, c) => s + c.workerMs, 0);
  // a reading after each poll's end: the window's readings are those asked from its start to a few seconds after its end
  await sleep(3000);
  const ta = taFigures(watch, clusters, seen0, seen1 + 2500, o.intervalS);
  const perPoll = Object.values(ta.perPoll);
  const perIntervalPolls = clusters.map((c) => (pollsOf.get(c)! * o.intervalS * 1000) / (t1 - t0));

  const overviewMs: number[] = [];
  const fleetMs: number[] = [];
  const loadContention: LoadContention[] = [];
  let fleetRows: number | null = null;
  let loads0 = NaN;
  // Next.js loads a page's server code at its first request after the server starts (about a second here): that first
  // render of each page on each replica is asked once here, its time kept apart, before the loads are timed
  const firstRenders: number[] = [];
  if (o.browser) {
    for (const r of replicas) {
      for (const url of [`${r.base}/?cluster=${clusters[0]}`, ...(o.fleet ? [`${r.base}/fleet`] : [])]) {
        const t = performance.now();
        await (await fetch(url)).arrayBuffer();
        firstRenders.push(performance.now() - t);
      }
    }
    log(`${label}: each page's first render on each replica (not timed below): ${firstRenders.map((x) => fmt(x)).join(", ")} ms`);
    // the delay the first renders caused is reported at the next scrape of each replica: the loads' readings come after it
    const rendered = Date.now();
    await watch.scrapedAfter(replicas.map((r) => r.base), rendered, "a scrape after the first renders");
    loads0 = Date.now();
    log(`${label}: ${LOADS} fresh loads of the overview (a cluster each, on each replica in turn)${o.fleet ? ` and ${LOADS} of the fleet page` : ""}...`);
    const browser = o.browser;
    /** a load, and what the machine did meanwhile: its busy cores, and how long the replicas' serving threads waited for one */
    const timed = async (url: string, selector: string, api: string) => {
      const m0 = machineTicks();
      const w0 = replicas.map((r) => runQueueWaitMs(r.pid));
      const p = await timeFirstPaint(browser, url, selector, { api });
      const m1 = machineTicks();
      const waited = replicas.reduce((s, r, i) => s + runQueueWaitMs(r.pid) - w0[i], 0);
      const busy = (m1.busy - m0.busy) / ((m1.busy + m1.idle - m0.busy - m0.idle) / os.availableParallelism());
      loadContention.push({ busyCores: busy, servingWaitedMs: waited });
      return { p, contention: `; meanwhile ${busy.toFixed(2)} of ${os.availableParallelism()} cores busy, the serving thread${replicas.length > 1 ? "s" : ""} waited ${fmt(waited)} ms for a core` };
    };
    for (let i = 0; i < LOADS; i++) {
      const r = replicas[i % replicas.length];
      const { p, contention } = await timed(`${r.base}/?cluster=${clusters[(i * 7) % clusters.length]}`, OVERVIEW_FIGURES, "/api/v1/summary");
      overviewMs.push(p.painted);
      log(`${label}: overview: ${phases(p)}${contention}`);
    }
    if (o.fleet) {
      for (let i = 0; i < LOADS; i++) {
        const { p, contention } = await timed(`${replicas[i % replicas.length].base}/fleet`, FIRST_ROW, "/api/v1/fleet");
        fleetMs.push(p.painted);
        log(`${label}: fleet page: ${phases(p)}${contention}`);
      }
      const f = (await (await fetch(`${replicas[0].base}/api/v1/fleet`)).json()) as { clusters: unknown[] };
      fleetRows = f.clusters.length;
    }
  }
  // the scrape after the last load reports on it
  const loads1 = Date.now();
  if (o.browser) await watch.scrapedAfter(replicas.map((r) => r.base), loads1, "a scrape after the loads");
  const lagMs = {
    window: replicas.map((r) => watch.worstLagMs(r.base, seen0, seen1 + WATCH_EVERY_MS)),
    loads: o.browser ? replicas.map((r) => watch.worstLagMs(r.base, loads0 + 1, loads1 + WATCH_EVERY_MS * 2)) : [],
  };
  log(`${label}: serving thread's worst event-loop delay seen by the bench's scrapes: window ${lagMs.window.map((x) => fmt(x)).join(" / ")} ms${o.browser ? `, page loads ${lagMs.loads.map((x) => fmt(x)).join(" / ")} ms` : ""}`);
  return {
    label,
    replicas: replicas.length,
    clusters: clusters.length,
    windowMs: t1 - t0,
    polls,
    targetsPolled,
    cpuMs,
    cpuUsPerTarget: (cpuMs * 1000) / targetsPolled,
    pollCpuMs,
    pollCpuUsPerTarget: (pollCpuMs * 1000) / targetsPolled,
    rssMiB,
    apiP95Ms: pct(latencies, 95),
    apiSamples: latencies.length,
    apiErrors: errors,
    ta,
    taPerInterval: Object.values(ta.perInterval).reduce((a, b) => a + b, 0),
    pollsPerClusterPerInterval: { min: Math.min(...perIntervalPolls), max: Math.max(...perIntervalPolls) },
    overviewMs,
    fleetMs,
    loadContention,
    fleetRows,
    firstRenders,
    machineCores: (machine1.busy - machine0.busy) / ((machine1.busy + machine1.idle - machine0.busy - machine0.idle) / os.availableParallelism()),
    peersCpuMs,
    cpuByReplica,
    lagMs,
    ...(perPoll.length < clusters.length ? { taReadingsMissing: clusters.length - perPoll.length } : {}),
  };
}

const phases = (p: FirstPaint) =>
  `first byte ${fmt(p.firstByte)} ms (server ${fmt(p.server)} ms), parsed ${fmt(p.parsed)} ms, committed ${fmt(p.committed)} ms, load ${fmt(p.loaded)} ms, API asked ${fmt(p.apiAsked)} ms, answered ${fmt(p.apiAnswered)} ms, first paint ${fmt(p.painted)} ms`;

/** The machine's busy and idle clock ticks so far, over every core (/proc/stat). */
function machineTicks(): { busy: number; idle: number } {
  const f = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const idle = f[3] + f[4];
  return { busy: f.slice(0, 8).reduce((a, b) => a + b, 0) - idle, idle };
}

/**
 * Each cluster's targets, read once every source of every cluster is ok at its last poll: a first poll cut off by its
 * deadline (many demos starting on a busy machine) has only part of the targets, and CPU per target would be divided
 * by too few.
 */
async function targetTotals(base: string, clusters: string[], timeoutMs = 180_000): Promise<Map<string, number>> {
  await until(
    "every source of every cluster ok at its last poll",
    async () => {
      for (const c of clusters) {
        const s = (await (await fetch(`${base}/api/v1/summary?cluster=${c}`)).json()) as { sources?: { state: string }[] };
        if (!s.sources?.length || s.sources.some((x) => x.state !== "ok")) return undefined;
      }
      return true;
    },
    timeoutMs,
    1000,
  );
  const out = new Map<string, number>();
  for (const c of clusters) {
    const body = (await (await fetch(`${base}/api/v1/targets?cluster=${c}&limit=1`)).json()) as { total: number };
    out.set(c, body.total);
  }
  return out;
}

function taClients(configFile: string, cluster: string): TaHttp[] {
  const c = loadConfigFile(configFile).clusters[0];
  return ROLES.filter((r) => c.targetAllocators[r]).map((r: Role) => new TaHttp(`bench/${cluster}/${r}`, c.targetAllocators[r]!));
}

export interface ClustersBench {
  clusters: number;
  nodes: number;
  intervalS: number;
  single: Phase;
  one: Phase;
  two: Phase;
  /** from the second replica's start to N/2 clusters each (ms) */
  balancedAfterMs: number;
  /** N clusters' worth: the sum of one poll's requests of each, as measured with one replica */
  worth: number;
  /** `pass` absent: a figure shown beside the targets, not judged */
  targets: { name: string; shown: string; target: string; pass?: boolean }[];
  pass: boolean;
}

/**
 * `profile`: a folder for V8 CPU profiles of the one cluster's dashboard and of the first replica (every thread);
 * `hold`: given the figures, then everything is kept running until SIGINT or SIGTERM.
 */
export async function benchClusters(o: { clusters: number; nodes: number; pollsPerCluster: number; intervalS: number; profile?: string; hold?: (r: ClustersBench) => void }): Promise<ClustersBench> {
  if (!fs.existsSync(PROMETHEUS)) throw new Error(`${PROMETHEUS} is missing: install Debian's "prometheus" package (apt-get install -y prometheus)`);
  buildIfMissing(log);
  const dir = runDir("allocation-lens-bench-clusters-");
  const tas: TaHttp[] = [];
  let prom: ChildProcess | undefined;
  let browser: Browser | undefined;
  const watches: Watch[] = [];
  const demoArgs = (nodes: number, seed: number, where: string) => ["--nodes", String(nodes), "--poll-interval", String(o.intervalS), "--dir", where, "--strategy", "per-node", "--fallback", "none", "--seed", String(seed)];
  try {
    browser = await launchChromium();
    await warmChromium(browser);

    // 1. the one cluster as large as all of them
    const total = o.clusters * o.nodes;
    log(`one cluster of ${total} nodes: starting the demo...`);
    const big = await startDemo(demoArgs(total, 1, path.join(dir, "single")));
    const profile = (name: string) => (o.profile ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(o.profile, name)] : []);
    const singleDash = startDashboard({ config: big.info.dashboardConfig, port: await freePort(), nodeArgs: profile("single") });
    await waitReady(singleDash, 30 * 60_000);
    const singleTas = taClients(big.info.dashboardConfig, "demo");
    tas.push(...singleTas);
    const singleWatch = new Watch(() => [singleDash], new Map([["demo", singleTas]]));
    watches.push(singleWatch);
    const singleTargets = await targetTotals(singleDash.base, ["demo"]);
    log(`one cluster of ${total} nodes: ${singleTargets.get("demo")} targets`);
    const single = await measure(`one cluster of ${total} nodes`, { replicas: [singleDash], watch: singleWatch, clusters: ["demo"], targets: singleTargets, pollsPerCluster: o.pollsPerCluster * SINGLE_POLLS_FACTOR, intervalS: o.intervalS, peers: [big.child.pid!], browser });
    await singleWatch.stop();
    await singleDash.stop();
    await big.stop();

    // 2. N clusters, a quarter of them started at a time
    log(`${o.clusters} clusters of ${o.nodes} nodes: starting the demos...`);
    const demos: LaunchedDemo[] = [];
    for (let i = 0; i < o.clusters; i += 4) {
      demos.push(...(await Promise.all(Array.from({ length: Math.min(4, o.clusters - i) }, (_, k) => startDemo(demoArgs(o.nodes, 101 + i + k, path.join(dir, clusterName(i + k))))))));
    }
    const names = demos.map((_, i) => clusterName(i));
    const peers = demos.map((d) => d.child.pid!);
    const clusterConfigs = demos.map((d, i) => ({ ...YAML.parse(fs.readFileSync(d.info.dashboardConfig, "utf8")).clusters[0], name: names[i] }));
    const clusterTas = new Map(demos.map((d, i) => [names[i], taClients(d.info.dashboardConfig, names[i])]));
    for (const t of clusterTas.values()) tas.push(...t);

    const ports = await Promise.all(REPLICAS.map(() => freePort()));
    const promPort = await freePort();
    const promConfig = path.join(dir, "prometheus.yml");
    fs.writeFileSync(
      promConfig,
      YAML.stringify({ global: { scrape_interval: "5s", evaluation_interval: "5s" }, scrape_configs: [{ job_name: "allocation-lens", honor_labels: true, static_configs: [{ targets: ports.map((p) => `127.0.0.1:${p}`) }] }] }),
    );
    prom = track(spawn(PROMETHEUS, [`--config.file=${promConfig}`, `--storage.tsdb.path=${path.join(dir, "tsdb")}`, `--web.listen-address=127.0.0.1:${promPort}`], { stdio: ["ignore", "ignore", "ignore"] }));
    const promUrl = `http://127.0.0.1:${promPort}`;
    await waitForHttp(`${promUrl}/-/ready`, { timeoutMs: 60_000, child: prom, what: "Prometheus" });

    const tokenFile = path.join(dir, "peer-token");
    fs.writeFileSync(tokenFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
    const configOf = (replica: string) => {
      const file = path.join(dir, `${replica}.yaml`);
      fs.writeFileSync(
        file,
        YAML.stringify({
          clusters: clusterConfigs,
          history: { path: path.join(dir, `${replica}.sqlite`) },
          lease: { ...LEASE, peerTokenFile: tokenFile, kubernetes: clusterConfigs[0].kubernetes },
          fleet: { prometheus: { url: promUrl }, refreshSeconds: 5, staleAfterSeconds: 60 },
        }),
      );
      return file;
    };
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(demos[0].info.kubeconfig);
    const leases = kc.makeApiClient(k8s.CoordinationV1Api);
    const holders = async () => {
      const list = await leases.listNamespacedLease({ namespace: LEASE.namespace });
      const out = new Map<string, string | null>(names.map((n) => [n, null]));
      for (const l of list.items) {
        const cluster = l.metadata?.name?.slice(LEASE.name.length + 1);
        if (cluster && out.has(cluster)) out.set(cluster, l.spec?.holderIdentity ?? null);
      }
      return out;
    };
    const held = async (replica: string) => [...(await holders()).values()].filter((h) => h === replica).length;

    const running: Dashboard[] = [];
    const watch = new Watch(() => running, clusterTas);
    watches.push(watch);
    log(`one replica (${REPLICAS[0]}) on the ${o.clusters} clusters...`);
    const a = startDashboard({ config: configOf(REPLICAS[0]), port: ports[0], env: { POD_NAME: REPLICAS[0] }, nodeArgs: profile(REPLICAS[0]) });
    running.push(a);
    await waitReady(a, 10 * 60_000);
    await until(`${REPLICAS[0]} holding every cluster's Lease`, async () => ((await held(REPLICAS[0])) === o.clusters ? true : undefined), 120_000, 500);
    const targets = await targetTotals(a.base, names);
    log(`${o.clusters} clusters: ${[...targets.values()].reduce((x, y) => x + y, 0)} targets (${[...targets.values()].join(", ")})`);
    await until(`the fleet answer with the ${o.clusters} clusters`, async () => {
      const f = (await (await fetch(`${a.base}/api/v1/fleet`)).json().catch(() => null)) as { clusters?: unknown[] } | null;
      return f?.clusters?.length === o.clusters ? true : undefined;
    }, 120_000, 1000);
    const one = await measure(`one replica, ${o.clusters} clusters`, { replicas: [a], watch, clusters: names, targets, pollsPerCluster: o.pollsPerCluster, intervalS: o.intervalS, peers, browser, fleet: true });

    // 3. a second replica beside it
    log(`a second replica (${REPLICAS[1]}) beside it...`);
    const startedAt = Date.now();
    const b = startDashboard({ config: configOf(REPLICAS[1]), port: ports[1], env: { POD_NAME: REPLICAS[1] } });
    running.push(b);
    await waitReady(b, 10 * 60_000);
    const half = Math.ceil(o.clusters / 2);
    await until(
      `${o.clusters} clusters shared out over two replicas`,
      async () => {
        const h = [...(await holders()).values()];
        return h.every((x) => x !== null) && REPLICAS.every((r) => h.filter((x) => x === r).length <= half) ? true : undefined;
      },
      300_000,
      250,
    );
    const balancedAfterMs = Date.now() - startedAt;
    const balancedAt = Date.now();
    // the window starts once every cluster has been polled twice by its holder since the balance: a cluster's first polls
    // by a new holder build its state there (the history's first rows, code still compiling), a cost of the hand-over, not
    // of polling; the halves of the window (printed per replica) show whether a replica was still warming up
    log(`shared out ${(await held(REPLICAS[0]))} / ${await held(REPLICAS[1])} after ${(balancedAfterMs / 1000).toFixed(1)} s; waiting for two polls of every cluster by its new holder...`);
    await until("two polls of every cluster since", () => (names.every((c) => watch.endsIn(c, balancedAt, Infinity) >= 2) ? true : undefined), 6 * o.intervalS * 1000, 250);
    // then until both replicas' CPU has settled: two poll intervals in a row within 10 % of each other (the new replica's
    // heap grows to its share, the old one collects what it handed over); at most 12 intervals, said when it did not
    const settle = await settledCpu([a, b], o.intervalS * 1000, 0.1, 12);
    log(`two replicas' CPU per poll interval since: ${settle.perInterval.map((x) => `${fmt(x / 1000, 1)} s`).join(", ")} (${settle.settled ? "settled" : "not settled"} ${fmt((Date.now() - balancedAt) / 1000, 1)} s after the balance)`);
    const two = await measure(`two replicas, ${o.clusters} clusters`, { replicas: [a, b], watch, clusters: names, targets, pollsPerCluster: o.pollsPerCluster, intervalS: o.intervalS, peers, browser, fleet: true });

    const worth = Object.values(one.ta.perPoll).reduce((x, y) => x + y, 0);
    const r: Omit<ClustersBench, "targets" | "pass"> = { clusters: o.clusters, nodes: o.nodes, intervalS: o.intervalS, single, one, two, balancedAfterMs, worth };
    const targetsJudged = judge(r);
    const result = { ...r, targets: targetsJudged, pass: targetsJudged.every((t) => t.pass !== false) };
    if (o.hold) {
      o.hold(result);
      log(`holding (Ctrl-C ends): ${REPLICAS.map((n, i) => `${n} ${[a, b][i].base} (pid ${[a, b][i].pid})`).join(", ")}; Prometheus ${promUrl}; demos' kubeconfigs under ${dir}`);
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
    }
    return result;
  } finally {
    for (const w of watches) await w.stop();
    for (const t of tas) t.close();
    await browser?.close();
    prom?.kill("SIGTERM");
    await stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (x: number, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

function judge(r: Omit<ClustersBench, "targets" | "pass">): ClustersBench["targets"] {
  const T = CLUSTERS_TARGETS;
  const out: ClustersBench["targets"] = [];
  const against = (x: number, y: number) => `${fmt(x, 1)} µs against ${fmt(y, 1)} µs (${x >= y ? "+" : ""}${fmt((x / y - 1) * 100)} %)`;
  for (const p of [r.one, r.two]) {
    const spread = p.pollCpuUsPerTarget / r.single.pollCpuUsPerTarget - 1;
    out.push({
      name: `poll CPU per target, ${p.label}`,
      shown: against(p.pollCpuUsPerTarget, r.single.pollCpuUsPerTarget),
      target: `within ${T.cpuPerTargetSpread * 100} % of one cluster's`,
      pass: Math.abs(spread) <= T.cpuPerTargetSpread,
    });
    out.push({ name: `CPU per target, every thread, ${p.label}`, shown: against(p.cpuUsPerTarget, r.single.cpuUsPerTarget), target: "shown, not judged" });
  }
  out.push({ name: `RSS, ${r.one.label}`, shown: `${fmt(r.one.rssMiB[0])} MiB`, target: `<= ${T.rssOneMiB} MiB`, pass: r.one.rssMiB[0] <= T.rssOneMiB });
  out.push({ name: `RSS of each, ${r.two.label}`, shown: r.two.rssMiB.map((x) => `${fmt(x)} MiB`).join(" / "), target: `<= ${T.rssEachOfTwoMiB} MiB each`, pass: r.two.rssMiB.every((x) => x <= T.rssEachOfTwoMiB) });
  for (const p of [r.one, r.two]) {
    out.push({ name: `API p95 while polling, ${p.label}`, shown: `${fmt(p.apiP95Ms)} ms (${p.apiSamples} samples${p.apiErrors ? `, ${p.apiErrors} errors` : ""})`, target: `<= ${T.apiP95Ms} ms, no errors`, pass: p.apiP95Ms <= T.apiP95Ms && p.apiErrors === 0 });
    out.push({ name: `overview first paint, ${p.label}`, shown: `worst ${fmt(Math.max(...p.overviewMs))} ms (median ${fmt(pct(p.overviewMs, 50))})`, target: `<= ${T.firstPaintMs} ms`, pass: Math.max(...p.overviewMs) <= T.firstPaintMs });
    out.push({
      name: `fleet page first paint, ${p.label}`,
      shown: `worst ${fmt(Math.max(...p.fleetMs))} ms (median ${fmt(pct(p.fleetMs, 50))}; ${p.fleetRows} rows)`,
      target: `<= ${T.firstPaintMs} ms, ${r.clusters} rows`,
      pass: Math.max(...p.fleetMs) <= T.firstPaintMs && p.fleetRows === r.clusters,
    });
    const ratio = p.taPerInterval / r.worth;
    out.push({
      name: `TA requests per poll interval, ${p.label}`,
      shown: `${fmt(p.taPerInterval)} (${r.clusters} clusters' worth: ${fmt(r.worth)}; x${fmt(ratio, 3)})`,
      target: `${r.clusters} clusters' worth, within ${T.taRequestsTolerance * 100} %`,
      pass: Object.keys(p.ta.perInterval).length === r.clusters && Math.abs(ratio - 1) <= T.taRequestsTolerance,
    });
  }
  return out;
}

/** The figures as the bench prints them: each phase, the targets with PASS or FAIL, then one JSON line. */
export function printClusters(r: ClustersBench): void {
  console.log(`\n${r.clusters} clusters of ${r.nodes} nodes against one cluster of ${r.clusters * r.nodes} nodes (polled every ${r.intervalS} s; per target polled: poll CPU, the poll worker threads', judged; CPU, every thread of the dashboard processes, shown)`);
  const rows = [["", "targets", "polls", "window", "poll CPU", "poll CPU/target", "CPU", "CPU/target", "RSS", "API p95", "TA requests/poll", "TA requests/interval", "polls/interval", "demos' CPU", "machine busy"]];
  for (const p of [r.single, r.one, r.two]) {
    const perPoll = Object.values(p.ta.perPoll);
    rows.push([
      p.label,
      String(p.targetsPolled / Math.max(1, p.polls) | 0) + (p.clusters > 1 ? " avg" : ""),
      String(p.polls),
      `${fmt(p.windowMs / 1000, 1)} s`,
      `${fmt(p.pollCpuMs / 1000, 1)} s`,
      `${fmt(p.pollCpuUsPerTarget, 1)} µs`,
      `${fmt(p.cpuMs / 1000, 1)} s`,
      `${fmt(p.cpuUsPerTarget, 1)} µs`,
      p.rssMiB.map((x) => `${fmt(x)} MiB`).join(" / "),
      `${fmt(p.apiP95Ms)} ms`,
      perPoll.length > 1 ? `${fmt(Math.min(...perPoll), 1)}-${fmt(Math.max(...perPoll), 1)} per cluster` : fmt(perPoll[0] ?? NaN, 1),
      fmt(p.taPerInterval, 1),
      `${fmt(p.pollsPerClusterPerInterval.min, 2)}-${fmt(p.pollsPerClusterPerInterval.max, 2)}`,
      `${fmt(p.peersCpuMs / 1000, 1)} s`,
      `${fmt(p.machineCores, 2)} of ${os.availableParallelism()} cores`,
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((x) => x[i].length)));
  for (const x of rows) console.log(x.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd());
  for (const p of [r.single, r.one, r.two]) {
    const each = p.cpuByReplica.map((c, i) => `${p.replicas > 1 ? `${REPLICAS[i]}: ` : ""}serving ${fmt(c.servingMs / 1000, 1)} s, poll worker ${fmt(c.workerMs / 1000, 1)} s, other threads ${fmt(c.otherMs / 1000, 1)} s (halves ${fmt(c.firstHalfMs / 1000, 1)} / ${fmt(c.secondHalfMs / 1000, 1)} s)`);
    console.log(`CPU by thread, ${p.label}: ${each.join("; ")}`);
  }
  for (const p of [r.single, r.one, r.two]) {
    if (!p.loadContention.length) continue;
    const busy = p.loadContention.map((c) => c.busyCores);
    const waited = p.loadContention.map((c) => c.servingWaitedMs);
    console.log(
      `page loads, ${p.label}: ${fmt(Math.min(...busy), 2)} to ${fmt(Math.max(...busy), 2)} of ${os.availableParallelism()} cores busy during them (${fmt(p.machineCores, 2)} over the window); ` +
        `the serving thread${p.replicas > 1 ? "s" : ""} waited for a core ${fmt(pct(waited, 50))} ms (median of ${waited.length} loads), ${fmt(Math.max(...waited))} ms at worst`,
    );
  }
  console.log(`the second replica's start to ${Math.ceil(r.clusters / 2)} clusters each: ${fmt(r.balancedAfterMs / 1000, 1)} s`);
  console.log("\nTargets");
  for (const t of r.targets) console.log(`${t.pass === undefined ? "    " : t.pass ? "PASS" : "FAIL"}  ${t.name.padEnd(52)} ${t.shown.padEnd(52)} ${t.target}`);
  console.log(JSON.stringify({ manyClusters: r }));
}
