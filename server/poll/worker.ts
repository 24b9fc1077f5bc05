import "server-only";
/**
 * The poll worker: a worker thread that does all of the polling, off the thread that serves HTTP. It reads the
 * configuration, runs one ClusterPoller per cluster (TA reads, Kubernetes informers, analysis), keeps the churn history
 * and the allocation_lens_* metrics, and answers the serving thread's questions (server/poll/host.ts): API answers as
 * JSON bytes, the metrics text, a snapshot for tests. After every poll it posts the poll's summary and the answers of
 * PUSHED_QUESTIONS (protocol.ts), so that the serving thread has them before anyone asks. With `lease`, it polls only
 * the clusters whose Lease this replica holds: the serving thread starts and suspends their pollers (`poll` messages,
 * server/lease).
 *
 * Started from a bundle (`npm run build` writes <dist>/allocation-lens-poll-worker.mjs) or, in a source tree, through
 * tsx (scripts/ts-worker.mjs).
 */
import fs from "node:fs";
import os from "node:os";
import { format } from "node:util";
import zlib from "node:zlib";
import { parentPort, workerData } from "node:worker_threads";
import { releaseMemory, unavailable as memoryAddonMissing } from "@allocation-lens/memory";
import { loadConfigFile } from "@/server/config";
import { ClusterPoller } from "@/server/poller";
import { releaseHistory, startHistory, stopHistory } from "@/server/history/registry";
import { ApiError } from "@/server/api-error";
import { computeAnswer, questionKey, type AnswerContext, type AnswerQuestion } from "@/server/poll/answers";
import { WorkerMetrics } from "@/server/poll/worker-metrics";
import { PUSHED_QUESTIONS, PUSHED_ROUTES, type Answer, type FromWorker, type MetricsText, type SnapshotMeta, type ToWorker, type WorkerInit } from "@/server/poll/protocol";
import { GZIP_MIN_BYTES } from "@/lib/inbound/pushed";
import type { Snapshot } from "@/lib/snapshot";
import { threadCpuMs } from "@/lib/thread-cpu";
import { MetricsPushGate, metricsPushGapMs } from "@/lib/metrics/push-gate";
import { formatBytes } from "@/lib/format";

const port = parentPort!;

// The worker's log lines go through the serving thread's console, in order with the worker's replies (a worker's own
// stdout reaches the parent through a stream of its own, later than a reply sent meanwhile).
for (const level of ["log", "info", "warn", "error", "debug"] as const) {
  console[level] = (...args: unknown[]) => port.postMessage({ t: "log", level, line: format(...args) } satisfies FromWorker);
}
const init = workerData as WorkerInit;
const post = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

function encode(value: unknown, status = 200): Answer {
  // TextEncoder's result owns its ArrayBuffer (a Buffer may share a pooled one): it can be transferred
  return { status, body: new TextEncoder().encode(JSON.stringify(value)) };
}

function errorAnswer(e: unknown, question: AnswerQuestion): Answer {
  if (e instanceof ApiError) return encode({ error: { code: e.code, message: e.message } }, e.status);
  console.error(`allocation-lens: API error (${question.route})`, (e as Error)?.message);
  return encode({ error: { code: "internal", message: "internal error" } }, 500);
}

/**
 * The poll thread runs at a lower scheduling priority than the thread that serves HTTP (nice +10 for this thread only, on
 * Linux, where /proc/thread-self names the thread's id): when both want the CPU, page loads and API answers go first and
 * the poll takes a little longer. Lowering one's own priority needs no privilege; where it fails the poll runs as before.
 */
export const POLL_THREAD_NICE = 10;

