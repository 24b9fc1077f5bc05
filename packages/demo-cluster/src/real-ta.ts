/**
 * A real Target Allocator run against the demo's Kubernetes API in place of the simulated one (`--ta real`): upstream's
 * otel-allocator (`flavor: "upstream"`) or the CloudWatch fork's (`flavor: "cloudwatch"`), both built by
 * scripts/peers.mjs. Its configuration file is the operator's ConfigMap text with the chosen strategy (and, upstream, the
 * grace period and optionally the `https` block). Upstream listens on loopback over HTTP (and HTTPS with a required client
 * certificate when asked); the fork serves only HTTPS (TLS 1.3, client certificate required), its listener and files
 * given by flags as its operator's container does. `assignments()` reads what it assigned from its own answers, for
 * /truth. docs/faithfulness.md says what the demo had to learn from each.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import path from "node:path";
import YAML from "yaml";
import type { Flavor, Labels } from "@allocation-lens/allocation/model";
import { crashBackoffMs, type Crash } from "./allocator";

export interface RealTaOptions {
  /** whose allocator: upstream's otel-allocator (default) or the CloudWatch fork's */
  flavor?: Flavor;
  /** the allocator binary */
  binary: string;
  /** its version or commit (for the JSON line) */
  version: string;
  /** the operator's targetallocator.yaml for this TA */
  configText: string;
  strategy: "per-node" | "consistent-hashing" | "least-weighted";
  /** per-node only: the strategy for targets without a node; null = none (they stay unassigned) */
  fallback: "consistent-hashing" | null;
  /** collector_not_ready_grace_period in seconds */
  graceSeconds: number;
  kubeconfig: string;
  /** where its configuration and log go */
  dir: string;
  host: string;
  /** 0 = a free port */
  port?: number;
  /** serve HTTPS too (TLS with a required client certificate), with these files; the fork always needs them */
  https?: { ca: string; cert: string; key: string };
  /** a client certificate the demo reads the allocator's HTTPS listener with (the fork has no other) */
  client?: { ca: string; cert: string; key: string };
  /** the namespace of its collectors (the fork's OTELCOL_NAMESPACE, which its operator sets to the agent's) */
  collectorNamespace?: string;
  /**
   * Told when the process dies on its own once it has run (a panic: its ring over capacity) and when it runs again: the
   * TA pod shows the crash loop. The process is started again with the kubelet's back-off, as its container would be.
   */
  onCrash?: (crash: Crash | null) => void;
  /** the first back-off before a crashed process is started again (default 10 s, the kubelet's) */
  restartBackoffMs?: number;
}

export interface RealTarget {
  job: string;
  address: string;
  labels: Labels;
  /** null: unassigned (it does not appear under any collector) */
  collector: string | null;
}

export interface RealAssignments {
  jobs: string[];
  /** every assigned target; the allocator lists no unassigned one, see `unassigned` */
  targets: RealTarget[];
  /** every collector the allocator lists in its job answers (it lists each registered one, with or without targets) */
  collectors: string[];
  /**
   * the allocator's own gauges, summed over their labels, by the name of upstream's series: `targets` (discovered),
   * `targets_remaining` (kept after filtering: upstream's own gauge; the fork's is a running sum, so its discovered count
   * stands in) and `targets_unassigned` (upstream's is sticky, the fork's recomputed)
   */
  gauges: Record<string, number>;
}

/** The series read for `gauges`, per flavor, by the name they are reported under. */
const GAUGES: Record<Flavor, Record<string, string>> = {
  upstream: {
    opentelemetry_allocator_targets: "opentelemetry_allocator_targets",
    opentelemetry_allocator_targets_remaining: "opentelemetry_allocator_targets_remaining",
    opentelemetry_allocator_targets_unassigned: "opentelemetry_allocator_targets_unassigned",
  },
  cloudwatch: {
    amazon_cloudwatch_agent_allocator_targets: "opentelemetry_allocator_targets",
    cloudwatch_agent_allocator_targets_unassigned: "opentelemetry_allocator_targets_unassigned",
  },
};

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, host, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** GET on one of the allocator's listeners (HTTPS with `client`'s files): status and body text (bounded: 256 MiB). */
function get(url: string, timeoutMs = 10_000, client?: { ca: Buffer; cert: Buffer; key: Buffer }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const options = url.startsWith("https:") ? { timeout: timeoutMs, ca: client?.ca, cert: client?.cert, key: client?.key } : { timeout: timeoutMs };
    const req = (url.startsWith("https:") ? https : http).get(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > 256 * 1024 * 1024) req.destroy(new Error(`${url}: answer over 256 MiB`));
        else chunks.push(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`${url}: no answer in ${timeoutMs} ms`)));
    req.on("error", reject);
  });
}

