/**
 * CPU time of the calling thread, for figures such as a poll's CPU when the poll runs in a worker thread:
 * `process.cpuUsage()` there is the whole process (every thread, the serving one and the GC helpers included).
 *
 * On Linux, /proc/thread-self/schedstat read by the thread itself gives its time on CPU in nanoseconds (first field),
 * exact and cheap. Where it is missing (other systems, a /proc without thread-self), the process's CPU is returned instead,
 * which is what a single-threaded poll measured before.
 */
import fs from "node:fs";

/** Nanoseconds on CPU from the text of a schedstat file ("<ns on CPU> <ns waiting> <timeslices>"), null when unreadable. */
export function parseSchedstat(text: string): number | null {
  const first = text.trim().split(/\s+/)[0];
  if (!first || !/^\d+$/.test(first)) return null;
  return Number(first);
}

const readSchedstat = () => fs.readFileSync("/proc/thread-self/schedstat", "utf8");

const processCpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/**
 * Milliseconds the calling thread has spent on CPU since it started (a counter: subtract two readings).
 * `read` and `fallback` are for tests. Do not mix readings from before and after a fallback.
 */
export function threadCpuMs(read: () => string = readSchedstat, fallback: () => number = processCpuMs): number {
  let ns: number | null = null;
  try {
    ns = parseSchedstat(read());
  } catch {
    /* no /proc/thread-self here */
  }
  return ns === null ? fallback() : ns / 1e6;
}

/** Whether threadCpuMs() measures the thread (true) or falls back to the whole process (false). */
export function threadCpuIsPerThread(read: () => string = readSchedstat): boolean {
  try {
    return parseSchedstat(read()) !== null;
  } catch {
    return false;
  }
}
