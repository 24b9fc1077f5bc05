import "server-only";
/**
 * The serving thread's side of the poll worker (server/poll/worker.ts). The worker polls every cluster, keeps the
 * snapshots and the history, and computes the API answers; this side keeps, per cluster, what the poll's news told it
 * (SnapshotMeta), the answers the worker pushed after the poll, and a bounded cache of the answers it asked for since.
 * It never parses or analyses anything: an API request costs a map lookup, or one question to the worker.
 *
 * A worker that dies (a bug, out of memory) is started again after a pause that doubles up to 30 s; meanwhile the
 * answers already here keep being served, questions that need the worker get 503 `poll_worker`, and the reason is logged.
 *
 * With `lease` (replicas, server/lease), a handle is local or remote, as the cluster's Lease says: local while this
 * replica holds it (the worker polls the cluster), remote otherwise (the worker does not; the poll summary and the
 * answers come from the holder over the peer path, server/lease/peer.ts). A leased handle keeps the last good answer to
 * each question; it serves it when the source fails: marked stale (`<cluster>/holder`) while the holder cannot be reached,
 * as it is while this replica's first poll after taking the Lease over is pending. So pages never go blank in a switch.
 */
import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import { Worker, type WorkerOptions } from "node:worker_threads";
import type { ClusterConfig, Config } from "@/lib/config/schema";
import type { Role } from "@/lib/model";
import type { Snapshot } from "@/lib/snapshot";
import { AnswerCache } from "@/lib/answer-cache";
import { BoundedWaiters } from "@/lib/waiters";
import { givenFlag, workerExecArgv } from "@/lib/node-flags";
import { ApiError } from "@/server/api-error";
import { questionKey, type AnswerQuestion } from "@/server/poll/answers";
import { withHolderStale, type HolderProblem } from "@/lib/lease/holder-stale";
import { peerAnswer, PeerError, type PeerToken } from "@/server/lease/peer";
import { HolderFollower } from "@/server/lease/follow";
import type { Answer, FromWorker, MetricsText, SnapshotMeta, ToWorker, WorkerInit } from "@/server/poll/protocol";

/** API requests that may wait for a cluster's first poll at once; more are refused (503) at once */
export const MAX_FIRST_POLL_WAITERS = 256;
/** Answers asked for (queries with parameters) kept per cluster until the next poll. */
export const ANSWERS_KEPT_PER_CLUSTER = 256;
/** A question the worker has not answered in this time fails (503): the worker is stuck or gone. */
const QUESTION_TIMEOUT_MS = 30_000;
const RESTART_MAX_MS = 30_000;

type Log = (line: string) => void;
/** a message to the worker before it is given its id */
type Question = ToWorker extends infer M ? (M extends { id: number } ? Omit<M, "id"> : never) : never;

/**
 * The young generation of the worker's heap (both semi-spaces and the new large-object space), in MiB: semi-spaces of
 * about 5 MiB. The worker allocates about 300 MB per poll at 5,000 nodes (a sampling allocation profile: the analysis, the
 * answers, the TAs' /metrics parsed, the scanner's pieces), nearly all of it short-lived; since each thread collects its
 * own garbage (`--single-threaded-gc`, lib/node-flags.ts), every young collection is the poll thread's own CPU. At 6 MiB
 * it ran about 130 young collections per poll (`--trace-gc`), at 16 fewer than half as many. Measured at 5,000 nodes
 * (`npm run bench -- --scales 5000`, one run each, 2026-12-03, docs/performance.md): poll CPU / JSON.parse 0.95 at
 * 16 MiB against 1.02 to 1.04 at 6 and 1.03 at 12; RSS after 10 polls 386 MiB against 369 to 393. (Before the answers
 * were read into one reused buffer, 16 MiB had cost 37 MiB of RSS: each young collection freed read buffers held
 * outside the heap.)
 */
export const POLL_WORKER_YOUNG_MIB = 16;

