/**
 * The one launcher of the demo cluster: spawns its CLI (`npm run demo-cluster`'s entry point) as a child process and waits
 * for its one line of JSON (docs/ARCHITECTURE.md, "The demo cluster's CLI"). A child process keeps the simulated cluster's
 * CPU off its user's event loop. Used by the dashboard's runtime (demo mode), the bench and the attack suite, the e2e
 * setup and the demo's acceptance tests.
 *
 * The entry is found from `root` (the repository: the directory holding packages/), not from this module's location:
 * Next bundles this module into the dashboard's server, where its own path means nothing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import type { DemoInfo } from "./info";

/** The CLI's entry point under `root`. Named by segments: the standalone output's file tracing copies literal paths. */
export function demoEntry(root = process.cwd()): string {
  return path.join(root, "packages", "demo-cluster", "src", "main.ts");
}

/**
 * Whether `dir` is a source tree the demo can run from (the container image is not: it has no configuration files of the
 * sources). It lists the directory instead of naming a file, for the same reason as demoEntry.
 */
export function hasSourceTree(dir: string): boolean {
  try {
    const names = new Set(fs.readdirSync(dir));
    return ["tsconfig", "package-lock"].every((n) => names.has(`${n}.json`)) && names.has("packages");
  } catch {
    return false;
  }
}

/** The command that runs the CLI with `args`, as `npm run demo-cluster -- <args>` does (plain Node, TypeScript by tsx). */
export function demoCommand(args: string[] = [], root = process.cwd()): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", "tsx", demoEntry(root), ...args] };
}

export interface LaunchOptions {
  /** the repository (default: the current directory); the child runs there */
  root?: string;
  /** how long to wait for the JSON line (default 60 s); the child is killed when it does not come */
  timeoutMs?: number;
  /** the child's stderr: inherited (default) or kept for output() */
  stderr?: "inherit" | "capture";
  /** each stdout line after the JSON line (default: none kept; output() has the last 20 kB either way) */
  onLine?: (line: string) => void;
  /** extra environment for the child */
  env?: Record<string, string>;
  /** kill the child when this process exits (default true) */
  killOnExit?: boolean;
  /**
   * the child closes as on SIGTERM (its temporary directory removed) when this process dies, even by SIGKILL, which no
   * exit handler sees (default true): it watches its stdin, a pipe that only this process holds open
   */
  exitWithParent?: boolean;
}

/** Set in the child's environment by launchDemo: the CLI then closes when its stdin ends (its launcher is gone). */
export const EXIT_WITH_PARENT_ENV = "ALLOCATION_LENS_DEMO_EXIT_WITH_PARENT";

export interface LaunchedDemo {
  info: DemoInfo;
  child: ChildProcess;
  /** the child's stdout (and stderr when captured) so far, the last 20 kB */
  output(): string;
  /** resolves with the exit code, or the signal's name */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the child is gone */
  stop(graceMs?: number): Promise<void>;
}

const isDemoInfo = (v: unknown): v is DemoInfo =>
  typeof v === "object" && v !== null && typeof (v as DemoInfo).control === "string" && typeof (v as DemoInfo).dashboardConfig === "string";

/** Starts the demo cluster with `args` and resolves with its JSON line; rejects (the child killed) when it exits first. */
export async function launchDemo(args: string[] = [], opts: LaunchOptions = {}): Promise<LaunchedDemo> {
  const root = opts.root ?? process.cwd();
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const cmd = demoCommand(args, root);
  const watched = opts.exitWithParent ?? true;
  const child = spawn(cmd.command, cmd.args, {
    cwd: root,
    stdio: [watched ? "pipe" : "ignore", "pipe", opts.stderr === "capture" ? "pipe" : "inherit"],
    // The parent's NODE_OPTIONS (Next's, a test runner's) are not the demo's.
    env: { ...process.env, NODE_OPTIONS: "", ...opts.env, [EXIT_WITH_PARENT_ENV]: watched ? "1" : "" },
  });
  // never written, never ended: it closes when this process dies; it must not keep this process alive by itself
  child.stdin?.on("error", () => undefined);
  (child.stdin as { unref?: () => void } | null)?.unref?.();
  let out = "";
  const keep = (s: string) => (out = (out + s).slice(-20_000));
  child.stderr?.on("data", (b: Buffer) => keep(b.toString()));
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? -1));
    child.once("error", (e) => {
      keep(`\nspawn error: ${e.message}`);
      resolve(-1);
    });
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async (graceMs = 5_000) => {
    if (gone()) return;
    child.kill("SIGTERM");
    const t = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(t);
  };
  const onExit = () => {
    if (!gone()) child.kill("SIGKILL");
  };
  if (opts.killOnExit ?? true) {
    process.once("exit", onExit);
    void exited.then(() => process.removeListener("exit", onExit));
  }
  const lines = readline.createInterface({ input: child.stdout! });
  let info: DemoInfo | undefined;
  const ready = new Promise<DemoInfo>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo cluster printed no JSON line within ${timeoutMs / 1000} s:\n${out}`)), timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the demo cluster exited (${code}) before printing its JSON line:\n${out}`));
    });
    lines.on("line", (line) => {
      keep(`${line}\n`);
      if (info) return opts.onLine?.(line);
      if (!line.trim().startsWith("{")) return;
      try {
        const parsed: unknown = JSON.parse(line);
        if (!isDemoInfo(parsed)) return;
        info = parsed;
        clearTimeout(timer);
        resolve(parsed);
      } catch {
        /* not the ready line */
      }
    });
  });
  try {
    return { info: await ready, child, output: () => out, exited, stop };
  } catch (e) {
    await stop(2_000);
    throw e;
  }
}
