/**
 * `npm run attack`: hostile clients and a hostile Target Allocator against the built dashboard, on 127.0.0.1 only.
 *
 * Needs a build (`npm run build`). Starts the demo cluster (24 nodes, 5 s polls) and the built dashboard (`next start -H
 * 127.0.0.1`) with two clusters: `demo`, and `hostile`, whose per-node TA is an HTTP server run here (it first replays the
 * demo TA's answers, read with the demo's client certificates, then misbehaves per attack) and whose Kubernetes is the
 * demo's. Other dashboard instances are started for the attacks that need another configuration (E, H, I), one at a time.
 *
 * Each attack runs for a bounded time while a worker thread (scripts/attack-monitor.mts) plays a legitimate client (the
 * summary of the demo cluster every 200 ms) and samples the resident memory of the attacked server's process tree every
 * 200 ms. After it: is the server up (healthz), does the demo cluster still show its targets, does the last hour of churn
 * history still hold its readiness events and polls. Prints one row per attack, then one JSON line; exits 1 when a target is
 * missed. Targets: up, peak RSS <= 1 GiB, legitimate p95 <= 250 ms with no failed request, nothing lost, and each attack's
 * own expectation (see docs/security.md, "Attack suite").
 *
 * Options: --only A,C,F (a subset), --nodes N (demo size, default 24), --keep (keep the temporary directory with the
 * servers' logs), --help (the usage, without starting anything).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import YAML from "yaml";
import { loadConfigFile } from "@/server/config";
import { TaHttp } from "@/server/ta/http";
import { jobTargetsPath } from "@/server/ta/client";
import { freePort, hasBuild, parseCommandLine, pct, startDashboard, startDemo, stopAll, waitReady, type Dashboard } from "./harness.mts";

const USAGE = `usage: npm run attack -- [options]
  --only A,C,F   run these attacks only (letters as in docs/security.md, "Attack suite")
  --nodes N      the demo cluster's size (default 24)
  --keep         keep the temporary directory with the servers' logs and configurations
  --help         this text
Needs a build (npm run build). Exits 1 when an attack misses a target.`;

const values = parseCommandLine({ only: { type: "string" }, nodes: { type: "string" }, keep: { type: "boolean" }, help: { type: "boolean" } }, USAGE);
const ONLY = values.only ? new Set(values.only.toUpperCase().split(",").map((s) => s.trim())) : null;
const NODES = Number(values.nodes ?? 24);
const POLL_S = 5;
const TA_TIMEOUT_S = 5;
/** F, G: the hostile cluster's snapshot may be at most this old (one interval plus twice the TA timeout) */
/** the hostile TA's deadline for one poll (targetAllocators.<role>.pollTimeoutSeconds) */
const POLL_TIMEOUT_S = 8;
/** a poll of the hostile TA ends by its deadline: its snapshot is at most an interval, that deadline and 2 s of slack old */
const MAX_SNAPSHOT_AGE_S = POLL_S + POLL_TIMEOUT_S + 2;
const TARGETS = { rssBytes: 2 ** 30, p95Ms: 250, uploadCutS: 6 };
const PASSWORD = "S3cretPa55";
const HEADER_SECRET = "hdr-S3cretHdr99";

