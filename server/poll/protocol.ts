/**
 * The messages between the serving thread (server/poll/host.ts) and the poll worker (server/poll/worker.ts). Answers travel
 * as JSON bytes in transferred ArrayBuffers: the serving thread writes them to the socket as they are, without parsing or
 * copying them.
 */
import type { Role } from "@/lib/model";
import type { Snapshot } from "@/lib/snapshot";
import { TARGET_PAGE_SIZE } from "@/lib/views/target-window";

/** The cluster routes whose answers the worker computes (server/poll/answers.ts). */
export const ANSWER_ROUTES = ["summary", "nodes", "node", "collectors", "lost", "monitors", "diagnostics", "targets", "churn", "alerts"] as const;
export type AnswerRoute = (typeof ANSWER_ROUTES)[number];

/** A question for the worker: a cluster route with its query string (server/poll/answers.ts answers it). */
export interface AnswerQuestion {
  route: AnswerRoute;
  /** the request's query string, `cluster` included or not */
  search: string;
  /** the path parameter (`node`: the node's name) */
  name?: string;
}

/**
 * Computed after every poll and pushed to the serving thread: the answers without parameters that every page asks for.
 * The server entry serves them itself, before Next.js (server/inbound/pushed.ts).
 */
export const PUSHED_ROUTES = ["summary", "nodes", "collectors", "lost", "monitors", "diagnostics"] as const satisfies readonly AnswerRoute[];
export type PushedRoute = (typeof PUSHED_ROUTES)[number];

/**
 * Also computed after every poll and sent with the pushed answers, though they have parameters: the targets page's first
 * page in its default order, which every unfiltered visit of the page asks for first (app/targets/page.tsx preloads the
 * same URL). Its first request after a poll would otherwise wait for the worker to sort the poll's targets (145,000 at
 * 5,000 nodes). Served from the handle's cache (server/poll/host.ts), through Next.js.
 */
export const PUSHED_QUESTIONS: readonly AnswerQuestion[] = [...PUSHED_ROUTES.map((route) => ({ route, search: "" })), { route: "targets", search: `?offset=0&limit=${TARGET_PAGE_SIZE}` }];

/** A snapshot without its analysis: what the serving thread keeps of each poll (readiness, waits, tests). */
export type SnapshotMeta = Omit<Snapshot, "analysis"> & {
  /** polls finished so far */
  polls: number;
  /** requests sent to each TA since start, at the end of this poll */
  taRequests: Partial<Record<Role, number>>;
  /** CPU time the worker spent building the pushed answers after the poll */
  answersCpuMs: number;
};

/** A finished answer: HTTP status and the JSON body's bytes. */
export interface Answer {
  status: number;
  body: Uint8Array;
  /**
   * The body gzipped, made by the worker for the pushed routes' answers of GZIP_MIN_BYTES or more (lib/inbound/pushed.ts):
   * compressing in the poll thread, at its lower priority, keeps that work off the serving process' thread pool.
   */
  gzip?: Uint8Array;
}

/** The worker's allocation_lens_* exposition text as UTF-8 bytes, and the version it was rendered at. */
export interface MetricsText {
  version: string;
  /** the worker's change count when the text was rendered, as WorkerInit.metricsVersion holds it */
  seq: number;
  bytes: Uint8Array;
}

export interface WorkerInit {
  configFile: string;
  /** the clusters to poll from the start; undefined: every cluster (without `lease`, every replica polls them all) */
  polling?: string[];
  /**
   * One Int32 the worker keeps at its metrics' change count (WorkerMetrics): the serving thread reads it to know, without
   * asking, whether its copy of the text is current.
   */
  metricsVersion?: SharedArrayBuffer;
}

export type ToWorker =
  | { t: "answer"; id: number; cluster: string; question: AnswerQuestion }
  /** the whole latest snapshot, structured-cloned (tests and debugging; never on a request's path) */
  | { t: "snapshot"; id: number; cluster: string }
  /** the exposition text of the worker's registry (allocation_lens_* series): a MetricsText, bytes null when `have` is current */
  | { t: "metrics"; id: number; have?: string }
  /** start (`run` true) or suspend the cluster's poller: this replica took or lost the cluster's Lease */
  | { t: "poll"; id: number; cluster: string; run: boolean }
  | { t: "stop"; id: number };

export type FromWorker =
  /** `priority`: the poll thread's scheduling priority ("nice 10"), or why it is unchanged */
  | { t: "started"; clusters: string[]; priority: string }
  /**
   * A poll finished. `metrics`: the worker's exposition text as of this poll, sent once a scrape has asked for it (the
   * serving thread then answers scrapes from it without asking the worker, see PollHost.metricsBytes)
   */
  | { t: "polled"; cluster: string; meta: SnapshotMeta; answers: Array<{ key: string; answer: Answer }>; metrics?: MetricsText }
  /** the metrics text of polls whose news did not carry it (several clusters polled within half an interval) */
  | { t: "metrics"; metrics: MetricsText }
  | { t: "reply"; id: number; ok: true; value: unknown }
  | { t: "reply"; id: number; ok: false; error: { status: number; code: string; message: string } }
  | { t: "failed"; message: string }
  /** a line the worker logged, printed by the serving thread's console */
  | { t: "log"; level: "log" | "info" | "warn" | "error" | "debug"; line: string };
