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
import { parentPort, workerData } from "node:worker_threads";
import { loadConfigFile } from "@/server/config";
import { ClusterPoller } from "@/server/poller";
import { startHistory, stopHistory } from "@/server/history/registry";
import { ApiError } from "@/server/api-error";
import { computeAnswer, questionKey, type AnswerContext, type AnswerQuestion } from "@/server/poll/answers";
import { WorkerMetrics } from "@/server/poll/worker-metrics";
import { PUSHED_QUESTIONS, type Answer, type FromWorker, type SnapshotMeta, type ToWorker, type WorkerInit } from "@/server/poll/protocol";
import type { Snapshot } from "@/lib/snapshot";
import { threadCpuMs } from "@/lib/thread-cpu";

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

function withoutAnalysis(s: Snapshot): Omit<Snapshot, "analysis"> {
  const copy: Partial<Snapshot> = { ...s };
  delete copy.analysis;
  return copy as Omit<Snapshot, "analysis">;
}

function main(): void {
  const priority = lowerPriority();
  const config = loadConfigFile(init.configFile);
  const pollers = new Map(config.clusters.map((c) => [c.name, new ClusterPoller(c)]));
  const metrics = new WorkerMetrics(pollers);
  // before the pollers start: the readiness baseline is the first poll's
  startHistory({ config, pollers }, { counters: metrics.churn });

  const context = (cluster: string): AnswerContext => {
    const poller = pollers.get(cluster);
    if (!poller) throw new ApiError(404, "unknown_cluster", `no cluster named "${cluster}" in the configuration`);
    const snapshot = poller.latest;
    if (!snapshot) throw new ApiError(503, "not_ready", "the first poll has not finished yet");
    return { snapshot, cluster: poller.config, config };
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
        for (const question of PUSHED_QUESTIONS) answers.push({ key: questionKey(question), answer: await answer(name, question) });
        const meta: SnapshotMeta = { ...withoutAnalysis(s), polls: poller.polls, taRequests: poller.taRequests(), answersCpuMs: threadCpuMs() - cpu };
        post({ t: "polled", cluster: name, meta, answers }, answers.map((a) => a.answer.body.buffer as ArrayBuffer));
      })();
    });
  }

  port.on("message", (m: ToWorker) => {
    void (async () => {
      try {
        switch (m.t) {
          case "answer": {
            const a = await answer(m.cluster, m.question);
            post({ t: "reply", id: m.id, ok: true, value: a }, [a.body.buffer as ArrayBuffer]);
            return;
          }
          case "snapshot":
            post({ t: "reply", id: m.id, ok: true, value: context(m.cluster).snapshot });
            return;
          case "poll": {
            const poller = pollers.get(m.cluster);
            if (!poller) throw new ApiError(404, "unknown_cluster", `no cluster named "${m.cluster}" in the configuration`);
            if (m.run) poller.start();
            else await poller.suspend();
            post({ t: "reply", id: m.id, ok: true, value: null });
            return;
          }
          case "metrics": {
            // the text only when the serving thread's copy is older: it is ~1 MB at 5,000 collectors. As UTF-8 bytes in a
            // transferred buffer: the serving thread writes them to each scrape's socket as they are, and a string of that
            // size would be allocated in its heap's large-object space at every scrape (a full GC there every few scrapes)
            const r = await metrics.render();
            if (r.version === m.have) post({ t: "reply", id: m.id, ok: true, value: { version: r.version, bytes: null } });
            else {
              const bytes = new TextEncoder().encode(r.text);
              post({ t: "reply", id: m.id, ok: true, value: { version: r.version, bytes } }, [bytes.buffer as ArrayBuffer]);
            }
            return;
          }
          case "stop":
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
