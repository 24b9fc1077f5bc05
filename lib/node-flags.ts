/**
 * The V8 settings the dashboard's process runs with, and how they meet the flags an operator gives (on the command line
 * or in NODE_OPTIONS). Measured at 5,000 nodes (`npm run bench`): the poll worker kept 160 to 210 MB of heap for about
 * 100 MB live, because V8 lets the old generation grow by a factor it picks from its own speed (up to 4x between full
 * collections); and the serving thread's young generation grew to 16 MiB per semi-space for a thread that allocates
 * little. Together the two settings below took the process' RSS from 436 to 371 MiB, with the poll's CPU unchanged
 * within the machine's noise.
 */

/**
 * The old generation may grow by this much (percent) over what survived the last full collection, in every thread
 * (V8's flags are the process'). Set by the server entry at start, through v8.setFlagsFromString: V8 reads it at every
 * full collection, so it holds for the poll worker started afterwards.
 */
export const HEAP_GROWING_PERCENT = 25;

/**
 * The serving thread's semi-spaces, in MiB: a V8 flag read when the main isolate is created, so it is given on the
 * command line (`npm start`, the container image's CMD). The poll worker's young generation is its own resource limit
 * (POLL_WORKER_YOUNG_MIB in server/poll/host.ts), and Node refuses the flag in a worker's execArgv.
 */
export const SERVING_SEMI_SPACE_MIB = 2;

/**
 * The flags the dashboard's process is started with (`npm start`, the container image's CMD, the bench): V8 reads them
 * when an isolate is created, and Node refuses them in a worker's execArgv (they hold for the worker all the same).
 *
 * `--single-threaded-gc`: each thread collects its own garbage. V8's helper threads belong to the process and run at the
 * default priority: without this flag the poll worker's marking and scavenges ran on them beside the serving thread
 * instead of at the worker's nice +10, and the serving thread's own collections were preempted by them. Measured at
 * 5,000 nodes (`npm run bench -- --scales 5000`, one run each, 2026-12-03, docs/performance.md): API p95 8 to 18 ms
 * instead of 14 to 21, and the serving thread's worst second of lag 26 to 37 ms in seven runs and 51 in one, instead of
 * 31 to 59; the worker's thread now counts its own collections in its CPU (POLL_WORKER_YOUNG_MIB in server/poll/host.ts).
 */
export const GC_THREADING_FLAG = "--single-threaded-gc";
export const SERVING_NODE_FLAGS: readonly string[] = [`--max-semi-space-size=${SERVING_SEMI_SPACE_MIB}`, GC_THREADING_FLAG];

/**
 * The environment the dashboard's process is started with (`npm start`, the container image, the bench): glibc's malloc
 * reads it once, at the process' start. `MALLOC_MMAP_THRESHOLD_`: blocks of 128 KiB and more get pages of their own
 * (mmap) and go back to the system when freed. Without it glibc raises that threshold to the size of each such block
 * freed (up to 32 MiB), so the large buffers a poll passes around (answers to the serving thread, gzipped bodies, TLS and
 * socket reads) land in malloc's arenas instead, which keep what they once held. Measured on 10 clusters of 250 nodes,
 * one replica (2026-12-06): RSS 327-334 MiB -> 295-305, malloc's arenas 71 -> 49 MiB.
 */
export const SERVING_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: String(128 * 1024) };

/** The names of SERVING_NODE_FLAGS, without dashes or value. */
const COMMAND_LINE_ONLY = SERVING_NODE_FLAGS.map((f) => f.replace(/^--/, "").split("=")[0]);

/** `--name` or `--name=value`, dashes or underscores, among the flags given: the first such flag, or null. */
export function givenFlag(name: string, execArgv: readonly string[], nodeOptions = ""): string | null {
  const pattern = new RegExp(`^--${name.replace(/^--/, "").split(/[-_]/).join("[-_]")}(=|$)`);
  return [...execArgv, ...nodeOptions.split(/\s+/)].find((a) => pattern.test(a)) ?? null;
}

/** The V8 flags the server entry sets at start: those the operator did not give a value of their own. */
export function heapFlagsToSet(execArgv: readonly string[], nodeOptions = ""): string[] {
  return givenFlag("heap-growing-percent", execArgv, nodeOptions) ? [] : [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`];
}

/**
 * The process' flags for the poll worker: without those of SERVING_NODE_FLAGS (the semi-space is the worker's own limit;
 * the collector's threading is the process').
 */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  return execArgv.filter((a) => !COMMAND_LINE_ONLY.some((name) => givenFlag(name, [a])));
}
