/**
 * Child processes of tests: spawned with piped output, tracked, and always killed (by `kill()`, and with SIGKILL when the
 * test process exits, as a last resort).
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { sleep } from "./wait";

const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
});

export interface Proc {
  child: ChildProcess;
  /** stdout + stderr so far (last 200 kB) */
  output(): string;
  /** resolves with the exit code (or signal name) */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone */
  kill(graceMs?: number): Promise<void>;
}

/** Spawns `cmd` with piped output, tracked so that it is always killed. */
export function startProcess(cmd: string, args: string[], opts: SpawnOptions = {}): Proc {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...opts });
  live.add(child);
  let out = "";
  const keep = (b: Buffer) => (out = (out + b.toString()).slice(-200_000));
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

/** Runs `cmd` to completion (bounded): exit code (or "timeout", the process killed) and its output. */
export async function runProcess(cmd: string, args: string[], opts: SpawnOptions = {}, timeoutMs = 30_000): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...opts });
  live.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
  const code = await Promise.race([
    new Promise<number | string>((resolve) => {
      child.once("exit", (c, s) => resolve(c ?? s ?? -1));
      child.once("error", (e) => {
        stderr += `\nspawn error: ${e.message}`;
        resolve(-1);
      });
    }),
    sleep(timeoutMs).then(() => "timeout" as const),
  ]);
  if (code === "timeout") child.kill("SIGKILL");
  live.delete(child);
  return { code, stdout, stderr };
}

/** Whether a process of this pid still exists (a signal 0 reaches it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
