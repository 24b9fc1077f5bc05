/**
 * What `npm run bench -- --ta real` measures of upstream's real otel-allocator, beside the dashboard: its raw answers
 * read as a collector or a curl would (plain HTTP, `JSON.parse`, nothing of the dashboard's code), the wait until they
 * settle, the check of the dashboard's counts against them, the time it takes to serve one poll's answers, its CPU and
 * RSS from /proc, and its own `/debug/targets` page. docs/performance.md, "The bench on the real allocator".
 */
import fs from "node:fs";
import http from "node:http";
import type { Browser } from "@playwright/test";
import { processTree } from "./proc.mts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One GET over `agent`: status, the time to the first byte and to the last, the bytes; the body kept when `keep`. */
function get(agent: http.Agent, url: string, opts: { keep?: boolean; timeoutMs?: number; onChunk?: (c: Buffer) => void } = {}): Promise<{ status: number; body: Buffer; bytes: number; ttfbMs: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, timeout: opts.timeoutMs ?? 120_000, headers: { Accept: "application/json" } }, (res) => {
      const ttfbMs = performance.now() - t0;
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on("data", (c: Buffer) => {
        bytes += c.length;
        opts.onChunk?.(c);
        if (opts.keep) chunks.push(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), bytes, ttfbMs, ms: performance.now() - t0 }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`${url}: no answer in ${opts.timeoutMs ?? 120_000} ms`)));
    req.on("error", reject);
  });
}

const jobPath = (job: string) => `/jobs/${encodeURIComponent(job)}/targets`;

/**
 * The allocator's crashes so far, from its log (the demo appends each run's output; a Go panic starts with "panic: "):
 * how many and the first one's message.
 */
export function crashesInLog(logFile: string): { count: number; first: string | null } {
  let text = "";
  try {
    text = fs.readFileSync(logFile, "utf8");
  } catch {
    return { count: 0, first: null };
  }
  const panics = text.split("\n").filter((l) => l.startsWith("panic: "));
  return { count: panics.length, first: panics[0]?.slice("panic: ".length) ?? null };
}

