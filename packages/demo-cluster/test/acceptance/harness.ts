/**
 * Acceptance harness: drives the demo cluster THROUGH ITS CONTRACT (docs/ARCHITECTURE.md, "Contracts other parts rely on"):
 * starts the real CLI entry point through the package's launcher, and talks to it with real clients only (the package's
 * control client, HTTP for the Kubernetes API, node:https with the printed mTLS files for a cloudwatch TA).
 * Every wait is bounded by a deadline; every spawned process is killed (on `stop()`, and on worker exit as a last resort).
 */
import fs from "node:fs";
import https from "node:https";
import path from "node:path";
import type { Role } from "@allocation-lens/allocation/model";
import { controlClient, demoCommand, launchDemo, type ControlAnswer, type DemoInfo, type LaunchedDemo, type TaInfo, type Truth } from "@allocation-lens/demo-cluster";
import { runProcess } from "@allocation-lens/test-support/processes";
import { removeDir, tempDir } from "@allocation-lens/test-support/tmp";

export type { DemoInfo, Role, TaInfo, Truth };

export const REPO = path.resolve(import.meta.dirname, "../../../..");
export const KUBECTL = "/usr/bin/kubectl";
export const PROMETHEUS = "/usr/bin/prometheus";
/** the fake credential every demo scrape config carries (the demo world's marker) */
export { DEMO_SECRET_MARKER as SECRET_MARKER } from "../../src/world/constants";

/** The headers every control API request needs: its per-run token (for the raw requests of the refusal tests). */
export const controlAuth = (info: { controlToken: string }) => ({ Authorization: `Bearer ${info.controlToken}` });

/** Runs the CLI to completion (for argument errors): exit code and output, bounded. */
export async function runDemoCli(args: string[], timeoutMs = 30_000): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const cmd = demoCommand(args, REPO);
  return runProcess(cmd.command, cmd.args, { cwd: REPO, env: { ...process.env, NODE_OPTIONS: "" } }, timeoutMs);
}

export interface Demo {
  info: DemoInfo;
  proc: LaunchedDemo;
  dir: string;
  stop(): Promise<void>;
}

/**
 * Starts the demo cluster with `args` (a temp `--dir` is added and removed on stop) and waits for its JSON line.
 * Rejects (after killing the child) when no line arrives within `timeoutMs` or the process exits first.
 */
export async function startDemo(args: string[] = [], timeoutMs = 45_000): Promise<Demo> {
  const dir = tempDir("lens-acceptance-");
  let proc: LaunchedDemo;
  try {
    proc = await launchDemo([...args, "--dir", dir], { root: REPO, timeoutMs, stderr: "capture" });
  } catch (e) {
    removeDir(dir);
    throw e;
  }
  return {
    info: proc.info,
    proc,
    dir,
    async stop() {
      await proc.stop();
      removeDir(dir);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// control API (through the package's client)

export type HttpAnswer = ControlAnswer;

export const postFault = (info: DemoInfo, fault: Record<string, unknown>): Promise<HttpAnswer> => controlClient(info).request("POST", "/faults", { body: fault });

/** POST a fault and require 200; returns the `did` text. */
export const fault = async (info: DemoInfo, body: Record<string, unknown>): Promise<string> => (await controlClient(info).fault(body)).did;

export const heal = (info: DemoInfo): Promise<HttpAnswer> => controlClient(info).request("DELETE", "/faults");

export const truth = (info: DemoInfo): Promise<Truth> => controlClient(info).truth();

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
  {
    withCert = true,
    maxVersion,
    timeoutMs = 5000,
    accept = "application/json",
    servername,
  }: { withCert?: boolean; maxVersion?: "TLSv1.2" | "TLSv1.3"; timeoutMs?: number; accept?: string; /** the name the server certificate is checked for; default the URL's host */ servername?: string } = {},
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
        ...(servername ? { servername } : {}),
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

async function answer(r: Response): Promise<HttpAnswer> {
  const body = await r.text();
  return { status: r.status, body, json: <T>() => JSON.parse(body) as T };
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