/** CPU time (user + system, ms) and resident memory (bytes) of a process, from /proc; undefined where unreadable. */
export function processUsage(pid: number | undefined): { cpuMs: number; rssBytes: number } | undefined {
  if (!pid) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // the fields after the command name (which may hold spaces and parentheses): state is field 3, utime 14, stime 15
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return { cpuMs: (Number(fields[11]) + Number(fields[12])) * 10, rssBytes: rss ? Number(rss[1]) * 1024 : 0 };
  } catch {
    return undefined;
  }
}

/** A TA's targetallocator.yaml with `allocation_strategy` set, and `allocation_fallback_strategy` (per-node only) or none. */
export function withStrategy(configText: string, strategy: RealTaOptions["strategy"], fallback: RealTaOptions["fallback"]): string {
  const doc = YAML.parse(configText) as Record<string, unknown>;
  doc.allocation_strategy = strategy;
  if (strategy === "per-node" && fallback) doc.allocation_fallback_strategy = fallback;
  else delete doc.allocation_fallback_strategy;
  return YAML.stringify(doc);
}

/**
 * The allocator's configuration: the ConfigMap's text with the strategy, fallback, grace period and https block set, and
 * (it runs outside the cluster) every kubernetes_sd_configs entry reading the demo's kubeconfig. The fork reads its file
 * strictly and has neither a grace period nor an `https` block it would use (its listener comes from flags): for it only
 * the strategy and the kubeconfig are set.
 */
export function realTaConfig(o: Pick<RealTaOptions, "configText" | "strategy" | "fallback" | "graceSeconds" | "https" | "flavor"> & { kubeconfig?: string }, httpsListen?: string): string {
  const doc = YAML.parse(withStrategy(o.configText, o.strategy, o.fallback)) as Record<string, unknown>;
  const jobs = (doc.config as { scrape_configs?: { kubernetes_sd_configs?: Record<string, unknown>[] }[] } | undefined)?.scrape_configs ?? [];
  if (o.kubeconfig) for (const sd of jobs.flatMap((j) => j.kubernetes_sd_configs ?? [])) sd.kubeconfig_file = o.kubeconfig;
  if (o.flavor === "cloudwatch") return YAML.stringify(doc);
  doc.collector_not_ready_grace_period = `${o.graceSeconds}s`;
  if (o.https && httpsListen) {
    doc.https = { enabled: true, listen_addr: httpsListen, ca_file_path: o.https.ca, tls_cert_file_path: o.https.cert, tls_key_file_path: o.https.key };
  } else delete doc.https;
  return YAML.stringify(doc);
}

export interface JobsWaitOptions {
  /** give up when no further job has been listed for this long (default 120 s) */
  idleMs?: number;
  /** give up after this long in any case (default 10 minutes) */
  capMs?: number;
  /** between two reads of /jobs (default 500 ms) */
  intervalMs?: number;
  /** called at the first read, then at most every `progressEveryMs` (default 10 s), and when every job is listed */
  onProgress?: (p: { listed: number; expected: number; elapsedMs: number }) => void;
  progressEveryMs?: number;
  /** clock and wait, for tests */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface JobsListed {
  /** from the start of the wait to the read that listed every job */
  ms: number;
  expected: number;
  /** each new count of listed jobs, with when it was first read (ms from the start of the wait) */
  progress: { ms: number; listed: number }[];
}

/** The wait for jobs gave up: none of the missing ones appeared for `idleMs`, or `capMs` passed. */
export class JobsWaitError extends Error {
  constructor(
    message: string,
    readonly missing: string[],
    readonly progress: JobsListed["progress"],
  ) {
    super(message);
  }
}

/**
 * Reads the listed jobs (`list`: null while it cannot say; a failed read counts as nothing new) until every job of
 * `expected` is among them. It gives up only when no new job has appeared for `idleMs` (a stuck allocator) or when
 * `capMs` has passed: in a world of thousands of nodes the allocator lists its jobs over minutes, a few at a time, as
 * its Kubernetes discovery comes up.
 */
export async function waitForJobsListed(list: () => Promise<ReadonlySet<string> | null>, expected: readonly string[], options: JobsWaitOptions = {}): Promise<JobsListed> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const idleMs = options.idleMs ?? 120_000;
  const capMs = options.capMs ?? 600_000;
  const intervalMs = options.intervalMs ?? 500;
  const progressEveryMs = options.progressEveryMs ?? 10_000;
  const start = now();
  const progress: JobsListed["progress"] = [];
  let listed = -1;
  let lastNew = start;
  let lastReport = -Infinity;
  let missing: string[] = [...expected];
  let lastError = "";
  for (;;) {
    try {
      const have = await list();
      if (have) {
        missing = expected.filter((j) => !have.has(j));
        lastError = "";
      }
    } catch (e) {
      lastError = (e as Error).message;
    }
    const t = now();
    const count = expected.length - missing.length;
    // a new high is progress (a count that drops and comes back, as after a restart, is not)
    if (count > listed) {
      if (count > 0) lastNew = t;
      listed = count;
      progress.push({ ms: t - start, listed });
    }
    if (!missing.length) {
      options.onProgress?.({ listed, expected: expected.length, elapsedMs: t - start });
      return { ms: t - start, expected: expected.length, progress };
    }
    if (t - lastReport >= progressEveryMs) {
      lastReport = t;
      options.onProgress?.({ listed, expected: expected.length, elapsedMs: t - start });
    }
    const idle = t - lastNew >= idleMs;
    if (idle || t - start >= capMs) {
      const why = idle ? `no new job was listed for ${Math.round((t - lastNew) / 1000)} s` : `it was still listing them after ${Math.round(capMs / 1000)} s`;
      throw new JobsWaitError(
        `listed ${listed} of ${expected.length} jobs (${why}; missing: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", ..." : ""})${lastError ? `; last read: ${lastError}` : ""}`,
        missing,
        progress,
      );
    }
    await sleep(intervalMs);
  }
}