const started = Date.now();
const log = (m: string) => console.error(`[attack ${((Date.now() - started) / 1000).toFixed(0)} s] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const elapsedS = (t0: number) => (performance.now() - t0) / 1000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-attack-"));

// ---------------------------------------------------------------------------------------------------------------------
// Small HTTP helpers (every request bounded in time)

async function getJson(url: string, init: RequestInit = {}, timeoutMs = 5_000): Promise<{ status: number; body: unknown; ms: number; text: string }> {
  const t = performance.now();
  try {
    const r = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await r.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: r.status, body, ms: performance.now() - t, text };
  } catch (e) {
    return { status: 0, body: null, ms: performance.now() - t, text: String((e as Error).message) };
  }
}

/** The attacker's source address: another loopback address than the legitimate client's 127.0.0.1, so another client. */
const ATTACKER = "127.0.0.2";

/** A GET sent from `localAddress` (a loopback address other than 127.0.0.1: another client as far as the server can tell). */
function getFrom(localAddress: string, url: string, headers: Record<string, string>, timeoutMs = 5_000): Promise<{ status: number; ms: number }> {
  const t = performance.now();
  return new Promise((resolve) => {
    const req = http.get(url, { headers, localAddress, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t }));
      res.on("error", () => resolve({ status: 0, ms: performance.now() - t }));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve({ status: 0, ms: performance.now() - t }));
  });
}

interface Instance {
  name: string;
  d: Dashboard;
  headers: Record<string, string>;
}

type Summary = { at: number; roles: Record<string, { targets: number }>; stale: { source: string; state: string; error: { kind: string; message: string } | null }[] };

async function summaryOf(inst: Instance, cluster: string): Promise<Summary | null> {
  const r = await getJson(`${inst.d.base}/api/v1/summary?cluster=${cluster}`, { headers: inst.headers });
  return r.status === 200 ? (r.body as Summary) : null;
}
const targetsOf = (s: Summary | null) => (s ? Object.values(s.roles).reduce((n, r) => n + (r?.targets ?? 0), 0) : 0);

type Churn = { eventsInRange: number; series: { ghosts: number | null; unassigned: number | null; localityRatio: Record<string, number | null> }[] };

async function historyOf(inst: Instance, cluster: string): Promise<{ events: number; polls: number } | null> {
  // From a minute before this run (well within the last hour) to now, in buckets of a fraction of a second: one poll per
  // non-empty bucket, and a count that only grows while nothing is lost.
  const r = await getJson(`${inst.d.base}/api/v1/churn?cluster=${cluster}&from=${started - 60_000}&to=${Date.now()}&buckets=1000&source=local`, { headers: inst.headers }, 10_000);
  if (r.status !== 200) return null;
  const c = r.body as Churn;
  const polls = c.series.filter((p) => p.ghosts !== null || p.unassigned !== null || Object.values(p.localityRatio ?? {}).some((v) => v !== null)).length;
  return { events: c.eventsInRange, polls };
}

async function healthy(inst: Instance): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    const r = await getJson(`${inst.d.base}/api/healthz`, {}, 5_000);
    if (r.status === 200) return true;
    await sleep(500);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------------------
// The observer (a worker thread): legitimate client and RSS sampler

// A worker thread does not inherit the tsx loader: it registers it, then loads the TypeScript module.
const monitor = new Worker(`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL("./attack-monitor.mts", import.meta.url).href)}); });`, { eval: true });
monitor.unref();
type Observed = { latencies: number[]; statuses: Record<string, number>; errors: number; peakRss: number };
function observe(inst: Instance, pid = inst.d.pid): { stop(): Promise<Observed> } {
  monitor.postMessage({ cmd: "start", url: `${inst.d.base}/api/v1/summary?cluster=demo`, headers: inst.headers, pid });
  return {
    stop: () =>
      new Promise<Observed>((resolve) => {
        monitor.once("message", (m: Observed) => resolve(m));
        monitor.postMessage({ cmd: "stop" });
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Raw-socket clients: a slow upload, a header dribbler

interface UploadResult {
  status: number | null;
  /** seconds from the start to the first byte of an answer */
  answeredS: number | null;
  /** seconds from the start to the server closing or resetting the connection */
  closedS: number | null;
  /** the server stopped reading (or closed): seconds from the start, null when it read to the end of the run */
  cutS: number | null;
  /** body bytes handed to the kernel (includes what the socket buffers on both sides hold, a few MB on loopback) */
  acceptedBytes: number;
}

const CHUNK = Buffer.alloc(256 * 1024, "x");

/** Announces a 2 GB body and sends 256 kB every 100 ms for `durationMs`. */
function slowUpload(port: number, method: string, p: string, headers: Record<string, string>, durationMs: number): Promise<UploadResult> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const s = net.connect(port, "127.0.0.1");
    let status: number | null = null;
    let answeredS: number | null = null;
    let closedS: number | null = null;
    let accepted = 0;
    let lastAcceptS = 0;
    let head = "";
    let finished = false;
    let timer: NodeJS.Timeout | undefined;
    const stopAt = setTimeout(() => finish(), durationMs);
    const finish = () => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      clearTimeout(stopAt);
      const now = elapsedS(t0);
      s.destroy();
      const stalled = closedS === null && now - lastAcceptS >= 2;
      resolve({ status, answeredS, closedS, cutS: closedS ?? (stalled ? lastAcceptS : null), acceptedBytes: accepted });
    };
    s.on("connect", () => {
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
      s.write(`${method} ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 2147483648\r\n${extra}\r\n`);
      timer = setInterval(() => {
        if (s.destroyed || !s.writable || s.writableLength > CHUNK.length) return;
        s.write(CHUNK, (err) => {
          if (err) return;
          accepted += CHUNK.length;
          lastAcceptS = elapsedS(t0);
        });
      }, 100);
    });
    s.on("data", (d: Buffer) => {
      answeredS ??= elapsedS(t0);
      if (status === null && head.length < 256) {
        head += d.toString("latin1");
        const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
        if (m) status = Number(m[1]);
      }
    });
    const closed = () => {
      closedS ??= elapsedS(t0);
      finish();
    };
    s.on("end", closed);
    s.on("close", closed);
    s.on("error", closed);
  });
}

const fmtUpload = (u: UploadResult) =>
  `${u.status ?? "no answer"}${u.answeredS !== null ? ` at ${u.answeredS.toFixed(1)} s` : ""}, read ${u.cutS === null ? "to the end" : `${u.cutS.toFixed(1)} s`}, ${(u.acceptedBytes / 2 ** 20).toFixed(1)} MiB accepted${u.closedS !== null ? `, closed at ${u.closedS.toFixed(1)} s` : ", still open"}`;

// ---------------------------------------------------------------------------------------------------------------------
// The hostile Target Allocator

type Mode = "good" | "dribble" | "huge-job" | "huge-jobs";
type Recorded = { status: number; body: Buffer; contentType: string };

class HostileTa {
  mode: Mode = "good";
  requests = 0;
  hugeStarted = 0;
  /** bytes of each huge answer written before it ended or the client went away, and whether it was cut */
  hugeAnswers: { bytes: number; cut: boolean }[] = [];
  private readonly long = new Set<http.ServerResponse>();
  private readonly server: http.Server;
  private jobsList: Buffer | null = null;
  url = "";

  constructor(
    private readonly recorded: Map<string, Recorded>,
    private readonly firstJobPath: string,
    private readonly sample: { collector: string; item: string; address: string },
  ) {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  async listen(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  setMode(m: Mode): void {
    for (const res of this.long) res.destroy();
    this.long.clear();
    this.mode = m;
    this.requests = 0;
  }

  close(): Promise<void> {
    this.setMode("good");
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.requests++;
    const p = req.url ?? "/";
    const isJob = /^\/jobs\/[^/]+\/targets$/.test(p);
    if (this.mode === "dribble" && isJob) return this.dribble(res, this.recorded.get(p)?.body ?? Buffer.from("{}"));
    if (this.mode === "huge-job" && p === this.firstJobPath) return void this.huge(res);
    if (this.mode === "huge-jobs") {
      if (p === "/jobs") return this.send(res, { status: 200, body: this.millionJobs(), contentType: "application/json" });
      if (isJob && !this.recorded.has(p)) return this.send(res, { status: 200, body: Buffer.from("{}"), contentType: "application/json" });
    }
    const r = this.recorded.get(p);
    if (r) return this.send(res, r);
    this.send(res, { status: 404, body: Buffer.from("404 page not found\n"), contentType: "text/plain" });
  }

  private send(res: http.ServerResponse, r: Recorded): void {
    res.writeHead(r.status, { "Content-Type": r.contentType, "Content-Length": r.body.length });
    res.end(r.body);
  }

  /** Headers at once, then one byte of a good answer every 2 s (ended by setMode, at most 60 s). */
  private dribble(res: http.ServerResponse, body: Buffer): void {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.flushHeaders();
    this.long.add(res);
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed || i >= body.length) return void clearInterval(timer);
      res.write(body.subarray(i, i + 1));
      i++;
    }, 2_000);
    const cap = setTimeout(() => res.destroy(), 60_000);
    res.on("close", () => {
      clearInterval(timer);
      clearTimeout(cap);
      this.long.delete(res);
    });
  }

  /** A 200 MB pretty-printed answer (chunked, no Content-Length), written as fast as the client reads it. */
  private async huge(res: http.ServerResponse): Promise<void> {
    const TOTAL = 200_000_000;
    this.hugeStarted++;
    const record = { bytes: 0, cut: false };
    this.hugeAnswers.push(record);
    this.long.add(res);
    let gone = false;
    res.on("close", () => {
      gone = true;
      this.long.delete(res);
      if (!res.writableFinished) record.cut = true;
    });
    res.writeHead(200, { "Content-Type": "application/json" });
    const write = async (s: string) => {
      record.bytes += Buffer.byteLength(s);
      if (res.write(s)) return;
      await new Promise<void>((r) => {
        const go = () => {
          res.off("drain", go);
          res.off("close", go);
          r();
        };
        res.on("drain", go);
        res.on("close", go);
      });
    };
    await write(`{\n  ${JSON.stringify(this.sample.collector)}: {\n    "_link": "/jobs/x/targets?collector_id=x",\n    "targets": [\n`);
    let n = 0;
    while (!gone && record.bytes < TOTAL) {
      const parts: string[] = [];
      for (let k = 0; k < 2_000; k++, n++) {
        const addr = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}:9100`;
        parts.push((n ? ",\n" : "") + this.sample.item.split(this.sample.address).join(addr));
      }
      await write(parts.join(""));
    }
    if (!gone) {
      await write("\n    ]\n  }\n}\n");
      res.end();
    }
  }

  private millionJobs(): Buffer {
    if (!this.jobsList) {
      const parts: string[] = [];
      for (let i = 0; i < 1_000_000; i++) {
        const job = `job-${String(i).padStart(7, "0")}`;
        parts.push(`${JSON.stringify(job)}:{"_link":"/jobs/${job}/targets"}`);
      }
      this.jobsList = Buffer.from(`{${parts.join(",")}}`);
    }
    return this.jobsList;
  }
}

