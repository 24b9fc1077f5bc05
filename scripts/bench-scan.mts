/**
 * CPU of reading one job answer at the dashboard's scale (5,000 collectors, 375 targets with a dozen discovered labels
 * each: about the bench's 467 MB over 400 answers), per MB, for: the streaming scanner fed in chunks of the sizes a
 * socket delivers, the scanner fed the whole answer, and JSON.parse + extractJobTargets. With `--baseline <file>`, a
 * whole-buffer `scanJobTargets` from another file too (e.g. an earlier version: `git show <rev>:lib/ta/scan.ts`, written
 * under node_modules/.cache so that its imports resolve).
 *
 *   node --import tsx scripts/bench-scan.mts [--rounds 30] [--baseline node_modules/.cache/scan-baseline.ts]
 *
 * With `--answers DIR` (written by `npm run bench -- --keep-answers DIR`: one real poll's answers back to back), it replays
 * those very bytes instead: per round, JSON.parse of every answer (the bench's yardstick, as it decodes and parses) against
 * the reading the poll does (each job answer fed to the streaming reader in 16 KiB chunks, as TLS delivers them, the
 * collector list carried from answer to answer and the kept values shared per TA; anything refused read by JSON.parse +
 * extractJobTargets), both timed as this thread's CPU, interleaved. No TLS, HTTP or analysis: the reading's own share.
 */
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";
import { threadCpuMs } from "../lib/thread-cpu.ts";
import { JobTargetsScanner, scanJobTargets, type KeptValues } from "../lib/ta/scan.ts";
import { extractJobTargets } from "../lib/ta/extract.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "30" }, baseline: { type: "string" }, answers: { type: "string" } } });
const rounds = Number(values.rounds);
if (values.answers) {
  replay(values.answers, Math.min(rounds, 7));
  process.exit(0);
}

const COLLECTORS = 5000;
const TARGETS = 375;
const collectors = Array.from({ length: COLLECTORS }, (_, i) => `cloudwatch-agent-${i.toString(36).padStart(5, "0")}`);
const link = "/jobs/serviceMonitor%2Fobservability%2Fnode-exporter%2F0/targets?collector_id=";
const items = new Map<number, unknown[]>();
for (let t = 0; t < TARGETS; t++) {
  const c = (t * 13) % COLLECTORS;
  const ip = `10.0.${t >> 8}.${t & 255}`;
  const labels = {
    __address__: `${ip}:9100`,
    __meta_kubernetes_endpoint_address_target_kind: "Pod",
    __meta_kubernetes_endpoint_address_target_name: `node-exporter-${t.toString(36)}`,
    __meta_kubernetes_endpoint_node_name: `ip-10-0-${t >> 8}-${t & 255}.ec2.internal`,
    __meta_kubernetes_endpoint_port_name: "metrics",
    __meta_kubernetes_endpoint_ready: "true",
    __meta_kubernetes_namespace: "observability",
    __meta_kubernetes_pod_container_name: "node-exporter",
    __meta_kubernetes_pod_ip: ip,
    __meta_kubernetes_pod_label_app_kubernetes_io_name: "node-exporter",
    __meta_kubernetes_pod_name: `node-exporter-${t.toString(36)}`,
    __meta_kubernetes_pod_node_name: `ip-10-0-${t >> 8}-${t & 255}.ec2.internal`,
    __meta_kubernetes_pod_uid: `4f8c2a7e-0000-4000-8000-${String(t).padStart(12, "0")}`,
    __meta_kubernetes_service_name: "node-exporter",
  };
  items.set(c, [...(items.get(c) ?? []), { targets: [`${ip}:9100`], labels }]);
}
const answer = Buffer.from(JSON.stringify(Object.fromEntries(collectors.map((c, i) => [c, { _link: link + c, targets: items.get(i) ?? [] }]))));
const mb = answer.length / 1e6;
const chunked = (size: number) => Array.from({ length: Math.ceil(answer.length / size) }, (_, k) => answer.subarray(k * size, (k + 1) * size));

