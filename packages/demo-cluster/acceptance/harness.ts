/**
 * Acceptance harness: drives the demo cluster THROUGH ITS CONTRACT (docs/ARCHITECTURE.md, "Contracts other parts rely on"):
 * spawns the real CLI entry point as a child process, reads its one JSON line, and talks to it with real clients only
 * (HTTP for the control API and the Kubernetes API, node:https with the printed mTLS files for a cloudwatch TA).
 * Every wait is bounded by a deadline; every spawned process is killed (on `stop()`, and on worker exit as a last resort).
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const REPO = path.resolve(import.meta.dirname, "../../..");
export const KUBECTL = "/usr/bin/kubectl";
export const PROMETHEUS = "/usr/bin/prometheus";
export const SECRET_MARKER = "lens-demo-secret";

export type Role = "per-node" | "cluster-scraper";

export interface TaInfo {
  url: string;
  flavor: "upstream" | "cloudwatch";
  ca?: string;
  cert?: string;
  key?: string;
}

export interface DemoInfo {
  kubeconfig: string;
  kubeApi: string;
  targetAllocators: Partial<Record<Role, TaInfo>>;
  dashboardConfig: string;
  control: string;
  controlToken: string;
  [k: string]: unknown;
}

/** The headers every control API request needs: its per-run token. */
export const controlAuth = (info: { controlToken: string }) => ({ Authorization: `Bearer ${info.controlToken}` });

export interface TruthTarget {
  role: Role;
  job: string;
  address: string;
  node: string | null;
  collector: string | null;
}
export interface TruthCollector {
  role: Role;
  id: string;
  node: string;
  eligible: boolean;
  registered: boolean;
}
export interface Truth {
  at: number;
  targets: TruthTarget[];
  unassigned: Partial<Record<Role, number>>;
  collectors: TruthCollector[];
  registered: Partial<Record<Role, string[]>>;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------------------------------
// child processes

const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
});

export interface Proc {
  child: ChildProcess;
  /** stdout + stderr so far (last 20 kB) */
  output(): string;
  /** resolves with the exit code (or signal name) */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone */
  kill(graceMs?: number): Promise<void>;
}

/** Spawn a process with piped output, tracked so that it is always killed. */
export function startProcess(cmd: string, args: string[], opts: SpawnOptions = {}): Proc {
  const child = spawn(cmd, args, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], ...opts });
  live.add(child);
  let out = "";
  const keep = (b: Buffer) => (out = (out + b.toString()).slice(-20_000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => {
      live.delete(child);
      resolve(code ?? signal ?? -1);
    });
    child.once("error", (e) => {
      live.delete(child);
      out += `\nspawn error: ${e.message}`;
      resolve(-1);
    });
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null || !live.has(child);
  return {
    child,
    output: () => out,
    exited,
    async kill(graceMs = 5000) {
      if (gone()) return;
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(graceMs)]);
      if (!gone()) {
        child.kill("SIGKILL");
        await Promise.race([exited, sleep(2000)]);
      }
    },
  };
}

/** The demo-cluster CLI as `npm run demo-cluster` runs it. */
export const demoCommand = (args: string[]): [string, string[]] => [
  process.execPath,
  ["--conditions=react-server", "--import", "tsx", "server/demo/main.ts", ...args],
];

/** Run the CLI to completion (for argument errors): exit code and output, bounded. */
export async function runDemoCli(args: string[], timeoutMs = 30_000): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const [cmd, argv] = demoCommand(args);
  const child = spawn(cmd, argv, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
  const code = await Promise.race([
    new Promise<number | string>((resolve) => child.once("exit", (c, s) => resolve(c ?? s ?? -1))),
    sleep(timeoutMs).then(() => "timeout" as const),
  ]);
  if (code === "timeout") child.kill("SIGKILL");
  live.delete(child);
  return { code, stdout, stderr };
}

export interface Demo {
  info: DemoInfo;
  proc: Proc;
  dir: string;
  stop(): Promise<void>;
}

/**
 * Start the demo cluster with `args` (a temp `--dir` is added and removed on stop), wait for its JSON line.
 * Rejects (after killing the child) when no line arrives within `timeoutMs` or the process exits first.
 */