export class RealTa {
  /** the URL the dashboard polls: HTTPS when started with `https` (always for the fork), else HTTP */
  url = "";
  /** upstream: the plain-HTTP listener (also when HTTPS is on), which truth and tests read; the fork has none ("") */
  httpUrl = "";
  readonly logFile: string;
  private child: ChildProcess | undefined;
  private httpPort = 0;
  private httpsPort = 0;
  private stopping = false;
  /** the processes killed on purpose (restart, close): their exit is not a crash */
  private readonly killed = new WeakSet<ChildProcess>();
  /** the crash loop, once the process has died on its own; null while it runs */
  crashed: Crash | null = null;
  /** how many times it died on its own in all (the TA pod's restart count) */
  crashes = 0;
  private crashTimer: NodeJS.Timeout | undefined;
  private runningSince = 0;
  /** the last crash of the current loop (its back-off grows until the process has run for 10 minutes) */
  private loop: Crash | undefined;
  private readonly client: { ca: Buffer; cert: Buffer; key: Buffer } | undefined;
  private readonly onExit = () => this.child?.kill("SIGKILL");

  private constructor(readonly options: RealTaOptions) {
    this.logFile = path.join(options.dir, this.fork ? "cloudwatch-target-allocator.log" : "otel-allocator.log");
    const c = options.client;
    this.client = c ? { ca: fs.readFileSync(c.ca), cert: fs.readFileSync(c.cert), key: fs.readFileSync(c.key) } : undefined;
  }

  private get fork(): boolean {
    return this.options.flavor === "cloudwatch";
  }

  /** the program's name in messages */
  get program(): string {
    return this.fork ? "the CloudWatch fork's allocator" : "otel-allocator";
  }

  static async start(options: RealTaOptions): Promise<RealTa> {
    fs.mkdirSync(options.dir, { recursive: true });
    if (options.flavor === "cloudwatch" && (!options.https || !options.client)) throw new Error("the CloudWatch fork's allocator serves only HTTPS: it needs `https` (its files) and `client` (to read it)");
    const ta = new RealTa(options);
    const hostPart = options.host.includes(":") ? `[${options.host}]` : options.host;
    if (ta.fork) {
      ta.httpsPort = options.port || (await freePort(options.host));
      ta.url = `https://${hostPart}:${ta.httpsPort}`;
    } else {
      ta.httpPort = options.port || (await freePort(options.host));
      if (options.https) ta.httpsPort = await freePort(options.host);
      ta.httpUrl = `http://${hostPart}:${ta.httpPort}`;
      ta.url = options.https ? `https://${hostPart}:${ta.httpsPort}` : ta.httpUrl;
    }
    process.once("exit", ta.onExit);
    await ta.spawn();
    ta.supervise();
    return ta;
  }