/** The worker's resource limits: the old generation is what `pollWorker.maxHeapMiB` leaves after the young one. */
export function workerHeapLimits(heap: Config["pollWorker"]): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  return { maxOldGenerationSizeMb: heap.maxHeapMiB - POLL_WORKER_YOUNG_MIB, maxYoungGenerationSizeMb: POLL_WORKER_YOUNG_MIB };
}

/**
 * Node's `--max-old-space-size`, given as a flag or in NODE_OPTIONS (the container image's manifests set it), caps a
 * worker's old generation as well and wins over the limit asked for: then `pollWorker.maxHeapMiB` does not apply. The
 * flag as given, or null.
 */
export function heapFlagOverride(execArgv: readonly string[], nodeOptions = ""): string | null {
  return givenFlag("max-old-space-size", execArgv, nodeOptions);
}

/** The log line for a worker's `error` event: running out of heap names the setting that raises it. */
export function workerFailure(e: unknown, heap: Config["pollWorker"]): string {
  if ((e as NodeJS.ErrnoException)?.code === "ERR_WORKER_OUT_OF_MEMORY")
    return `allocation-lens: the poll worker ran out of its heap (pollWorker.maxHeapMiB: ${heap.maxHeapMiB}); raise pollWorker.maxHeapMiB in the configuration for a cluster this size`;
  return `allocation-lens: poll worker failed: ${(e as Error)?.stack ?? e}`;
}

/**
 * V8's `--max-semi-space-size` is the process', and wins over a worker's `maxYoungGenerationSizeMb`: given for the
 * serving thread (SERVING_NODE_FLAGS: `npm start`, the image's CMD), it decided the poll worker's young generation too,
 * whatever POLL_WORKER_YOUNG_MIB said (`--trace-gc` showed the worker's young collections every ~1.5 MB under a
 * 16 MiB setting). V8 reads the flag when it creates an isolate's heap, so once the serving thread's is made the flag is
 * cleared (0: not set) before a worker is started, and the worker gets the young generation it asks for.
 */
export function releaseSemiSpaceFlag(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ""): boolean {
  if (!givenFlag("max-semi-space-size", execArgv, nodeOptions)) return false;
  v8.setFlagsFromString("--max-semi-space-size=0");
  return true;
}

/**
 * A worker thread on `file`. Node refuses V8 options (`--max-semi-space-size`, `--trace-gc`...) and options of the
 * process in a worker's execArgv: those it names are left out and the log says so, rather than the dashboard failing to
 * start on a flag given to its process. (`--max-old-space-size` is one of them, and still caps the worker's heap: see
 * heapFlagOverride.)
 */
export function startWorker(file: string, options: WorkerOptions & { execArgv: string[] }, log: Log): Worker {
  // Reflect.construct, not `new Worker(file)`: Next's bundler reads the latter as a worker entry to bundle, and the
  // file is not one of its modules (it is the worker's own bundle, or the TypeScript source run through tsx).
  releaseSemiSpaceFlag();
  try {
    return Reflect.construct(Worker, [file, options]);
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw e;
    const named = String((e as Error).message).replace(/^[^:]*:\s*/, "").split(/,\s*/);
    const refused = options.execArgv.filter((a) => named.includes(a));
    // a refusal that names nothing we passed as such (a flag's value, say): none of the flags then
    const execArgv = refused.length ? options.execArgv.filter((a) => !refused.includes(a)) : [];
    log(`allocation-lens: Node refuses ${(refused.length ? refused : options.execArgv).join(" ")} as a worker's own flags: the poll worker starts without them`);
    return Reflect.construct(Worker, [file, { ...options, execArgv }]);
  }
}