/** The allocator's process among the demo's children (the demo spawns it): its pid, or undefined. */
export function allocatorPid(demoPid: number): number | undefined {
  return processTree(demoPid).find((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/comm`, "utf8").trim() === "otel-allocator";
    } catch {
      return false;
    }
  });
}

/** CPU (user + system, ms) and RSS (bytes) of `pid` from /proc; NaN when it cannot be read. */
export function usage(pid: number | undefined): { cpuMs: number; rssBytes: number } {
  if (!pid) return { cpuMs: NaN, rssBytes: NaN };
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    // utime and stime (fields 14 and 15) in clock ticks of 10 ms (USER_HZ 100 on Linux)
    return { cpuMs: (Number(f[11]) + Number(f[12])) * 10, rssBytes: rss ? Number(rss[1]) * 1024 : NaN };
  } catch {
    return { cpuMs: NaN, rssBytes: NaN };
  }
}

/** What the allocator answers, counted: its jobs, the targets it assigned to each collector, and its own gauges. */
export interface RawAnswers {
  /** when the read started (epoch ms) */
  startedAt: number;
  ms: number;
  bytes: number;
  jobs: string[];
  /** every collector its job answers list, with the targets assigned to it (0 included) */
  perCollector: Map<string, number>;
  assigned: number;
  /** opentelemetry_allocator_targets_remaining: targets kept after filtering */
  remaining: number;
  /** the sum of opentelemetry_allocator_targets_per_collector */
  perCollectorGauge: number;
  /** remaining less the sum of the per-collector gauge, as the dashboard computes it for upstream */
  unassigned: number;
  /** what must not change for the answers to count as settled */
  digest: string;
}

/** Sums of the named families in a Prometheus text: the value of each name, summed over its series. */
function gauges(text: string, names: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line);
    if (m && names.includes(m[1])) out.set(m[1], (out.get(m[1]) ?? 0) + Number(m[3]));
  }
  return out;
}

/** Reads the allocator's answers once, one request after another: /jobs, each job's targets, /metrics. */
export async function readRaw(base: string): Promise<RawAnswers> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const startedAt = Date.now();
  const t0 = performance.now();
  try {
    let bytes = 0;
    const list = await get(agent, `${base}/jobs`, { keep: true });
    if (list.status !== 200) throw new Error(`/jobs answered ${list.status}`);
    bytes += list.bytes;
    const jobs = Object.keys(JSON.parse(list.body.toString("utf8")) as Record<string, unknown>).sort();
    const perCollector = new Map<string, number>();
    const perJob: number[] = [];
    for (const job of jobs) {
      const r = await get(agent, `${base}${jobPath(job)}`, { keep: true });
      if (r.status !== 200) throw new Error(`${jobPath(job)} answered ${r.status}`);
      bytes += r.bytes;
      let n = 0;
      for (const [collector, entry] of Object.entries(JSON.parse(r.body.toString("utf8")) as Record<string, { targets?: { targets?: string[] }[] | null }>)) {
        const count = (entry.targets ?? []).reduce((s, g) => s + (g.targets?.length ?? 0), 0);
        perCollector.set(collector, (perCollector.get(collector) ?? 0) + count);
        n += count;
      }
      perJob.push(n);
    }
    const metrics = await get(agent, `${base}/metrics`, { keep: true });
    bytes += metrics.bytes;
    const g = gauges(metrics.body.toString("utf8"), ["opentelemetry_allocator_targets_remaining", "opentelemetry_allocator_targets_per_collector"]);
    const remaining = g.get("opentelemetry_allocator_targets_remaining") ?? NaN;
    const perCollectorGauge = g.get("opentelemetry_allocator_targets_per_collector") ?? NaN;
    const assigned = perJob.reduce((s, n) => s + n, 0);
    const collectors = [...perCollector].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      startedAt,
      ms: performance.now() - t0,
      bytes,
      jobs,
      perCollector,
      assigned,
      remaining,
      perCollectorGauge,
      unassigned: remaining - perCollectorGauge,
      digest: JSON.stringify([jobs, perJob, collectors, remaining, perCollectorGauge]),
    };
  } finally {
    agent.destroy();
  }
}

export interface Settled {
  raw: RawAnswers;
  /** when the answers were first read as they are now (epoch ms): the allocator has not changed them since */
  since: number;
  reads: number;
  /** from the first read to the one that found them settled */
  ms: number;
}

/**
 * Reads the allocator's answers until they stay the same across reads at least `windowMs` apart: by default 11 s, two of
 * its 5 s ticks (discovery's and its own reallocation's) and a second. Throws when they have not settled in `maxMs`.
 */
export async function settle(base: string, log: (m: string) => void, opts: { maxMs?: number; windowMs?: number } = {}): Promise<Settled> {
  const maxMs = opts.maxMs ?? 600_000;
  const windowMs = opts.windowMs ?? 11_000;
  const t0 = Date.now();
  let first: RawAnswers | undefined;
  let reads = 0;
  let lastError = "";
  for (;;) {
    let raw: RawAnswers | undefined;
    try {
      raw = await readRaw(base);
      reads++;
    } catch (e) {
      // down (restarting after a crash) or mid-answer: said once per kind of error, read again a second later
      const message = (e as Error).message;
      if (message !== lastError) log(`the allocator's answers: ${message}`);
      lastError = message;
      await sleep(1000);
    }
    if (raw) {
      if (first && raw.digest === first.digest && raw.startedAt - first.startedAt >= windowMs) return { raw, since: first.startedAt, reads, ms: Date.now() - t0 };
      if (!first || raw.digest !== first.digest) {
        if (first) log(`the allocator's answers changed (${raw.assigned} targets assigned, ${raw.unassigned} unassigned, ${raw.jobs.length} jobs; read in ${(raw.ms / 1000).toFixed(1)} s)`);
        first = raw;
      }
    }
    if (Date.now() - t0 > maxMs) throw new Error(`the allocator's answers did not settle in ${maxMs / 1000} s (${reads} reads)`);
    // the next read starts no sooner than the window after the first of this state
    if (first) await sleep(Math.max(1000, first.startedAt + windowMs - Date.now()));
  }
}

export interface CountCheck {
  pass: boolean;
  /** settled: the allocator's answers the same before and after the dashboard's reading */
  assigned: { dashboard: number; allocator: number };
  unassigned: { dashboard: number | null; allocator: number };
  jobs: { dashboard: number; allocator: number };
  collectors: { allocator: number; dashboard: number; differing: number; examples: string[] };
  /** the allocator's assigned targets by its answers against the sum of its per-collector gauge */
  allocatorGaugeSum: number;
  settleMs: number;
  attempts: number;
}

interface SummaryRole {
  targets: number;
  unassigned: number | null;
  jobs: number;
}
interface CollectorsRole {
  role: string;
  collectors: { id: string; inTa: boolean; targets: number }[];
}

/**
 * The dashboard's counts against the allocator's raw answers, both settled: the answers stay the same over a window,
 * the dashboard then reads them in a poll that started after they settled, and they are read again unchanged after the
 * dashboard's answers were taken. Up to three attempts when the allocator moves meanwhile.
 */