  /** From now on a death of the process that nobody asked for is a crash: the kubelet's restart with back-off. */
  private supervise(): void {
    const child = this.child;
    if (!child) return;
    this.runningSince = Date.now();
    child.once("exit", (code, signal) => {
      if (this.stopping || this.killed.has(child) || child !== this.child) return;
      // the kubelet forgets the back-off of a container that ran for 10 minutes
      const loop = this.loop && Date.now() - this.runningSince < 600_000 ? this.loop : undefined;
      const restarts = loop ? loop.restarts + 1 : 0;
      const panic = this.logTail(200).split("\n").reverse().find((l) => l.startsWith("panic: "));
      const reason = panic ? panic.slice("panic: ".length) : `exited (${signal ?? code})`;
      const backoffMs = crashBackoffMs(restarts, this.options.restartBackoffMs);
      this.crashes++;
      this.crashed = { reason, since: loop?.since ?? Date.now(), restarts, backoffMs };
      this.loop = this.crashed;
      this.options.onCrash?.(this.crashed);
      clearTimeout(this.crashTimer);
      this.crashTimer = setTimeout(() => void this.restartAfterCrash(), backoffMs);
      this.crashTimer.unref?.();
    });
  }

  private async restartAfterCrash(): Promise<void> {
    if (this.stopping) return;
    const crashed = this.crashed;
    // spawn() sets the new child before its first await: watched from its start, a death before it is ready is a crash too
    const starting = this.spawn();
    this.supervise();
    const ready = await starting.then(() => true, () => false);
    if (ready && this.crashed === crashed) {
      this.crashed = null;
      this.options.onCrash?.(null);
    }
  }


  /** The listener the demo reads (upstream's HTTP one, the fork's HTTPS one) and its port: the TA pod's backend. */
  get readUrl(): string {
    return this.httpUrl || this.url;
  }

  /** GET `path` on the listener the demo reads, with the client certificate where it is HTTPS. */
  read(pathAndQuery: string, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
    return get(`${this.readUrl}${pathAndQuery}`, timeoutMs, this.client);
  }