/** Where the worker's code is: the built bundle beside the server entry, or the TypeScript source through tsx. */
export function workerEntry(cwd = process.cwd()): { file: string; entry?: string; execArgv: string[] } {
  const built = process.env.ALLOCATION_LENS_POLL_WORKER;
  // the process' own Node flags (--cpu-prof...) apply to the worker too; V8's own a worker refuses: those the process is
  // started with (SERVING_NODE_FLAGS, lib/node-flags.ts) are left out here, others by startWorker, which says so
  if (built) return { file: built, execArgv: workerExecArgv(process.execArgv) };
  const source = path.join(cwd, "server", "poll", "worker.ts");
  const boot = path.join(cwd, "scripts", "ts-worker.mjs");
  if (fs.existsSync(source) && fs.existsSync(boot)) return { file: boot, entry: source, execArgv: ["--conditions=react-server"] };
  throw new Error(`no poll worker: set ALLOCATION_LENS_POLL_WORKER to the built allocation-lens-poll-worker.mjs (npm run build), or run from the source tree (${source})`);
}

/** Where a handle's answers come from: the worker (this replica polls), or the replica holding the cluster's Lease. */
export type HandleMode = { kind: "local" } | { kind: "remote"; holder: string | null; address: string | null };

export class ClusterHandle {
  private meta: SnapshotMeta | undefined;
  private readonly waiters = new BoundedWaiters<SnapshotMeta>(MAX_FIRST_POLL_WAITERS);
  private readonly listeners = new Set<(s: SnapshotMeta, previous: SnapshotMeta | undefined) => void>();
  /** pushed answers of the latest poll, and the ones asked for since (cleared at every poll) */
  private answers: AnswerCache<Answer>;
  /** leased only: the last good answer to each question (bounded, least recently used first), served when the source fails */
  private readonly lastGood = new Map<string, Answer>();
  private current: HandleMode;
  /** remote: why the holder cannot be asked, null while it answers */
  private problem: HolderProblem | null = null;
  private lastPeerSuccess: number | null = null;
  /** remote: stops following the holder */
  private unfollow: (() => void) | undefined;

  constructor(
    readonly config: ClusterConfig,
    private readonly host: PollHost,
    /** with `lease`: the handle starts remote (no holder known) until the Lease is read */
    private readonly leased = false,
  ) {
    this.answers = new AnswerCache<Answer>(ANSWERS_KEPT_PER_CLUSTER, this.ttlMs());
    this.current = leased ? { kind: "remote", holder: null, address: null } : { kind: "local" };
  }

  private ttlMs(): number {
    return Math.max(1000, this.config.pollIntervalSeconds * 1000 * 2);
  }

  /** What the latest poll said of itself, or undefined before the first poll. */
  get latest(): SnapshotMeta | undefined {
    return this.meta;
  }

  get polls(): number {
    return this.meta?.polls ?? 0;
  }

  /** local (this replica polls the cluster) or remote (the Lease's holder does) */
  get mode(): HandleMode {
    return this.current;
  }

  /** remote: the holder's problem while it cannot be asked */
  get holderProblem(): HolderProblem | null {
    return this.problem;
  }

  /** Requests sent to each TA since start, as of the latest poll. */
  taRequests(): Partial<Record<Role, number>> {
    return this.meta?.taRequests ?? {};
  }

  /** The latest poll's summary, waiting up to `timeoutMs` for the first poll; rejects with a WaitRefused. */
  next(timeoutMs = 15_000): Promise<SnapshotMeta> {
    if (this.meta) return Promise.resolve(this.meta);
    return this.waiters.wait(timeoutMs);
  }