/** Every answer of the demo's per-node TA that the dashboard reads, fetched with the demo's client certificates. */
async function recordTa(demoConfigFile: string): Promise<{ recorded: Map<string, Recorded>; firstJobPath: string; sample: { collector: string; item: string; address: string } }> {
  const ta = loadConfigFile(demoConfigFile).clusters[0].targetAllocators["per-node"]!;
  const h = new TaHttp("attack/per-node", ta);
  const recorded = new Map<string, Recorded>();
  const get = async (p: string) => {
    const r = await h.get(p);
    recorded.set(p, { status: r.status, body: r.body, contentType: r.contentType || "application/json" });
    return r;
  };
  try {
    await get("/readyz");
    const jobs = Object.keys(JSON.parse((await get("/jobs")).body.toString("utf8"))).sort();
    for (const job of jobs) await get(jobTargetsPath(job));
    await get("/metrics");
    await get("/scrape_configs").catch(() => {});
    const firstJobPath = jobTargetsPath(jobs[0]);
    // a target item with labels, pretty-printed as a TA would at 6 spaces of indentation, for the huge answer
    let sample = { collector: "cloudwatch-agent-x", item: '      {\n        "targets": [\n          "10.0.0.1:9100"\n        ],\n        "labels": {}\n      }', address: "10.0.0.1:9100" };
    for (const job of jobs) {
      const answer = JSON.parse(recorded.get(jobTargetsPath(job))!.body.toString("utf8")) as Record<string, { targets: { targets: string[]; labels: Record<string, string> }[] }>;
      const found = Object.entries(answer).find(([, v]) => v.targets?.some((t) => Object.keys(t.labels ?? {}).length > 3));
      if (found) {
        const item = found[1].targets.find((t) => Object.keys(t.labels ?? {}).length > 3)!;
        const text = JSON.stringify(item, null, 2).split("\n").map((l) => `      ${l}`).join("\n");
        sample = { collector: found[0], item: text, address: item.targets[0] };
        break;
      }
    }
    return { recorded, firstJobPath, sample };
  } finally {
    h.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Rows

interface Row {
  attack: string;
  instance: string;
  up: boolean;
  peakRssMiB: number;
  legitP95Ms: number;
  legitRequests: number;
  legitErrors: number;
  dataKept: boolean;
  historyKept: boolean;
  figure: string;
  /** the attack's own expectations: name -> met */
  checks: Record<string, boolean>;
  details: unknown;
  seconds: number;
  pass: boolean;
  error?: string;
}

const rows: Row[] = [];

interface Outcome {
  figure: string;
  checks: Record<string, boolean>;
  details?: unknown;
  /** overrides of the generic checks (H: the instance is expected to refuse to start) */
  up?: boolean;
  dataKept?: boolean;
  historyKept?: boolean;
}

/**
 * Runs one attack against `inst`, observed all along, then checks the server is up and nothing was lost (the demo
 * cluster's targets, the last hour of history; `extraKept` for the hostile cluster's).
 */
async function attack(name: string, inst: Instance, fn: () => Promise<Outcome>, opts: { pid?: () => number } = {}): Promise<void> {
  if (ONLY && !ONLY.has(name[0]) && name[0] !== "0") return;
  log(`${name}...`);
  const t0 = performance.now();
  const beforeTargets = targetsOf(await summaryOf(inst, "demo"));
  const beforeHistory = await historyOf(inst, "demo");
  const obs = observe(inst, opts.pid?.());
  let out: Outcome;
  let error: string | undefined;
  try {
    out = await fn();
  } catch (e) {
    error = (e as Error).stack ?? String(e);
    out = { figure: `attack failed: ${(e as Error).message}`, checks: { "attack ran": false } };
  }
  const o = await obs.stop();
  const up = out.up ?? (await healthy(inst));
  const afterTargets = targetsOf(await summaryOf(inst, "demo"));
  const afterHistory = await historyOf(inst, "demo");
  const dataKept = out.dataKept ?? (beforeTargets > 0 && afterTargets >= 0.9 * beforeTargets);
  const historyKept = out.historyKept ?? (beforeHistory !== null && afterHistory !== null && afterHistory.events >= beforeHistory.events && afterHistory.polls >= beforeHistory.polls);
  const row: Row = {
    attack: name,
    instance: inst.name,
    up,
    peakRssMiB: Math.round(o.peakRss / 2 ** 20),
    legitP95Ms: Math.round(pct(o.latencies, 95)),
    legitRequests: o.latencies.length,
    legitErrors: o.errors,
    dataKept,
    historyKept,
    figure: out.figure,
    checks: out.checks,
    details: { ...(out.details as object), targets: { before: beforeTargets, after: afterTargets }, history: { before: beforeHistory, after: afterHistory }, legitStatuses: o.statuses },
    seconds: Math.round(elapsedS(t0)),
    pass: false,
    ...(error ? { error } : {}),
  };
  row.pass =
    row.up &&
    o.peakRss <= TARGETS.rssBytes &&
    row.legitP95Ms <= TARGETS.p95Ms &&
    row.legitErrors === 0 &&
    row.dataKept &&
    row.historyKept &&
    Object.values(row.checks).every(Boolean);
  rows.push(row);
  log(`${name}: ${row.pass ? "PASS" : "FAIL"}: ${row.figure}`);
  if (error) log(error);
}

/** Runs `count` tasks with at most `concurrency` at once, none started after `deadlineMs`. */
async function pool<T>(count: number, concurrency: number, deadlineMs: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const until = performance.now() + deadlineMs;
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count && performance.now() < until) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out.filter((x) => x !== undefined);
}

const histogram = (xs: (number | string)[]) => {
  const h: Record<string, number> = {};
  for (const x of xs) h[String(x)] = (h[String(x)] ?? 0) + 1;
  return h;
};
const fmtHist = (h: Record<string, number>) => Object.entries(h).map(([k, v]) => `${k}x${v}`).join(" ");

/** Samples the hostile cluster's summary every 500 ms while `during` runs: snapshot age, stale marking, targets. */
async function watchHostile(inst: Instance, during: Promise<unknown>) {
  const samples: { t: number; age: number; stale: string | null; targets: number }[] = [];
  let unanswered = 0;
  let lastAt = 0;
  const sample = async (timeoutMs: number) => {
    const r = await getJson(`${inst.d.base}/api/v1/summary?cluster=hostile`, { headers: inst.headers }, timeoutMs);
    if (r.status !== 200) return void unanswered++;
    const s = r.body as Summary;
    lastAt = s.at;
    const st = s.stale.find((x) => x.source.startsWith("hostile/ta/"));
    samples.push({ t: Date.now(), age: (Date.now() - s.at) / 1000, stale: st ? `${st.state}: ${st.error?.kind ?? "?"}: ${st.error?.message ?? ""}`.slice(0, 160) : null, targets: targetsOf(s) });
  };
  let done = false;
  void during.finally(() => (done = true));
  while (!done) {
    await sample(5_000);
    await sleep(500);
  }
  await during;
  // one more, waited for longer: a server whose event loop is held answers late rather than never
  await sample(15_000);
  const last = samples.at(-1);
  // an unanswered sample proves nothing fresh: the age runs on from the last snapshot seen
  const maxAge = Math.max(0, ...samples.map((s) => s.age), lastAt ? (Date.now() - lastAt) / 1000 : Infinity);
  return { samples, maxAge, unanswered, lastStale: last?.stale ?? null, lastTargets: last?.targets ?? 0, answered: samples.length };
}

/** Waits (at most `ms`) until the hostile cluster's TA is fresh again; seconds it took, or null. */
async function hostileRecovered(inst: Instance, ms: number): Promise<number | null> {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const s = await summaryOf(inst, "hostile");
    if (s && !s.stale.some((x) => x.source.startsWith("hostile/ta/")) && Date.now() - s.at < POLL_S * 1000) return elapsedS(t0);
    await sleep(500);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------------

async function main() {
  if (!hasBuild()) throw new Error("no build: run `npm run build` first (.next/BUILD_ID is missing)");
  log(`starting the demo cluster (${NODES} nodes, ${POLL_S} s polls)...`);
  const { info } = await startDemo(["--nodes", String(NODES), "--poll-interval", String(POLL_S), "--scenario", "calm", "--dir", path.join(dir, "demo")]);
  const controlHeaders = { Authorization: `Bearer ${info.controlToken}` };
  const { recorded, firstJobPath, sample } = await recordTa(info.dashboardConfig);
  const hostile = new HostileTa(recorded, firstJobPath, sample);
  await hostile.listen();
  log(`hostile TA on ${hostile.url}, replaying ${recorded.size} answers of the demo's per-node TA`);

  const demoYaml = YAML.parse(fs.readFileSync(info.dashboardConfig, "utf8")) as { clusters: Record<string, unknown>[]; demo: { control: string } };
  const demoCluster = demoYaml.clusters[0] as { kubernetes: unknown; scraperAnnotation: string; targetAllocators: Record<string, Record<string, unknown>> };
  const hostileCluster = {
    name: "hostile",
    kubernetes: demoCluster.kubernetes,
    scraperAnnotation: demoCluster.scraperAnnotation,
    pollIntervalSeconds: POLL_S,
    targetAllocators: { "per-node": { url: hostile.url, flavor: demoCluster.targetAllocators["per-node"].flavor, timeoutSeconds: TA_TIMEOUT_S, pollTimeoutSeconds: POLL_TIMEOUT_S, collectors: demoCluster.targetAllocators["per-node"].collectors } },
  };
  const writeConfig = (name: string, c: object) => {
    const file = path.join(dir, `${name}.yaml`);
    fs.writeFileSync(file, YAML.stringify(c));
    return file;
  };
  const history = (name: string) => ({ path: path.join(dir, `${name}-history.sqlite`) });
  const mainConfig = writeConfig("main", { clusters: [demoCluster, hostileCluster], history: history("main"), demo: demoYaml.demo });
  // plain: no demo key (E), and a Prometheus backend with a secret-looking header that answers nothing (H)
  const plainConfig = writeConfig("plain", {
    clusters: [demoCluster],
    history: { ...history("plain"), prometheus: { url: "http://127.0.0.1:1/", headers: { "X-Api-Key": HEADER_SECRET }, timeoutSeconds: 2 } },
  });
  const secretConfig = writeConfig("secret", {
    clusters: [demoCluster],
    history: { ...history("secret"), prometheus: { url: `https://alice:${PASSWORD}@127.0.0.1:1/`, headers: { "X-Api-Key": HEADER_SECRET } } },
  });
  const token = crypto.randomBytes(24).toString("hex");
  const tokenFile = path.join(dir, "tokens");
  fs.writeFileSync(tokenFile, `${token}\n`);
  const tokenConfig = writeConfig("token", { clusters: [demoCluster], history: history("token"), auth: { mode: "token", tokenFile } });

  log("starting the dashboard (demo + hostile clusters)...");
  const mainD = startDashboard({ config: mainConfig, port: await freePort(), capture: true });
  const main: Instance = { name: "main", d: mainD, headers: {} };
  await waitReady(mainD, 90_000);

  // Some history to keep: one collector not Ready for a poll or two, then healed.
  const truth = (await (await fetch(`${info.control}/truth`, { headers: controlHeaders })).json()) as { collectors: { role: string; node: string }[] };
  const node = truth.collectors.find((c) => c.role === "per-node")!.node;
  await fetch(`${info.control}/faults`, { method: "POST", headers: controlHeaders, body: JSON.stringify({ fault: "collector-not-ready", node }) }).then((r) => r.arrayBuffer());
  for (let i = 0; i < 30 && ((await historyOf(main, "demo"))?.events ?? 0) === 0; i++) await sleep(500);
  await fetch(`${info.control}/faults`, { method: "DELETE", headers: controlHeaders }).then((r) => r.arrayBuffer());
  for (let i = 0; i < 30 && ((await historyOf(main, "demo"))?.events ?? 0) < 2; i++) await sleep(500);
  const hostileBaseline = targetsOf(await summaryOf(main, "hostile"));
  log(`ready: demo ${targetsOf(await summaryOf(main, "demo"))} targets, hostile ${hostileBaseline} targets, history ${JSON.stringify(await historyOf(main, "demo"))}`);

  // --- the baseline: the same observation with no attack --------------------------------------------------------------
  await attack("0 no attack (baseline)", main, async () => {
    await sleep(6_000);
    return { figure: "the legitimate client alone", checks: {} };
  });

  // --- A. slow uploads -------------------------------------------------------------------------------------------------
  await attack("A slow upload (2 GB announced, 256 kB/100 ms)", main, async () => {
    const [healthz, summary, faults] = await Promise.all([
      slowUpload(mainD.port, "GET", "/api/healthz", {}, 12_000),
      slowUpload(mainD.port, "GET", "/api/v1/summary", {}, 12_000),
      slowUpload(mainD.port, "POST", "/api/v1/demo/faults", {}, 12_000),
    ]);
    const cut = (u: UploadResult) => u.cutS !== null && u.cutS <= TARGETS.uploadCutS;
    return {
      figure: `healthz: ${fmtUpload(healthz)}; summary: ${fmtUpload(summary)}; POST demo/faults: ${fmtUpload(faults)}`,
      checks: { "healthz upload cut": cut(healthz), "summary upload cut": cut(summary), "faults upload cut": cut(faults) },
      details: { healthz, summary, faults },
    };
  });

  // --- B. many slow connections ----------------------------------------------------------------------------------------
  await attack("B slowloris x1000 + 24 slow uploads (healthz, summary, POST faults)", main, async () => {
    const DURATION = 20_000;
    const N = 1000;
    const t0 = performance.now();
    const socks: { s: net.Socket; connected: boolean; closedS: number | null; refused: boolean }[] = [];
    const targets: [string, string][] = [["GET", "/api/healthz"], ["GET", "/api/v1/summary"], ["POST", "/api/v1/demo/faults"]];
    const uploads = Promise.all(Array.from({ length: 24 }, (_, i) => slowUpload(mainD.port, ...targets[i % 3], {}, DURATION)));
    for (let i = 0; i < N; i += 100) {
      for (let k = i; k < Math.min(N, i + 100); k++) {
        const s = net.connect(mainD.port, "127.0.0.1");
        const e = { s, connected: false, closedS: null as number | null, refused: false };
        s.on("connect", () => {
          e.connected = true;
          s.write("GET /api/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ");
        });
        const closed = () => {
          if (!e.connected) e.refused = true;
          e.closedS ??= elapsedS(t0);
        };
        s.on("error", closed);
        s.on("close", closed);
        s.on("data", () => {});
        socks.push(e);
      }
      await sleep(100);
    }
    const drip = setInterval(() => {
      for (const e of socks) if (e.connected && e.closedS === null && !e.s.destroyed) e.s.write("a");
    }, 1_000);
    await sleep(Math.max(0, DURATION - (performance.now() - t0)));
    clearInterval(drip);
    const connected = socks.filter((e) => e.connected).length;
    const refused = socks.filter((e) => e.refused).length;
    const closed = socks.filter((e) => e.connected && e.closedS !== null);
    const held = connected - closed.length;
    for (const e of socks) e.s.destroy();
    const ups = await uploads;
    const cut = ups.filter((u) => u.cutS !== null && u.cutS <= TARGETS.uploadCutS).length;
    const closeTimes = closed.map((e) => e.closedS!);
    return {
      figure: `slowloris: ${connected} connected, ${refused} refused, ${closed.length} closed by the server${closed.length ? ` (median ${pct(closeTimes, 50).toFixed(1)} s)` : ""}, ${held} still held at ${DURATION / 1000} s; uploads: ${cut}/24 cut within ${TARGETS.uploadCutS} s, max ${(Math.max(...ups.map((u) => u.acceptedBytes)) / 2 ** 20).toFixed(0)} MiB accepted by one`,
      checks: { "header dribblers dropped (>= 90%)": held <= 0.1 * N, "slow uploads cut": cut === ups.length },
      details: { connected, refused, closedByServer: closed.length, held, closeMedianS: pct(closeTimes, 50), uploads: ups },
    };
  });

  // --- C. churn abuse ----------------------------------------------------------------------------------------------------
  await attack("C churn abuse", main, async () => {
    const q = (s: string) => getJson(`${mainD.base}/api/v1/churn?cluster=demo&${s}`, {}, 10_000);
    const inverted = await q("from=99999999999999999&to=1");
    const epoch = await q("from=0");
    const farTo = await q("to=99999999999999999");
    const MAX_LAST = 366 * 86_400_000;
    // the flood comes from another client (127.0.0.2) than the legitimate one, as it would from another host
    const flood = await pool(400, 40, 12_000, (i) => getFrom(ATTACKER, `${mainD.base}/api/v1/churn?cluster=demo&last=${3_600_000 + Math.floor((i * (MAX_LAST - 3_600_000)) / 400) + i}`, {}, 10_000));
    const fh = histogram(flood.map((r) => r.status));
    const p95 = pct(flood.map((r) => r.ms), 95);
    return {
      figure: `from=1e17&to=1: ${inverted.status}; from=0: ${epoch.status} in ${epoch.ms.toFixed(0)} ms (${(epoch.text.length / 1e3).toFixed(0)} kB); to=1e17: ${farTo.status}; ${flood.length} distinct last=: ${fmtHist(fh)}, p95 ${p95.toFixed(0)} ms`,
      checks: {
        "inverted range 400": inverted.status === 400,
        "from=0 400": epoch.status === 400,
        "far to 400": farTo.status === 400,
        "flood: no 5xx": flood.every((r) => r.status > 0 && r.status < 500),
      },
      details: { inverted: { status: inverted.status, ms: inverted.ms }, epoch: { status: epoch.status, ms: epoch.ms, bytes: epoch.text.length }, farTo: { status: farTo.status, body: farTo.text.slice(0, 200) }, flood: { n: flood.length, statuses: fh, p95 } },
    };
  });

  // --- D. targets cache busting ------------------------------------------------------------------------------------------
  await attack("D targets cache busting (q=%20...)", main, async () => {
    const sorts = ["job", "address"];
    const variants = Array.from({ length: 400 }, (_, i) => `q=${"%20".repeat((i % 200) + 1)}&sort=${sorts[Math.floor(i / 200)]}`);
    // for comparison, the same number of identical requests (one cache entry), at the same concurrency
    const same = await pool(variants.length, 50, 8_000, () => getFrom(ATTACKER, `${mainD.base}/api/v1/targets?cluster=demo&q=%20`, {}, 10_000));
    const res = await pool(variants.length, 50, 12_000, (i) => getFrom(ATTACKER, `${mainD.base}/api/v1/targets?cluster=demo&${variants[i]}`, {}, 10_000));
    const h = histogram(res.map((r) => r.status));
    const p95 = pct(res.map((r) => r.ms), 95);
    const sameP95 = pct(same.map((r) => r.ms), 95);
    return {
      figure: `${res.length} variants: ${fmtHist(h)}, p95 ${p95.toFixed(0)} ms (${same.length} identical ones at the same concurrency: p95 ${sameP95.toFixed(0)} ms)`,
      checks: { "no 5xx": [...res, ...same].every((r) => r.status > 0 && r.status < 500) },
      details: { statuses: h, p95, identical: { n: same.length, statuses: histogram(same.map((r) => r.status)), p95: sameP95 } },
    };
  });

  // --- E. demo routes outside demo mode (and H, part two: a secret header value on a running server) ------------------------
  if (!ONLY || ONLY.has("E") || ONLY.has("H")) {
    log("starting a plain (non-demo) dashboard...");
    const plainD = startDashboard({ config: plainConfig, port: await freePort(), capture: true });
    const plain: Instance = { name: "plain", d: plainD, headers: {} };
    let headerLeak: { where: string[]; readyz: number } | null = null;
    try {
      await waitReady(plainD, 90_000);
      await attack("E demo routes outside demo mode", plain, async () => {
        const before = await getJson(`${info.control}/faults`, { headers: controlHeaders });
        const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];
        const bodies: Record<string, string> = { faults: JSON.stringify({ fault: "ta-slow", role: "cluster-scraper", ms: 1 }), scenario: JSON.stringify({ name: "calm" }) };
        const results = new Set<string>();
        let all404 = true;
        // three rounds, a few seconds of observation
        for (let round = 0; round < 3; round++) {
          for (const route of ["faults", "scenario"]) {
            for (const method of methods) {
              const hasBody = method !== "GET" && method !== "HEAD";
              const r = await getJson(`${plainD.base}/api/v1/demo/${route}`, { method, headers: hasBody ? { "Content-Type": "application/json" } : {}, body: hasBody ? bodies[route] : undefined });
              if (r.status !== 404) {
                all404 = false;
                results.add(`${method} ${route} ${r.status}`);
              }
            }
          }
          await sleep(1_000);
        }
        const after = await getJson(`${info.control}/faults`, { headers: controlHeaders });
        const unchanged = before.text === after.text;
        if (!unchanged) await fetch(`${info.control}/faults`, { method: "DELETE", headers: controlHeaders }).then((r) => r.arrayBuffer());
        return {
          figure: all404 ? `all ${methods.length * 2} answered 404` : `not 404: ${[...results].join(", ")}${unchanged ? "" : "; A FAULT WAS INJECTED"}`,
          checks: { "every demo route 404": all404, "demo cluster untouched": unchanged },
          details: { notFound: all404, others: [...results] },
        };
      });
      // the Prometheus backend fails (nothing on port 1): its error is logged and shown; the header value must not be
      const churn = await getJson(`${plainD.base}/api/v1/churn?cluster=demo&from=0&source=prometheus`, {}, 10_000);
      const churnAuto = await getJson(`${plainD.base}/api/v1/churn?cluster=demo`, {}, 10_000);
      const readyz = await getJson(`${plainD.base}/api/readyz`);
      await sleep(500);
      const where: string[] = [];
      if (plainD.output().includes("S3cretHdr99")) where.push("stdout/stderr");
      if (churn.text.includes("S3cretHdr99") || churnAuto.text.includes("S3cretHdr99")) where.push("/api/v1/churn");
      if (readyz.text.includes("S3cretHdr99")) where.push("/api/readyz");
      headerLeak = { where, readyz: readyz.status };
    } catch (e) {
      log(`plain dashboard: ${(e as Error).message}\n${plainD.output().slice(-2000)}`);
    } finally {
      await plainD.stop();
    }

    // --- H. config secrets ----------------------------------------------------------------------------------------------
    await attack("H config secrets (userinfo URL, secret header)", main, async () => {
      const secretD = startDashboard({ config: secretConfig, port: await freePort(), capture: true });
      const secret: Instance = { name: "secret", d: secretD, headers: {} };
      try {
        // either it refuses the configuration (exits) or it serves: wait for one or the other, at most 20 s
        let exit: number | null | "running" = "running";
        let readyz: { status: number; text: string } = { status: 0, text: "" };
        secretD.exited.then((code) => (exit = code));
        for (const until = Date.now() + 20_000; Date.now() < until && exit === "running"; await sleep(300)) {
          readyz = await getJson(`${secretD.base}/api/readyz`, {}, 2_000);
          if (readyz.status === 200) break;
        }
        const out = secretD.output();
        const where: string[] = [];
        if (out.includes(PASSWORD)) where.push("stdout/stderr (password)");
        if (out.includes("S3cretHdr99")) where.push("stdout/stderr (header)");
        if (readyz.text.includes(PASSWORD) || readyz.text.includes("S3cretHdr99")) where.push("/api/readyz");
        const refused = exit !== "running" && exit !== 0;
        const served = exit === "running" && (await healthy(secret));
        const leakedRunning = headerLeak?.where ?? ["(not checked: the plain dashboard did not start)"];
        return {
          figure: `${refused ? `refused to start (exit ${exit})` : served ? `started, readyz ${readyz.status}` : `exit ${exit}`}; secrets in: ${where.length ? where.join(", ") : "nowhere"}; running server with the secret header: ${leakedRunning.length ? `in ${leakedRunning.join(", ")}` : "nowhere"}`,
          checks: { "password and header value nowhere": where.length === 0, "header value not shown by a running server": leakedRunning.length === 0 },
          details: { exit, readyz: readyz.status, where, runningServer: headerLeak, firstLines: out.split("\n").slice(0, 6).map((l) => l.replaceAll(PASSWORD, "<PASSWORD>").replaceAll("S3cretHdr99", "<HEADER>")) },
          up: refused || served,
          dataKept: true,
          historyKept: true,
        };
      } finally {
        await secretD.stop();
      }
    }, { pid: () => main.d.pid });
  }

  // --- I. token brute force ---------------------------------------------------------------------------------------------
  if (!ONLY || ONLY.has("I")) {
    log("starting a dashboard in auth.mode token...");
    const tokenD = startDashboard({ config: tokenConfig, port: await freePort(), capture: true });
    const tok: Instance = { name: "token", d: tokenD, headers: { Authorization: `Bearer ${token}` } };
    try {
      await waitReady(tokenD, 90_000);
      await attack("I token brute force (2,000 wrong tokens)", tok, async () => {
        const t0 = performance.now();
        // The attacker comes from another loopback address (127.0.0.2) than the legitimate client (127.0.0.1), as it would
        // from another host: a limit per client address must stop the one without locking out the other.
        const res = await pool(2000, 20, 20_000, () => getFrom(ATTACKER, `${tokenD.base}/api/v1/summary?cluster=demo`, { Authorization: `Bearer ${crypto.randomBytes(24).toString("hex")}` }));
        const secs = elapsedS(t0);
        const last = res.slice(-500);
        const refusedLate = last.filter((r) => r.status === 429).length;
        const slowLate = pct(last.map((r) => r.ms), 50);
        return {
          figure: `${res.length} sent in ${secs.toFixed(1)} s: ${fmtHist(histogram(res.map((r) => r.status)))}; last 500: ${refusedLate} x 429, p50 ${slowLate.toFixed(0)} ms`,
          checks: { "later attempts refused (429) or slowed": refusedLate >= 250 || slowLate >= 500 },
          details: { sent: res.length, seconds: secs, statuses: histogram(res.map((r) => r.status)), last500: { refused429: refusedLate, p50: slowLate }, first100: histogram(res.slice(0, 100).map((r) => r.status)) },
        };
      });
    } catch (e) {
      log(`token dashboard: ${(e as Error).message}\n${tokenD.output().slice(-2000)}`);
    } finally {
      await tokenD.stop();
    }
  }

  // --- F. hostile TA: dribble --------------------------------------------------------------------------------------------
  const hostileChecks = (w: Awaited<ReturnType<typeof watchHostile>>) => ({
    [`poll finishes (snapshot age <= ${MAX_SNAPSHOT_AGE_S} s)`]: w.answered > 0 && w.maxAge <= MAX_SNAPSHOT_AGE_S,
    "marked stale with a reason": w.lastStale !== null && /stale/.test(w.lastStale),
    "last good targets served": hostileBaseline > 0 && w.lastTargets === hostileBaseline,
  });
  const fmtWatch = (w: Awaited<ReturnType<typeof watchHostile>>) =>
    `snapshot age max ${w.maxAge.toFixed(1)} s${w.unanswered ? ` (${w.unanswered} summaries unanswered within 5 s)` : ""}; hostile targets ${w.lastTargets}/${hostileBaseline}; ${w.lastStale ? `marked ${w.lastStale}` : "not marked stale"}`;
  await attack("F hostile TA dribble (1 byte / 2 s)", main, async () => {
    hostile.setMode("dribble");
    const w = await watchHostile(main, sleep(25_000));
    const requests = hostile.requests;
    hostile.setMode("good");
    const back = await hostileRecovered(main, 12_000);
    return {
      figure: `${fmtWatch(w)}; ${requests} TA requests; fresh again ${back === null ? "not within 12 s" : `after ${back.toFixed(1)} s`}`,
      checks: hostileChecks(w),
      details: { maxAge: w.maxAge, lastStale: w.lastStale, lastTargets: w.lastTargets, requests, recoveredS: back, ages: w.samples.map((s) => Math.round(s.age)) },
    };
  });

  // --- G. hostile TA: huge answers ---------------------------------------------------------------------------------------
  await attack("G1 hostile TA 200 MB job answer", main, async () => {
    hostile.hugeAnswers = [];
    hostile.setMode("huge-job");
    const w = await watchHostile(main, sleep(20_000));
    const answers = hostile.hugeAnswers.map((a) => ({ ...a }));
    hostile.setMode("good");
    const back = await hostileRecovered(main, 12_000);
    const taken = answers.map((a) => `${(a.bytes / 1e6).toFixed(0)} MB${a.cut ? " (cut)" : ""}`).join(", ");
    return {
      figure: `${fmtWatch(w)}; huge answers served: ${answers.length ? taken : "none asked"}; fresh again ${back === null ? "not within 12 s" : `after ${back.toFixed(1)} s`}`,
      checks: hostileChecks(w),
      details: { maxAge: w.maxAge, lastStale: w.lastStale, lastTargets: w.lastTargets, answers, recoveredS: back },
    };
  });
  await attack("G2 hostile TA /jobs of 1,000,000 entries", main, async () => {
    hostile.setMode("huge-jobs");
    const w = await watchHostile(main, sleep(15_000));
    const requests = hostile.requests;
    // stop answering at all: whatever the dashboard still has queued fails fast
    await hostile.close();
    return {
      figure: `${fmtWatch(w)}; ${requests} TA requests in 15 s`,
      checks: hostileChecks(w),
      details: { maxAge: w.maxAge, lastStale: w.lastStale, lastTargets: w.lastTargets, requests },
    };
  });

  const crashed = mainD.child.exitCode !== null || mainD.child.signalCode !== null;
  if (crashed) log(`the main dashboard exited (${mainD.child.exitCode ?? mainD.child.signalCode}); its last output:\n${mainD.output().slice(-3000)}`);
  fs.writeFileSync(path.join(dir, "main.log"), mainD.output());
  await mainD.stop();
}

function report() {
  const yes = (b: boolean) => (b ? "yes" : "NO");
  const header = ["attack", "up", "peak RSS", "legit p95", "data kept", "history kept", "verdict", "figure"];
  const table = rows.map((r) => [
    r.attack,
    yes(r.up),
    `${r.peakRssMiB} MiB${r.peakRssMiB * 2 ** 20 > TARGETS.rssBytes ? " (!)" : ""}`,
    `${r.legitP95Ms} ms${r.legitErrors ? ` (${r.legitErrors}/${r.legitRequests} failed)` : ""}`,
    yes(r.dataKept),
    yes(r.historyKept),
    r.pass ? "PASS" : `FAIL: ${[
      ...(r.up ? [] : ["down"]),
      ...(r.peakRssMiB * 2 ** 20 > TARGETS.rssBytes ? ["RSS"] : []),
      ...(r.legitP95Ms > TARGETS.p95Ms || r.legitErrors ? ["legit"] : []),
      ...(r.dataKept ? [] : ["data"]),
      ...(r.historyKept ? [] : ["history"]),
      ...Object.entries(r.checks).filter(([, ok]) => !ok).map(([k]) => k),
    ].join("; ")}`,
    r.figure,
  ]);
  const widths = header.slice(0, -1).map((h, i) => Math.min(48, Math.max(h.length, ...table.map((t) => t[i].length))));
  const line = (cells: string[]) => cells.map((c, i) => (i < widths.length ? c.padEnd(widths[i]) : c)).join(" | ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-") + "-|-------");
  for (const t of table) console.log(line(t));
  console.log(
    `targets: up; peak RSS <= ${TARGETS.rssBytes / 2 ** 20} MiB; legitimate p95 <= ${TARGETS.p95Ms} ms, none failed; nothing lost; uploads cut within ${TARGETS.uploadCutS} s; demo routes 404 outside demo mode; bad churn ranges 400; hostile polls within ${MAX_SNAPSHOT_AGE_S} s, stale with a reason`,
  );
  const failed = rows.filter((r) => !r.pass).map((r) => r.attack);
  console.log(JSON.stringify({ pass: failed.length === 0 && rows.length > 0, failed, totalSeconds: Math.round((Date.now() - started) / 1000), attacks: rows }));
  return failed.length === 0 && rows.length > 0;
}

main()
  .catch((e) => {
    console.error(`attack failed: ${(e as Error).stack ?? e}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopAll();
    if (rows.length && !report()) process.exitCode = 1;
    else if (!rows.length) process.exitCode = 1;
    if (values.keep) log(`logs and configurations kept in ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
    void monitor.terminate();
    setTimeout(() => process.exit(), 2000).unref();
  });