  /** the process's PID (tests check that it serves the URL) */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * The process's CPU time so far (user and system, ms) and its resident memory (bytes), from /proc (Linux; undefined
   * elsewhere, or when it is not running). /proc/<pid>/stat counts in clock ticks of 10 ms (USER_HZ, 100 on Linux).
   */
  usage(): { cpuMs: number; rssBytes: number } | undefined {
    return processUsage(this.child?.pid);
  }

  /** Waits (bounded) for the process to exit: its exit code or signal, or undefined while it still runs. */
  async exited(timeoutMs: number): Promise<string | undefined> {
    const child = this.child;
    if (!child) return "never started";
    if (child.exitCode !== null || child.signalCode !== null) return String(child.signalCode ?? child.exitCode);
    return new Promise((resolve) => {
      const timer = setTimeout(() => (child.off("exit", onExit), resolve(undefined)), timeoutMs);
      const onExit = (code: number | null, signal: string | null) => (clearTimeout(timer), resolve(String(signal ?? code)));
      child.once("exit", onExit);
    });
  }

  /** The command line: upstream's flags, or the fork's as its operator's container runs it (HTTPS from flags). */
  private args(configFile: string): string[] {
    const o = this.options;
    const hostPart = o.host.includes(":") ? `[${o.host}]` : o.host;
    if (!this.fork) return ["--config-file", configFile, "--kubeconfig-path", o.kubeconfig, "--listen-addr", `${hostPart}:${this.httpPort}`];
    return [
      "--config-file", configFile,
      "--kubeconfig-path", o.kubeconfig,
      "--enable-prometheus-cr-watcher",
      "--listen-addr-https", `${hostPart}:${this.httpsPort}`,
      "--https-ca-file", o.https!.ca,
      "--https-tls-cert-file", o.https!.cert,
      "--https-tls-key-file", o.https!.key,
    ];
  }

  private async spawn(): Promise<void> {
    const o = this.options;
    const hostPart = o.host.includes(":") ? `[${o.host}]` : o.host;
    const configFile = path.join(o.dir, "targetallocator.yaml");
    fs.writeFileSync(configFile, realTaConfig(o, o.https && !this.fork ? `${hostPart}:${this.httpsPort}` : undefined));
    const log = fs.openSync(this.logFile, "a");
    const child = spawn(o.binary, this.args(configFile), {
      stdio: ["ignore", log, log],
      env: { ...process.env, KUBECONFIG: o.kubeconfig, ...(this.fork && o.collectorNamespace ? { OTELCOL_NAMESPACE: o.collectorNamespace } : {}) },
    });
    fs.closeSync(log);
    this.child = child;
    const exited = new Promise<never>((_, reject) =>
      child.once("exit", (code, signal) => reject(new Error(`${this.program} exited (${signal ?? code}) before it was ready; its log: ${this.logFile}\n${this.logTail()}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([this.waitReady(60_000), exited]);
  }

  /** The last lines of its log (for error messages). */
  logTail(lines = 15): string {
    try {
      return fs
        .readFileSync(this.logFile, "utf8")
        .trimEnd()
        .split("\n")
        .slice(-lines)
        .map((l) => (l.length > 400 ? `${l.slice(0, 400)}...` : l))
        .join("\n");
    } catch {
      return "";
    }
  }

  /** Ready: /readyz answers 200 (the allocator has its scrape configuration) and /jobs answers. */
  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined) break;
      try {
        const r = await this.read("/readyz", 2_000);
        if (r.status === 200 && (await this.read("/jobs", 2_000)).status === 200) return;
        last = `/readyz answered ${r.status}`;
      } catch (e) {
        last = (e as Error).message;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${this.program} was not ready in ${timeoutMs} ms (${last}); its log: ${this.logFile}\n${this.logTail()}`);
  }

  /**
   * Waits until the allocator lists every job of `expected`: ready means it has its scrape configuration, but the jobs of
   * the monitors come after its reads of the Kubernetes API, and in a large world that takes minutes (waitForJobsListed
   * says when it gives up). Resolves with how long it took and when each count of listed jobs was first seen.
   */
  async waitForJobs(expected: readonly string[], options: JobsWaitOptions = {}): Promise<JobsListed> {
    try {
      return await waitForJobsListed(async () => {
        const r = await this.read("/jobs", 10_000);
        return r.status === 200 ? new Set(Object.keys(JSON.parse(r.body) as Record<string, unknown>)) : null;
      }, expected, options);
    } catch (e) {
      if (!(e instanceof JobsWaitError)) throw e;
      throw new Error(`${this.program} ${e.message}; its log: ${this.logFile}\n${this.logTail()}`);
    }
  }

  /** Kills the process (SIGKILL, as a crashed container) and starts it again after `downMs` (same ports, same config). */
  async restart(downMs = 0): Promise<void> {
    clearTimeout(this.crashTimer);
    await this.kill();
    if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
    if (this.stopping) return;
    await this.spawn();
    this.supervise();
    if (this.crashed) {
      this.crashed = null;
      this.options.onCrash?.(null);
    }
  }

  private kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    this.killed.add(child);
    return new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.kill(signal);
    });
  }

  async close(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.crashTimer);
    process.off("exit", this.onExit);
    await this.kill("SIGTERM");
  }

  /** What the allocator assigned, from its own answers: /jobs, each job's /targets, and its gauges on /metrics. */
  async assignments(): Promise<RealAssignments> {
    const jobsAnswer = await this.read("/jobs");
    if (jobsAnswer.status !== 200) throw new Error(`${this.program} /jobs answered ${jobsAnswer.status}`);
    const jobs = Object.keys(JSON.parse(jobsAnswer.body) as Record<string, unknown>).sort();
    const targets: RealTarget[] = [];
    const collectors = new Set<string>();
    for (const job of jobs) {
      const r = await this.read(`/jobs/${encodeURIComponent(job)}/targets`);
      if (r.status !== 200) throw new Error(`${this.program} /jobs/${job}/targets answered ${r.status}`);
      const byCollector = JSON.parse(r.body) as Record<string, { targets?: { targets?: string[]; labels?: Labels }[] }>;
      for (const [collector, entry] of Object.entries(byCollector)) {
        collectors.add(collector);
        for (const group of entry.targets ?? []) {
          for (const address of group.targets ?? []) targets.push({ job, address, labels: { ...(group.labels ?? {}) }, collector });
        }
      }
    }
    const metrics = await this.read("/metrics");
    const gauges: Record<string, number> = {};
    const wanted = GAUGES[this.options.flavor ?? "upstream"];
    for (const line of metrics.body.split("\n")) {
      const m = /^([a-z_]+)(\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line);
      const name = m && wanted[m[1]];
      if (!name) continue;
      gauges[name] = (gauges[name] ?? 0) + Number(m[3]);
    }
    if (this.fork) {
      // The fork keeps every discovered target (no filter), so its kept count is the discovered count of the jobs it
      // lists: its per-job gauge is never removed for a job that went away, so only the listed jobs count.
      const listed = new Set(jobs);
      let kept = 0;
      for (const m of metrics.body.matchAll(/^amazon_cloudwatch_agent_allocator_targets\{job_name="((?:[^"\\]|\\.)*)"\} ([0-9.eE+-]+)$/gm)) {
        if (listed.has(JSON.parse(`"${m[1]}"`) as string)) kept += Number(m[2]);
      }
      gauges.opentelemetry_allocator_targets_remaining = kept;
    }
    return { jobs, targets, collectors: [...collectors].sort(), gauges };
  }
}