export async function checkCounts(taBase: string, dashboard: string, role: string, pollStartedAfter: (epochMs: number) => Promise<void>, log: (m: string) => void, maxSettleMs?: number): Promise<CountCheck> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const s = await settle(taBase, log, { maxMs: maxSettleMs });
    await pollStartedAfter(s.since);
    const summary = (await (await fetch(`${dashboard}/api/v1/summary`)).json()) as { roles: Record<string, SummaryRole> };
    const collectors = (await (await fetch(`${dashboard}/api/v1/collectors`)).json()) as { roles: CollectorsRole[] };
    const after = await readRaw(taBase);
    if (after.digest !== s.raw.digest) {
      log(`count check: the allocator's answers changed while the dashboard read them; again (attempt ${attempt})`);
      continue;
    }
    const raw = s.raw;
    const ours = summary.roles[role];
    const rows = new Map((collectors.roles.find((r) => r.role === role)?.collectors ?? []).filter((c) => c.inTa).map((c) => [c.id, c.targets]));
    const differing: string[] = [];
    for (const id of new Set([...raw.perCollector.keys(), ...rows.keys()])) {
      if (raw.perCollector.get(id) !== rows.get(id)) differing.push(`${id}: dashboard ${rows.get(id) ?? "absent"}, allocator ${raw.perCollector.get(id) ?? "absent"}`);
    }
    const check: CountCheck = {
      pass: ours.targets === raw.assigned && ours.unassigned === raw.unassigned && ours.jobs === raw.jobs.length && differing.length === 0,
      assigned: { dashboard: ours.targets, allocator: raw.assigned },
      unassigned: { dashboard: ours.unassigned, allocator: raw.unassigned },
      jobs: { dashboard: ours.jobs, allocator: raw.jobs.length },
      collectors: { allocator: raw.perCollector.size, dashboard: rows.size, differing: differing.length, examples: differing.slice(0, 5) },
      allocatorGaugeSum: raw.perCollectorGauge,
      settleMs: s.ms,
      attempts: attempt,
    };
    return check;
  }
  throw new Error("count check: the allocator's answers kept changing while the dashboard read them (3 attempts)");
}

export interface ServedPoll {
  concurrency: number;
  answers: number;
  bytes: number;
  ms: number;
  /** the allocator's CPU meanwhile */
  cpuMs: number;
}

/** One poll's answers from the allocator (/jobs, then every job's targets), `concurrency` at a time, bytes dropped. */
export async function servePoll(base: string, concurrency: number, pid: number | undefined): Promise<ServedPoll> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const cpu0 = usage(pid).cpuMs;
    const t0 = performance.now();
    const list = await get(agent, `${base}/jobs`, { keep: true });
    const jobs = Object.keys(JSON.parse(list.body.toString("utf8")) as Record<string, unknown>);
    let bytes = list.bytes;
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < jobs.length) {
          const job = jobs[next++];
          const answer = await get(agent, `${base}${jobPath(job)}`);
          bytes += answer.bytes;
        }
      }),
    );
    return { concurrency, answers: jobs.length + 1, bytes, ms: performance.now() - t0, cpuMs: usage(pid).cpuMs - cpu0 };
  } finally {
    agent.destroy();
  }
}

export interface DebugTargets {
  bytes: number;
  /** table rows (one per target the allocator holds, an unassigned one with an empty collector cell) */
  rows: number;
  ttfbMs: number;
  ms: number;
  cpuMs: number;
  /** the page in Chromium: from navigation to its first target row visible (largest scale only) */
  chromiumFirstRowsMs: number | null;
}

/** The allocator's own /debug/targets page fetched once: its size, rows, and the time to its first and last byte. */
export async function fetchDebugTargets(base: string, pid: number | undefined): Promise<DebugTargets> {
  const agent = new http.Agent({ keepAlive: false });
  const cpu0 = usage(pid).cpuMs;
  let rows = 0;
  let carry = "";
  const r = await get(agent, `${base}/debug/targets`, {
    timeoutMs: 600_000,
    onChunk: (c) => {
      // each row links its target's page; count the links across chunk boundaries
      const text = carry + c.toString("latin1");
      rows += text.split("target_hash=").length - 1;
      carry = text.slice(-"target_hash=".length + 1);
    },
  });
  agent.destroy();
  if (r.status !== 200) throw new Error(`/debug/targets answered ${r.status}`);
  return { bytes: r.bytes, rows, ttfbMs: r.ttfbMs, ms: r.ms, cpuMs: usage(pid).cpuMs - cpu0, chromiumFirstRowsMs: null };
}

/** The allocator's /debug/targets in Chromium: from navigation to its first target row visible; NaN after 3 minutes. */
export async function debugTargetsInChromium(browser: Browser, base: string): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    const t = performance.now();
    await page.goto(`${base}/debug/targets`, { waitUntil: "commit", timeout: 180_000 });
    await page.locator("a[href*='target_hash=']").first().waitFor({ state: "visible", timeout: 180_000 });
    return performance.now() - t;
  } catch {
    return NaN;
  } finally {
    await page.close().catch(() => {});
  }
}