export async function startDemo(args: string[] = [], timeoutMs = 45_000): Promise<Demo> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lens-acceptance-"));
  const [cmd, argv] = demoCommand([...args, "--dir", dir]);
  const proc = startProcess(cmd, argv);
  let stdout = "";
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo-cluster printed no JSON line within ${timeoutMs} ms:\n${proc.output()}`)), timeoutMs);
    proc.child.stdout!.on("data", (b: Buffer) => {
      stdout += b.toString();
      const nl = stdout.indexOf("\n");
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(stdout.slice(0, nl));
      }
    });
    void proc.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`demo-cluster exited (${code}) before printing its JSON line:\n${proc.output()}`));
    });
  }).catch(async (e) => {
    await proc.kill();
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  let info: DemoInfo;
  try {
    info = JSON.parse(line) as DemoInfo;
  } catch {
    await proc.kill();
    throw new Error(`demo-cluster's first stdout line is not JSON: ${line}`);
  }
  return {
    info,
    proc,
    dir,
    async stop() {
      await proc.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// bounded waiting

/**
 * Poll `probe` until it returns a value that is not undefined/false, or throw after `timeoutMs` with the last value
 * (or error) in the message. Probe errors count as "not yet".
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 10_000, intervalMs = 200, last }: { timeoutMs?: number; intervalMs?: number; last?: () => unknown } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
      lastError = undefined;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const detail = lastError ? `last error: ${(lastError as Error).message}` : last ? `last: ${JSON.stringify(last())?.slice(0, 2000)}` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}. ${detail}`);
    }
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// control API

export interface HttpAnswer {
  status: number;
  body: string;
  json<T = unknown>(): T;
}

async function answer(r: Response): Promise<HttpAnswer> {
  const body = await r.text();
  return { status: r.status, body, json: <T>() => JSON.parse(body) as T };
}

export async function postFault(info: DemoInfo, fault: Record<string, unknown>): Promise<HttpAnswer> {
  const r = await fetch(`${info.control}/faults`, {
    method: "POST",
    headers: { ...controlAuth(info), "Content-Type": "application/json" },
    body: JSON.stringify(fault),
    signal: AbortSignal.timeout(5000),
  });
  return answer(r);
}

/** POST a fault and require 200; returns the `did` text. */
export async function fault(info: DemoInfo, body: Record<string, unknown>): Promise<string> {
  const a = await postFault(info, body);
  if (a.status !== 200) throw new Error(`POST /faults ${JSON.stringify(body)} -> ${a.status} ${a.body}`);
  return a.json<{ did: string }>().did;
}

export async function heal(info: DemoInfo): Promise<HttpAnswer> {
  return answer(await fetch(`${info.control}/faults`, { method: "DELETE", headers: controlAuth(info), signal: AbortSignal.timeout(5000) }));
}

export async function truth(info: DemoInfo): Promise<Truth> {
  const r = await fetch(`${info.control}/truth`, { headers: controlAuth(info), signal: AbortSignal.timeout(5000) });
  if (r.status !== 200) throw new Error(`GET /truth -> ${r.status}`);
  return (await r.json()) as Truth;
}

/** A comparable form of the truth: no timestamp, everything sorted. */
export function normalizeTruth(t: Truth) {
  const key = (o: object) => JSON.stringify(o);
  return {
    targets: t.targets.map(key).sort(),
    collectors: t.collectors.map(key).sort(),
    registered: Object.fromEntries(Object.entries(t.registered).map(([r, ids]) => [r, [...(ids ?? [])].sort()])),
    unassigned: t.unassigned,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Kubernetes API (plain HTTP on loopback, as the kubeconfig says)

export async function kubeGet<T = { items: { metadata: { name: string; namespace?: string }; spec?: Record<string, unknown> }[] }>(
  info: DemoInfo,
  path: string,
): Promise<{ status: number; body: T }> {
  const r = await fetch(`${info.kubeApi}${path}`, { headers: { Accept: "application/json" }, signal: AbortSignal.timeout(5000) });
  const text = await r.text();
  let body: T;
  try {
    body = JSON.parse(text) as T;
  } catch {
    body = text as unknown as T;
  }
  return { status: r.status, body };
}

// ---------------------------------------------------------------------------------------------------------------------
// Target Allocator clients

export interface TlsAnswer extends HttpAnswer {
  protocol: string | null;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * GET over HTTPS with node:https, verifying the TA's server certificate against `ca`; presents the client certificate
 * unless `withCert` is false. `maxVersion` restricts the client's TLS version (to check the server's minimum).
 */
export function tlsGet(
  ta: TaInfo,
  pathAndQuery: string,
  { withCert = true, maxVersion, timeoutMs = 5000, accept = "application/json" }: { withCert?: boolean; maxVersion?: "TLSv1.2" | "TLSv1.3"; timeoutMs?: number; accept?: string } = {},
): Promise<TlsAnswer> {
  if (!ta.ca || !ta.cert || !ta.key) throw new Error(`TA ${ta.url} has no TLS files in the JSON line`);
  const url = new URL(pathAndQuery, ta.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: "GET",
        agent: false,
        ca: fs.readFileSync(ta.ca!),
        ...(withCert ? { cert: fs.readFileSync(ta.cert!), key: fs.readFileSync(ta.key!) } : {}),
        ...(maxVersion ? { maxVersion } : {}),
        headers: { Accept: accept },
        timeout: timeoutMs,
      },
      (res) => {
        const protocol = (res.socket as import("node:tls").TLSSocket).getProtocol?.() ?? null;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers, protocol, json: <T>() => JSON.parse(body) as T });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });
}

/** GET a TA route the way a collector would: mTLS when the JSON line gives TLS files, plain HTTP otherwise. */
export async function taGet(ta: TaInfo, pathAndQuery: string, timeoutMs = 5000): Promise<HttpAnswer> {
  if (ta.ca) return tlsGet(ta, pathAndQuery, { timeoutMs });
  const r = await fetch(new URL(pathAndQuery, ta.url), { headers: { Accept: "application/json" }, signal: AbortSignal.timeout(timeoutMs) });
  return answer(r);
}

/** Go's url.QueryEscape for job names (the TA's path escaping: `/` -> %2F, space -> +). */
export const queryEscape = (s: string) => encodeURIComponent(s).replace(/%20/g, "+").replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export async function taJobs(ta: TaInfo): Promise<string[]> {
  const a = await taGet(ta, "/jobs");
  if (a.status !== 200) throw new Error(`/jobs -> ${a.status}`);
  return Object.keys(a.json<Record<string, unknown>>()).sort();
}

/** `/jobs/<job>/targets`: collector id -> addresses. */
export async function taJobTargets(ta: TaInfo, job: string): Promise<Record<string, string[]>> {
  const a = await taGet(ta, `/jobs/${queryEscape(job)}/targets`);
  if (a.status !== 200) throw new Error(`/jobs/${job}/targets -> ${a.status}`);
  const m = a.json<Record<string, { targets: { targets: string[] }[] }>>();
  return Object.fromEntries(Object.entries(m).map(([c, v]) => [c, v.targets.flatMap((i) => i.targets).sort()]));
}

/** One sample value from the TA's /metrics (first series whose name and labels match), or undefined. */
export async function taMetric(ta: TaInfo, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const a = await taGet(ta, "/metrics");
  if (a.status !== 200) throw new Error(`/metrics -> ${a.status}`);
  for (const line of a.body.split("\n")) {
    if (line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const ls = m[2] ?? "";
    if (Object.entries(labels).every(([k, v]) => ls.includes(`${k}="${v}"`))) return Number(m[3]);
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------------
// truth helpers

export const perNodeCollectorOn = (t: Truth, node: string) => t.collectors.find((c) => c.role === "per-node" && c.node === node);

/** Addresses per job the truth says `collector` holds in `role`. */
export function assignedTo(t: Truth, role: Role, collector: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const x of t.targets) if (x.role === role && x.collector === collector) m.set(x.job, [...(m.get(x.job) ?? []), x.address]);
  for (const v of m.values()) v.sort();
  return m;
}

/** A node name, picked deterministically from the per-node collectors (the `i`th by name). */
export function nodeAt(t: Truth, i: number): string {
  const nodes = [...new Set(t.collectors.filter((c) => c.role === "per-node").map((c) => c.node))].sort();
  return nodes[i % nodes.length];
}