  onSnapshot(listener: (s: SnapshotMeta, previous: SnapshotMeta | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The answer to a question, from what the worker pushed or was asked this poll, or asked now (of the holder, when remote). */
  answer(question: AnswerQuestion): Promise<Answer> {
    const key = questionKey(question);
    if (!this.leased) {
      // the worker is starting again: the answer kept from its last poll, however old (it carries its poll's time),
      // rather than a 503 once its time in the cache has run out
      const kept = this.host.workerUp ? undefined : this.answers.peek(key);
      if (kept) return kept;
      return this.answers.get(key, Date.now(), () => this.host.ask<Answer>({ t: "answer", cluster: this.config.name, question }).then(keepOk(key, this.answers)));
    }
    const last = this.lastGood.get(key);
    // the holder is out of reach: the last answer at once, marked, instead of a wait for a timeout per request
    if (this.current.kind === "remote" && this.problem && last) return Promise.resolve(this.marked(last, this.problem));
    return this.answers.get(key, Date.now(), () => this.ask(question).then(keepOk(key, this.answers))).then(
      (a) => {
        if (a.status === 200) return this.remember(key, a);
        // taken over, first poll pending (503 not_ready): the answer the holder gave last
        return a.status === 503 && last ? last : a;
      },
      (e) => {
        if (e instanceof PeerError) {
          this.noteProblem(e);
          if (last) return this.marked(last, this.problem!);
          throw new ApiError(503, "holder_unreachable", `${e.message}; no earlier answer to serve`);
        }
        if (last) return last;
        throw e;
      },
    );
  }

  /**
   * With `lease`: the last good answer to a question, as it is kept for when the source fails (it carries its poll's
   * time), without asking anyone; undefined when there is none, and always without `lease`.
   */
  lastAnswer(question: AnswerQuestion): Answer | undefined {
    return this.lastGood.get(questionKey(question));
  }

  private ask(question: AnswerQuestion): Promise<Answer> {
    const mode = this.current;
    if (mode.kind === "local") return this.host.ask<Answer>({ t: "answer", cluster: this.config.name, question });
    if (!mode.address || !this.host.peer) return Promise.reject(new PeerError("network", mode.holder ? `the holder ${mode.holder} named no address on its Lease` : "no replica holds the cluster's Lease yet"));
    return peerAnswer(mode.address, this.config.name, question, this.host.peer).then((a) => {
      this.peerAnswered();
      return a;
    });
  }

  private remember(key: string, a: Answer): Answer {
    this.lastGood.delete(key);
    this.lastGood.set(key, a);
    while (this.lastGood.size > ANSWERS_KEPT_PER_CLUSTER) this.lastGood.delete(this.lastGood.keys().next().value!);
    return a;
  }

  private marked(a: Answer, problem: HolderProblem): Answer {
    try {
      const body = withHolderStale(JSON.parse(new TextDecoder().decode(a.body)), problem);
      return { status: a.status, body: new TextEncoder().encode(JSON.stringify(body)) };
    } catch {
      return a;
    }
  }

  private noteProblem(e: PeerError): void {
    const mode = this.current;
    const who = mode.kind === "remote" && mode.holder ? `${mode.holder}: ` : "";
    this.problem = { cluster: this.config.name, kind: e.kind, message: `${who}${e.message}`, lastSuccess: this.lastPeerSuccess };
  }

  private peerAnswered(): void {
    this.lastPeerSuccess = Date.now();
    this.problem = null;
  }

  /** @internal the Lease says who polls the cluster now */
  setMode(next: HandleMode): void {
    const was = this.current;
    if (was.kind === next.kind && (next.kind === "local" || (was.kind === "remote" && was.holder === next.holder && was.address === next.address))) return;
    this.current = next;
    this.answers.clear(); // they came from the other source
    this.problem = null;
    this.unfollow?.();
    this.unfollow = undefined;
    if (next.kind === "remote") this.follow(next);
  }

  /**
   * remote: the holder's poll summary, read about twice per poll interval (with the other clusters this replica follows
   * there, server/lease/follow.ts); a new one drops the answers kept for the last. Without an address there is nobody to
   * ask until the Lease names one (setMode).
   */
  private follow(mode: Extract<HandleMode, { kind: "remote" }>): void {
    const follower = this.host.follower;
    if (!mode.address || !follower) return;
    this.unfollow = follower.follow(mode.address, this.config.name, Math.max(500, (this.config.pollIntervalSeconds * 1000) / 2), {
      meta: (meta) => {
        this.peerAnswered();
        if (!this.meta || meta.at !== this.meta.at || meta.polls !== this.meta.polls) this.publish(meta, []);
      },
      problem: (e) => this.noteProblem(e),
    });
  }

  /** The whole latest snapshot from the worker (tests and debugging; it is a structured copy of ~100 MB at 5,000 nodes). */
  snapshot(): Promise<Snapshot> {
    return this.host.ask<Snapshot>({ t: "snapshot", cluster: this.config.name });
  }

  /** @internal the worker's news of a finished poll (ignored while another replica polls the cluster) */
  polled(meta: SnapshotMeta, pushed: Array<{ key: string; answer: Answer }>): void {
    if (this.current.kind !== "local") return;
    this.publish(meta, pushed);
  }

  private publish(meta: SnapshotMeta, pushed: Array<{ key: string; answer: Answer }>): void {
    const previous = this.meta;
    this.meta = meta;
    this.answers.clear();
    const now = Date.now();
    for (const { key, answer } of pushed) {
      this.answers.get(key, now, () => Promise.resolve(answer));
      if (this.leased && answer.status === 200) this.remember(key, answer);
    }
    for (const l of this.listeners) l(meta, previous);
    this.waiters.release(meta);
  }

  /** @internal */
  close(): void {
    this.unfollow?.();
    this.unfollow = undefined;
  }
}

/** Error answers are sent but not kept: the next request asks again. */
function keepOk(key: string, cache: AnswerCache<Answer>) {
  return (a: Answer) => {
    if (a.status !== 200) queueMicrotask(() => cache.forget(key));
    return a;
  };
}

export class PollHost {
  readonly clusters: Map<string, ClusterHandle>;
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private stopping = false;
  private restartMs = 1000;
  private restartTimer: NodeJS.Timeout | undefined;
  /** worker starts so far (1 + restarts) */
  starts = 0;

  /** a worker is running (false from its end until the next one starts) */
  get workerUp(): boolean {
    return this.worker !== undefined;
  }
  /** the poll thread's scheduling priority, as the worker reported it when it started */
  priority: string | undefined;
  private readonly heap: Config["pollWorker"];
  /** with `lease`: the rounds that read the holders' poll summaries of the clusters this replica does not hold */
  readonly follower: HolderFollower | undefined;

  constructor(
    config: Config,
    private readonly configFile: string,
    private readonly log: Log = (line) => console.error(line),
    /** with `lease`: the peer token; every handle starts remote, and the Lease decides (setHolder) */
    readonly peer?: PeerToken,
  ) {
    this.follower = peer ? new HolderFollower(peer) : undefined;
    this.heap = config.pollWorker;
    this.clusters = new Map(config.clusters.map((c) => [c.name, new ClusterHandle(c, this, Boolean(peer))]));
  }

  start(): void {
    const { file, entry, execArgv } = workerEntry();
    // with `lease`, a (re)started worker polls exactly the clusters whose Lease this replica holds
    const polling = this.peer ? [...this.clusters.values()].filter((h) => h.mode.kind === "local").map((h) => h.config.name) : undefined;
    // a fresh count per worker: a restarted worker's texts are its own
    this.metricsVersion = new Int32Array(new SharedArrayBuffer(4));
    this.metricsCopy = undefined;
    const init: WorkerInit & { entry?: string } = { configFile: this.configFile, entry, polling, metricsVersion: this.metricsVersion.buffer as SharedArrayBuffer };
    const override = heapFlagOverride(process.execArgv, process.env.NODE_OPTIONS);
    if (override && this.starts === 0) this.log(`allocation-lens: ${override} caps the poll worker's heap too; pollWorker.maxHeapMiB (${this.heap.maxHeapMiB}) does not apply`);
    const worker = startWorker(file, { workerData: init, execArgv, name: "allocation-lens-poll", resourceLimits: workerHeapLimits(this.heap) }, this.log);
    this.worker = worker;
    this.starts++;
    worker.on("message", (m: FromWorker) => this.receive(m));
    worker.on("error", (e) => this.log(workerFailure(e, this.heap)));
    worker.on("exit", (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.failPending(`the poll worker exited (code ${code})`);
      if (this.stopping) return;
      this.log(`allocation-lens: poll worker exited (code ${code}); starting it again in ${this.restartMs / 1000} s`);
      this.restartTimer = setTimeout(() => this.start(), this.restartMs);
      this.restartMs = Math.min(RESTART_MAX_MS, this.restartMs * 2);
    });
  }

  private receive(m: FromWorker): void {
    switch (m.t) {
      case "started":
        this.priority = m.priority;
        return;
      case "log":
        console[m.level](m.line);
        return;
      case "failed":
        this.log(`allocation-lens: poll worker could not start: ${m.message}`);
        return;
      case "metrics":
        this.metricsCopy = m.metrics;
        return;
      case "polled":
        this.restartMs = 1000;
        if (m.metrics) this.metricsCopy = m.metrics;
        this.clusters.get(m.cluster)?.polled(m.meta, m.answers);
        return;
      case "reply": {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        clearTimeout(p.timer);
        if (m.ok) p.resolve(m.value);
        else p.reject(new ApiError(m.error.status, m.error.code, m.error.message));
        return;
      }
    }
  }

  private failPending(why: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new ApiError(503, "poll_worker", why));
      this.pending.delete(id);
    }
  }