type Read = (previous: readonly string[]) => { collectors: readonly string[] } | null;
const runs: [string, Read][] = [];
if (values.baseline) {
  const base = (await import(pathToFileURL(path.resolve(values.baseline)).href)) as { scanJobTargets: typeof scanJobTargets };
  runs.push(["baseline whole-buffer scan", (previous) => base.scanJobTargets(answer, previous)]);
}
runs.push(["scanJobTargets (whole buffer)", (previous) => scanJobTargets(answer, previous)]);
// a reading's answers share the kept labels' values by collector (server/ta/client.ts)
const kept: KeptValues = new Map();
runs.push(["whole buffer, values shared", (previous) => scanJobTargets(answer, previous, kept)]);
for (const size of [64 * 1024, 16 * 1024, 1024]) {
  const chunks = chunked(size);
  runs.push([
    `streamed, ${size / 1024} KiB chunks`,
    (previous) => {
      const s = new JobTargetsScanner(previous);
      for (const c of chunks) s.feed(c);
      return s.end();
    },
  ]);
}
runs.push([
  "JSON.parse + extractJobTargets",
  () => {
    const r = extractJobTargets(JSON.parse(answer.toString("utf8")));
    return r.ok ? r.value : null;
  },
]);

console.log(`answer: ${(answer.length / 1024).toFixed(0)} KiB, ${COLLECTORS} collectors, ${TARGETS} targets; ${rounds} rounds`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
// interleaved rounds, so that a busy moment of the machine falls on every variant alike
const times = runs.map(() => [] as number[]);
const previous = runs.map(([, read]) => read([])!.collectors); // a poll carries the collector list from answer to answer
for (let r = 0; r < rounds + 3; r++) {
  runs.forEach(([, read], i) => {
    const t0 = performance.now();
    const result = read(previous[i]);
    const ms = performance.now() - t0;
    if (!result || result.collectors.length !== COLLECTORS) throw new Error(`${runs[i][0]}: no result`);
    if (r >= 3) times[i].push(ms); // three rounds of warm-up
  });
}
// the fastest round as well as the median: on a shared machine the median carries other processes' load
console.log(`${"".padEnd(32)} ${"median".padStart(8)} ${"fastest".padStart(8)}  (ms per MB)`);
for (const [i, [name]] of runs.entries()) {
  const per = (ms: number) => (ms / mb).toFixed(2).padStart(8);
  console.log(`${name.padEnd(32)} ${per(median(times[i]))} ${per(Math.min(...times[i]))}`);
}

/** The --answers mode (see the header). */
function replay(dir: string, rounds: number): void {
  const bytes = fs.readFileSync(path.join(dir, "answers.bin"));
  const lengths = JSON.parse(fs.readFileSync(path.join(dir, "answers.json"), "utf8")) as number[];
  const answers: Buffer[] = [];
  let at = 0;
  for (const n of lengths) answers.push(bytes.subarray(at, (at += n)));
  const CHUNK = 16 * 1024;
  // a TA's answers follow its /jobs list: a new TA starts where an answer is no job answer (the scanner refuses it at once)
  const read = () => {
    let previous: readonly string[] = [];
    let kept: KeptValues = new Map();
    let scanned = 0;
    let parsed = 0;
    for (const answer of answers) {
      const s = new JobTargetsScanner(previous, kept);
      for (let k = 0; k < answer.length && !s.refused; k += CHUNK) s.feed(answer.subarray(k, k + CHUNK));
      const r = s.end();
      if (r) {
        previous = r.collectors;
        scanned++;
        continue;
      }
      parsed++;
      const value = JSON.parse(answer.toString("utf8")) as unknown;
      if (!extractJobTargets(value).ok) {
        previous = []; // a /jobs list: the next TA's answers follow
        kept = new Map();
      }
    }
    return { scanned, parsed };
  };
  const parse = () => {
    for (const answer of answers) JSON.parse(answer.toString("utf8"));
  };
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const scanMs: number[] = [];
  const parseMs: number[] = [];
  let counts = { scanned: 0, parsed: 0 };
  for (let r = 0; r < rounds + 1; r++) {
    gc();
    let t0 = threadCpuMs();
    counts = read();
    const s = threadCpuMs() - t0;
    gc();
    t0 = threadCpuMs();
    parse();
    const p = threadCpuMs() - t0;
    if (r > 0) {
      // one round of warm-up
      scanMs.push(s);
      parseMs.push(p);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  console.log(`${answers.length} answers, ${(bytes.length / 1e6).toFixed(0)} MB: ${counts.scanned} scanned, ${counts.parsed} read by JSON.parse; ${rounds} rounds, thread CPU`);
  console.log(`reading (scanner, 16 KiB chunks)  median ${median(scanMs).toFixed(0)} ms, fastest ${Math.min(...scanMs).toFixed(0)} ms`);
  console.log(`JSON.parse (the yardstick)        median ${median(parseMs).toFixed(0)} ms, fastest ${Math.min(...parseMs).toFixed(0)} ms`);
  console.log(`reading / JSON.parse              ${(median(scanMs) / median(parseMs)).toFixed(2)} (median), ${(Math.min(...scanMs) / Math.min(...parseMs)).toFixed(2)} (fastest)`);
}
