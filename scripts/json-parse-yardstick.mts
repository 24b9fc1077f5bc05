/**
 * The bench's yardstick, in a process of its own: a plain `JSON.parse` of one poll's TA answers, as the bench fetched them
 * (over the same TLS and HTTP as the dashboard) into one file. The bench runs it while no dashboard is running, so that
 * nothing else of ours competes for the two cores and the ratio poll CPU / yardstick holds from run to run.
 *
 *   node --expose-gc --import tsx scripts/json-parse-yardstick.mts FILE LENGTHS_JSON [REPEATS]
 *
 * FILE holds the answers back to back; LENGTHS_JSON is a JSON array of their byte lengths. Each repeat decodes and parses
 * every answer once (after a full GC, so that one repeat's garbage is not collected in the next); prints one JSON line
 * with the CPU of each repeat, of this thread (threadCpuMs) and of the process (GC helper threads included). The bench
 * starts it with the dashboard's `--single-threaded-gc` (lib/node-flags.ts), so that its collections are its thread's too.
 */
import fs from "node:fs";
import { threadCpuIsPerThread, threadCpuMs } from "@/lib/thread-cpu";

const [file, lengthsFile, repeatsArg] = process.argv.slice(2);
if (!file || !lengthsFile) {
  console.error("usage: node --expose-gc --import tsx scripts/json-parse-yardstick.mts FILE LENGTHS_JSON [REPEATS]");
  process.exit(2);
}
const lengths = JSON.parse(fs.readFileSync(lengthsFile, "utf8")) as number[];
const bytes = fs.readFileSync(file);
const repeats = Number(repeatsArg ?? 3);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const threadMs: number[] = [];
const processMs: number[] = [];
for (let r = 0; r < repeats; r++) {
  gc();
  const t0 = threadCpuMs();
  const p0 = process.cpuUsage();
  let at = 0;
  for (const n of lengths) {
    JSON.parse(bytes.toString("utf8", at, at + n));
    at += n;
  }
  const p = process.cpuUsage(p0);
  threadMs.push(threadCpuMs() - t0);
  processMs.push((p.user + p.system) / 1000);
}
console.log(JSON.stringify({ answers: lengths.length, bytes: bytes.length, perThread: threadCpuIsPerThread(), threadMs, processMs }));