function lowerPriority(): string {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return "no thread id";
    os.setPriority(tid, Math.max(os.getPriority(tid), POLL_THREAD_NICE));
    return `nice ${os.getPriority(tid)}`;
  } catch (e) {
    return `unchanged (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
}

/**
 * A pushed route's answer with its body gzipped as well (level 6, on this thread: synchronous zlib runs here at the poll
 * thread's priority, where zlib's asynchronous calls would run in the process' thread pool at the serving thread's). About
 * 11 ms per poll at 5,000 nodes for the four large answers (1.8 MB of nodes, 1.3 MB of collectors).
 */
function withGzip(question: AnswerQuestion, a: Answer): Answer {
  if (question.search !== "" || !(PUSHED_ROUTES as readonly string[]).includes(question.route)) return a;
  if (a.status !== 200 || a.body.byteLength < GZIP_MIN_BYTES) return a;
  // a copy that owns its ArrayBuffer, to transfer (zlib's result may be a view of a larger one)
  return { ...a, gzip: new Uint8Array(zlib.gzipSync(a.body, { level: 6 })) };
}

function transferable(a: Answer): ArrayBuffer[] {
  return a.gzip ? [a.body.buffer as ArrayBuffer, a.gzip.buffer as ArrayBuffer] : [a.body.buffer as ArrayBuffer];
}

function withoutAnalysis(s: Snapshot): Omit<Snapshot, "analysis"> {
  const copy: Partial<Snapshot> = { ...s };
  delete copy.analysis;
  return copy as Omit<Snapshot, "analysis">;
}

/**
 * How long after the last cluster handed over (its poller suspended) the thread gives the memory of the clusters it no
 * longer polls back to the system: their readings are garbage by then, but V8 keeps its heap grown until a
 * memory-reducing collection, and glibc keeps freed memory resident in its arenas (a replica that held every cluster and
 * handed half of them over stayed ~35 MiB above one that had only ever held its half). Several hand-overs in a row (one
 * cluster at a time, as a replica sheds its excess) make one release, after the last.
 */
const RELEASE_AFTER_HANDOVER_MS = 10_000;

function main(): void {
  const priority = lowerPriority();
  const config = loadConfigFile(init.configFile);
  const pollers = new Map(config.clusters.map((c) => [c.name, new ClusterPoller(c)]));
  const metrics = new WorkerMetrics(pollers, init.metricsVersion);
  // before the pollers start: the readiness baseline is the first poll's
  startHistory({ config, pollers }, { counters: metrics.churn });

  const context = (cluster: string): AnswerContext => {
    const poller = pollers.get(cluster);
    if (!poller) throw new ApiError(404, "unknown_cluster", `no cluster named "${cluster}" in the configuration`);
    const snapshot = poller.latest;
    if (!snapshot) throw new ApiError(503, "not_ready", "the first poll has not finished yet");
    return { snapshot, cluster: poller.config, config };
  };

  /**
   * Once a scrape has asked for the metrics text, it goes with every poll's news; the serving thread answers scrapes from
   * that copy while its change count is current (PollHost.metricsBytes) and asks only after a change between polls. Each
   * reply wakes the serving thread while this thread, at its lower priority, may still hold the message port's lock (Node
   * signals the receiver before releasing it): the serving thread then waits for the lock until this thread is scheduled
   * again (31 and 32 ms, twice in one bench run at 5,000 nodes, seen with `perf sched`).
   */
  let metricsWanted = false;
  const metricsText = (r: Awaited<ReturnType<WorkerMetrics["render"]>>): MetricsText => ({ version: r.version, seq: r.seq, bytes: new TextEncoder().encode(r.text) });

  // with many clusters, the text goes with a poll's news at most once per half poll interval (lib/metrics/push-gate.ts)
  const pushGate = new MetricsPushGate(metricsPushGapMs([...pollers.values()].map((p) => p.config.pollIntervalSeconds)));
  let pushTimer: ReturnType<typeof setTimeout> | undefined;
  /** whether this poll's news carries the text; otherwise a send of its own at the gap's end */
  const pushNow = (): boolean => {
    const d = pushGate.poll(performance.now());
    if (d.send === "later") {
      pushTimer = setTimeout(() => {
        pushGate.sent(performance.now());
        void metrics.render().then((r) => {
          const text = metricsText(r);
          post({ t: "metrics", metrics: text }, [text.bytes.buffer as ArrayBuffer]);
        });
      }, Math.max(0, d.at - performance.now()));
      pushTimer.unref?.();
    }
    return d.send === "now";
  };

  let releaseTimer: ReturnType<typeof setTimeout> | undefined;
  let handedOver = 0;
  const releaseSoon = () => {
    handedOver++;
    clearTimeout(releaseTimer);
    releaseTimer = setTimeout(() => {
      const before = process.memoryUsage.rss();
      const r = releaseMemory();
      const n = handedOver;
      handedOver = 0;
      const what = `${n} cluster${n === 1 ? "" : "s"} handed over`;
      if (r === null) console.warn(`allocation-lens: ${what}; their memory stays resident: ${memoryAddonMissing()}`);
      else console.log(`allocation-lens: ${what}: memory given back, RSS ${formatBytes(before)} -> ${formatBytes(process.memoryUsage.rss())} (a full collection of the poll thread's heap, malloc_trim ${r.trimmed ? "gave memory back" : "found none to give"}; ${Math.round(r.ms)} ms)`);
    }, RELEASE_AFTER_HANDOVER_MS);
    releaseTimer.unref?.();
  };

  const answer = async (cluster: string, question: AnswerQuestion): Promise<Answer> => {
    try {
      return encode(await computeAnswer(question, context(cluster)));
    } catch (e) {
      return errorAnswer(e, question);
    }
  };

  for (const [name, poller] of pollers) {
    poller.onSnapshot((s: Snapshot) => {
      metrics.changed();
      void (async () => {
        const cpu = threadCpuMs();
        const answers: Array<{ key: string; answer: Answer }> = [];
        for (const question of PUSHED_QUESTIONS) answers.push({ key: questionKey(question), answer: withGzip(question, await answer(name, question)) });
        // the Alerts view's tracker learns each poll's conditions (since when each holds); its answer is computed at each
        // request instead (not pushed): "the last poll is late" can only be judged then
        await answer(name, { route: "alerts", search: "" });
        const meta: SnapshotMeta = { ...withoutAnalysis(s), polls: poller.polls, taRequests: poller.taRequests(), answersCpuMs: threadCpuMs() - cpu };
        const text = metricsWanted && pushNow() ? metricsText(await metrics.render()) : undefined;
        const transfer = answers.flatMap((a) => transferable(a.answer));
        if (text) transfer.push(text.bytes.buffer as ArrayBuffer);
        post({ t: "polled", cluster: name, meta, answers, metrics: text }, transfer);
      })();
    });
  }

  port.on("message", (m: ToWorker) => {
    void (async () => {
      try {
        switch (m.t) {
          case "answer": {
            const a = await answer(m.cluster, m.question);
            post({ t: "reply", id: m.id, ok: true, value: a }, transferable(a));
            return;
          }
          case "snapshot":
            post({ t: "reply", id: m.id, ok: true, value: context(m.cluster).snapshot });
            return;
          case "poll": {
            const poller = pollers.get(m.cluster);
            if (!poller) throw new ApiError(404, "unknown_cluster", `no cluster named "${m.cluster}" in the configuration`);
            if (m.run) poller.start();
            else {
              await poller.suspend();
              // its per-pod series go some minutes later: the new holder exports them from now on
              releaseHistory(m.cluster, Date.now());
              releaseSoon();
            }
            post({ t: "reply", id: m.id, ok: true, value: null });
            return;
          }
          case "metrics": {
            // the text only when the serving thread's copy is older: it is ~1 MB at 5,000 collectors. As UTF-8 bytes in a
            // transferred buffer: the serving thread writes them to each scrape's socket as they are, and a string of that
            // size would be allocated in its heap's large-object space at every scrape (a full GC there every few scrapes)
            metricsWanted = true;
            const r = await metrics.render();
            if (r.version === m.have) post({ t: "reply", id: m.id, ok: true, value: { version: r.version, seq: r.seq, bytes: null } });
            else {
              const text = metricsText(r);
              post({ t: "reply", id: m.id, ok: true, value: text }, [text.bytes.buffer as ArrayBuffer]);
            }
            return;
          }
          case "stop":
            clearTimeout(pushTimer);
            clearTimeout(releaseTimer);
            await Promise.all([...pollers.values()].map((p) => p.stop()));
            stopHistory();
            post({ t: "reply", id: m.id, ok: true, value: null });
            return;
        }
      } catch (e) {
        const err = e instanceof ApiError ? e : new ApiError(500, "internal", (e as Error)?.message ?? String(e));
        post({ t: "reply", id: m.id, ok: false, error: { status: err.status, code: err.code, message: err.message } });
      }
    })();
  });

  for (const [name, p] of pollers) if (!init.polling || init.polling.includes(name)) p.start();
  post({ t: "started", clusters: [...pollers.keys()], priority });
}

try {
  main();
} catch (e) {
  post({ t: "failed", message: (e as Error)?.message ?? String(e) });
}
