/**
 * What `npm run bench` and `npm run attack` share: the build check, the embedded demo cluster (through
 * server/demo-launcher.ts, the one place that spawns it and reads its JSON line), the built dashboard under `next start`
 * on 127.0.0.1, readiness, the RSS of a process tree, percentiles, and stopping every child process on exit.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { DemoInfo } from "@/server/demo-launcher";

export const root = path.resolve(import.meta.dirname, "..");
export const nextBin = path.join(root, "node_modules/next/dist/bin/next");
export const hasBuild = () => fs.existsSync(path.join(root, ".next", "BUILD_ID"));

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** Builds the dashboard (next build) when there is no build yet. */
export function buildIfMissing(log: (m: string) => void): void {
  if (hasBuild()) return;
  log("building the dashboard (next build)...");
  const b = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (b.status !== 0) throw new Error("next build failed");
}

/** The demo cluster in its own process; `args` as for `npm run demo-cluster`. Stopped by stopAll() or at exit. */
export async function startDemo(args: string[]): Promise<{ info: DemoInfo; child: ChildProcess }> {
  // imported here, not at the top: the attack's observer thread loads this module without the react-server condition
  const { launchDemo } = await import("@/server/demo-launcher");
  const demo = await launchDemo(args, root);
  children.add(demo.child);
  return demo;
}

/** A free TCP port on 127.0.0.1 (so that runs beside other servers on the machine do not collide). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Dashboard {
  child: ChildProcess;
  pid: number;
  port: number;
  base: string;
  /** stdout and stderr so far (when started with `capture`; the first 8 MiB) */
  output(): string;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * The built dashboard as `npm start` runs it (scripts/start.mjs: the server entry with its inbound limits, in front of
 * Next.js) on 127.0.0.1:`port` with ALLOCATION_LENS_CONFIG=`config`. Without `capture`, stdout is
 * dropped and stderr inherited (the bench); with it, both are kept for output().
 */
export function startDashboard(opts: { config: string; port: number; nodeArgs?: string[]; env?: Record<string, string>; capture?: boolean }): Dashboard {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), path.join(root, "scripts/start.mjs")], {
    cwd: root,
    stdio: ["ignore", opts.capture ? "pipe" : "ignore", opts.capture ? "pipe" : "inherit"],
    env: { ...process.env, ALLOCATION_LENS_CONFIG: opts.config, NEXT_TELEMETRY_DISABLED: "1", HOST: "127.0.0.1", PORT: String(opts.port), ...(opts.env ?? {}) },
  });
  children.add(child);
  const chunks: Buffer[] = [];
  let kept = 0;
  const keep = (c: Buffer) => {
    if (kept < 8 * 2 ** 20) chunks.push(c);
    kept += c.length;
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    pid: child.pid!,
    port: opts.port,
    base: `http://127.0.0.1:${opts.port}`,
    output: () => Buffer.concat(chunks).toString("utf8"),
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const t = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(t);
      }
      children.delete(child);
    },
  };
}

/** Waits for /api/readyz 200 (every cluster polled once); throws when the server exits or `timeoutMs` passes. */
export async function waitReady(d: Pick<Dashboard, "base" | "child">, timeoutMs = 120_000, headers: Record<string, string> = {}): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (d.child.exitCode !== null) throw new Error(`the dashboard exited with code ${d.child.exitCode} before it was ready`);
    const r = await fetch(`${d.base}/api/readyz`, { headers, signal: AbortSignal.timeout(5_000) }).catch(() => null);
    if (r?.ok) return;
    await r?.arrayBuffer().catch(() => {});
    await new Promise((res) => setTimeout(res, 500));
  }
  throw new Error(`the dashboard was not ready within ${timeoutMs / 1000} s`);
}

/** Stops every child process started here (dashboards, demo), SIGTERM then SIGKILL after 5 s. */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...children].map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const done = new Promise((r) => c.once("exit", r));
      c.kill("SIGTERM");
      const t = setTimeout(() => c.kill("SIGKILL"), 5_000);
      await done;
      clearTimeout(t);
    }),
  );
  children.clear();
}

/** The pids of `pid` and its descendants, from /proc (Linux), or from `ps` elsewhere. */
export function processTree(pid: number): number[] {
  if (fs.existsSync(`/proc/${pid}/task`)) {
    const out: number[] = [];
    const visit = (p: number) => {
      out.push(p);
      let tasks: string[] = [];
      try {
        tasks = fs.readdirSync(`/proc/${p}/task`);
      } catch {
        return;
      }
      for (const t of tasks) {
        let kids = "";
        try {
          kids = fs.readFileSync(`/proc/${p}/task/${t}/children`, "utf8");
        } catch {
          continue;
        }
        for (const k of kids.trim().split(/\s+/).filter(Boolean)) visit(Number(k));
      }
    };
    visit(pid);
    return out;
  }
  const rows = spawnSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" }).stdout.trim().split("\n").map((l) => l.trim().split(/\s+/).map(Number));
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, pp] of rows) {
      if (tree.has(pp) && !tree.has(p)) {
        tree.add(p);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** Resident memory of `pid` and its descendants, in bytes (VmRSS from /proc; `ps` where there is no /proc). */
export function rssOfTree(pid: number): number {
  if (fs.existsSync(`/proc/${pid}/status`)) {
    let sum = 0;
    for (const p of processTree(pid)) {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"));
        if (m) sum += Number(m[1]) * 1024;
      } catch {
        /* exited meanwhile */
      }
    }
    return sum;
  }
  const out = spawnSync("ps", ["-eo", "pid=,rss="], { encoding: "utf8" }).stdout;
  const rss = new Map(out.trim().split("\n").map((l) => l.trim().split(/\s+/).map(Number) as [number, number]));
  return processTree(pid).reduce((s, p) => s + (rss.get(p) ?? 0) * 1024, 0);
}

/** The p-th percentile (nearest rank) of `xs`; NaN when empty. */
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN;
};
