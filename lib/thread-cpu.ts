/**
 * CPU time of the calling thread, in milliseconds. In a worker thread `process.cpuUsage()` counts the whole process (every
 * thread); the poll runs in a worker, and its CPU must not include the serving thread's. On Linux the kernel keeps the
 * figure per thread: the first field of /proc/thread-self/schedstat is the nanoseconds this thread has run. Where that file
 * does not exist, the process' figure is the fallback (`threadCpuSource()` says which one is used).
 */
import fs from "node:fs";

const SCHEDSTAT = "/proc/thread-self/schedstat";
let usable: boolean | undefined;

/** The first field of a schedstat line (nanoseconds on CPU), or null when the line is not one. */
export function parseSchedstat(text: string): number | null {
  const first = text.trim().split(/\s+/)[0];
  if (!first || !/^\d+$/.test(first)) return null;
  return Number(first) / 1e6;
}

function fromSchedstat(): number | null {
  try {
    return parseSchedstat(fs.readFileSync(SCHEDSTAT, "utf8"));
  } catch {
    return null;
  }
}

export function threadCpuMs(): number {
  if (usable !== false) {
    const ms = fromSchedstat();
    usable = ms !== null;
    if (ms !== null) return ms;
  }
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

/** "thread" where the per-thread figure is read, "process" where only the process' is. */
export function threadCpuSource(): "thread" | "process" {
  if (usable === undefined) threadCpuMs();
  return usable ? "thread" : "process";
}