  /** @internal one question to the worker; rejects with an ApiError (503 when the worker is gone or stuck). */
  ask<T>(message: Question): Promise<T> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new ApiError(503, "poll_worker", "the poll worker is restarting"));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ApiError(503, "poll_worker", `the poll worker did not answer within ${QUESTION_TIMEOUT_MS / 1000} s`));
      }, QUESTION_TIMEOUT_MS);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      worker.postMessage({ ...message, id } as ToWorker);
    });
  }

  /**
   * The cluster's Lease changed hands: this replica polls it (`self`) or asks the holder. The worker starts or suspends
   * the cluster's poller; a worker that is restarting gets the list when it starts.
   */
  setHolder(cluster: string, holder: { self: boolean; holder: string | null; address: string | null }): void {
    const handle = this.clusters.get(cluster);
    if (!handle) return;
    const before = handle.mode.kind;
    handle.setMode(holder.self ? { kind: "local" } : { kind: "remote", holder: holder.holder, address: holder.address });
    if (before === handle.mode.kind || !this.worker) return;
    this.ask({ t: "poll", cluster, run: holder.self }).catch((e) => this.log(`allocation-lens: cannot ${holder.self ? "start" : "suspend"} the poller of ${cluster}: ${(e as Error)?.message ?? e}`));
  }

  private metricsCopy: MetricsText | undefined;
  /** the worker's metrics change count (WorkerInit.metricsVersion) */
  private metricsVersion: Int32Array | undefined;

  /**
   * The worker's allocation_lens_* exposition text as UTF-8 bytes, kept outside the JavaScript heap: every scrape writes
   * them as they are. A scrape reads the copy while the worker's change count says it is current; otherwise it asks the
   * worker (which sends the text only when it changed). After the first question the worker also sends the text with every
   * poll's news, so that between polls without churn no scrape asks at all.
   */
  async metricsBytes(): Promise<Uint8Array> {
    const copy = this.metricsCopy;
    if (copy && this.metricsVersion && Atomics.load(this.metricsVersion, 0) === copy.seq) return copy.bytes;
    const r = await this.ask<{ version: string; seq: number; bytes: Uint8Array | null }>({ t: "metrics", have: copy?.version });
    if (r.bytes !== null) this.metricsCopy = { version: r.version, seq: r.seq, bytes: r.bytes };
    else if (copy) this.metricsCopy = { ...copy, seq: r.seq };
    return this.metricsCopy?.bytes ?? new Uint8Array(0);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    for (const h of this.clusters.values()) h.close();
    this.follower?.close();
    const worker = this.worker;
    if (!worker) return;
    try {
      // the pollers and watches stop and the history is flushed in the worker; bounded, then the thread is ended
      await Promise.race([this.ask({ t: "stop" }), new Promise((resolve) => setTimeout(resolve, 5000))]);
    } catch {
      // gone already
    }
    await worker.terminate();
  }
}
