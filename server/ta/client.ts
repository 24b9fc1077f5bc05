import "server-only";
/**
 * Reads one Target Allocator: /readyz, /jobs, /jobs/{job}/targets for every job, /metrics, and the keys of /scrape_configs.
 * Every payload goes through its zod schema before anything else touches it. The values of /scrape_configs carry secrets:
 * the body is parsed, its keys kept, and the body dropped at once; it is never stored, logged or returned.
 *
 * One reading is bounded as a whole: a deadline (`pollTimeoutSeconds`, default pollTimeoutDefault of the cluster's
 * interval), a byte budget shared by all its answers (`maxBytesPerPoll`) and a number of jobs (`maxJobs`). The first
 * failure of a request the reading cannot do without ends it: requests in flight are cut and no further one is sent.
 */
import pLimit from "p-limit";
import type { z } from "zod";
import { SourceError } from "@/lib/source-error";
import { jobsSchema, scrapeConfigKeysSchema } from "@/lib/ta/schemas";
import { extractJobTargets, type ExtractedJob, type JobAssignment } from "@/lib/ta/extract";
import { JobAnswerReader } from "@/lib/ta/answer";
import type { KeptValues } from "@/lib/ta/scan";
import { parseTaMetrics, type TaMetrics } from "@/lib/ta/metrics";
import { escapeJobId } from "@/lib/routing";
import type { Role } from "@/lib/model";
import { pollTimeoutDefault, type TaConfig } from "@/lib/config/schema";
import { countObjectMembers } from "@/lib/ta/count";
import { TaHttp, taFileReader, type HttpResult, type PollContext } from "@/server/ta/http";
import { taTransport, type KubeAccess, type Reach, type TaTransport } from "@/server/ta/reach";

/** How a TaClient reaches its TA: a transport, or the cluster's Kubernetes access to build one (default: direct). */
export interface TaClientOptions {
  /** the cluster's Kubernetes access: needed by a reach through the API server and by tlsSecret */
  kube?: KubeAccess;
  /** default: the configuration's `reach` */
  reach?: Reach;
  /** a transport built elsewhere (then kube and reach are not used) */
  transport?: TaTransport;
}
import { pollTurns } from "@/server/cooperative";

export interface TaReading {
  ready: boolean;
  /** job -> its targets (address, node, collector); discovered labels and per-job collector lists are not kept */
  jobs: Map<string, JobAssignment>;
  /** every collector id the TA lists */
  collectors: string[];
  metrics: TaMetrics | null;
  metricsError: string | null;
  /** job names of /scrape_configs (keys only) */
  scrapeConfigJobs: string[] | null;
  bytes: number;
  requests: number;
  /** answers of /jobs/{job}/targets read by the scanner (lib/ta/scan.ts) rather than JSON.parse; the rest took the general path */
  scanned: number;
  ms: number;
}

/**
 * The path of one job's targets on the configured TA: the job name (untrusted: it comes from the TA's /jobs) escaped into
 * exactly one path segment. escapeJobId leaves dots alone, so a job named "." or ".." would be resolved away by the URL
 * parser ("/jobs/../targets" is "/targets"): those segments are percent-encoded too.
 */
export function jobTargetsPath(job: string): string {
  const segment = escapeJobId(job);
  return `/jobs/${segment === "." || segment === ".." ? segment.replace(/\./g, "%2E") : segment}/targets`;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true; // the scanner gives back the previous list itself when an answer repeats it
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class TaClient {
  readonly http: TaHttp;
  readonly source: string;
  /** the deadline of one reading, in seconds */
  readonly pollTimeoutSeconds: number;
  /** the collector list of the last answer the scanner read: the next answer usually repeats it byte for byte */
  private scannedCollectors: readonly string[] = [];
  /**
   * The jobs of the last complete reading: the scanner walks each job's earlier targets alongside its answer and keeps
   * the very objects of those that did not change (lib/ta/scan.ts). The poller holds the same map as this TA's last good
   * data, so this costs no memory of its own.
   */
  private lastJobs: ReadonlyMap<string, JobAssignment> = new Map();
  /**
   * Whether this TA's answers are read whole: set when the scanner refused one of them after its bytes were let go (it
   * was then asked for again), cleared after a reading in which every job answer, read whole, scanned. See lib/ta/answer.ts.
   */
  private answersDoNotScan = false;

  constructor(
    readonly cluster: string,
    readonly role: Role,
    readonly config: TaConfig,
    pollIntervalSeconds = 15,
    options: TaClientOptions = {},
  ) {
    this.source = `${cluster}/ta/${role}`;
    const needsKube = options.kube !== undefined || options.reach !== undefined || config.reach !== "direct" || config.tlsSecret !== undefined;
    const transport = options.transport ?? (needsKube ? taTransport(this.source, config, taFileReader(this.source), options.kube, options.reach) : undefined);
    this.http = new TaHttp(this.source, config, undefined, transport);
    this.pollTimeoutSeconds = config.pollTimeoutSeconds ?? pollTimeoutDefault(pollIntervalSeconds);
  }

  private get key(): string {
    return `targetAllocators.${this.role}`;
  }

  /** One reading of the TA, within its deadline, byte budget and job limit; rejects with the SourceError that ended it. */
  async read(): Promise<TaReading> {
    const stop = new AbortController();
    const end = (err: SourceError) => {
      if (!stop.signal.aborted) stop.abort(err);
      return err;
    };
    const { maxBytesPerPoll } = this.config;
    const context: PollContext = {
      signal: stop.signal,
      budget: {
        remaining: maxBytesPerPoll,
        exceeded: () =>
          end(
            new SourceError({
              source: this.source,
              kind: "too_large",
              message: `the TA's answers in one poll exceed ${maxBytesPerPoll} bytes`,
              hint: `raise ${this.key}.maxBytesPerPoll if this TA really serves that much`,
            }),
          ),
      },
    };
    const timer = setTimeout(
      () =>
        end(
          new SourceError({
            source: this.source,
            kind: "timeout",
            message: `reading the TA took longer than ${this.pollTimeoutSeconds} s`,
            hint: `the TA is slow or sends its answers slowly; raise ${this.key}.pollTimeoutSeconds (a deadline for one poll of this TA) if it is only slow`,
          }),
        ),
      this.pollTimeoutSeconds * 1000,
    );
    // settles at the deadline whatever the reading is waiting for
    const ended = new Promise<never>((_, reject) => stop.signal.addEventListener("abort", () => reject(stop.signal.reason as Error), { once: true }));
    try {
      return await Promise.race([this.readAll(context), ended]);
    } catch (e) {
      throw end(e instanceof SourceError ? e : new SourceError({ source: this.source, kind: "network", message: String((e as Error)?.message ?? e) }));
    } finally {
      clearTimeout(timer);
    }
  }

  private async readAll(context: PollContext): Promise<TaReading> {
    const started = performance.now();
    const before = this.http.requests;
    let bytes = 0;
    const got = async (path: string, sink?: (status: number) => JobAnswerReader) => {
      const r = await this.http.get(path, context, undefined, sink);
      bytes += r.size;
      return r;
    };
    const ready = (await got("/readyz")).status === 200;
    const jobsAnswer = await got("/jobs");
    const listed = countObjectMembers(jobsAnswer.body, this.config.maxJobs);
    if (listed !== null && listed > this.config.maxJobs) {
      throw new SourceError({
        source: `${this.source} /jobs`,
        kind: "too_large",
        message: `the TA lists more than ${this.config.maxJobs} jobs`,
        hint: `raise ${this.key}.maxJobs if this TA really has that many`,
      });
    }
    const jobList = Object.keys(this.json(jobsAnswer, jobsSchema, "/jobs")).sort();
    const limit = pLimit(this.config.concurrency);
    context.signal?.addEventListener("abort", () => limit.clearQueue(), { once: true });
    const jobs = new Map<string, JobAssignment>();
    const collectors = new Set<string>();
    // the node labels' values by collector, shared by this reading's answers: decoded once per node (lib/ta/scan.ts)
    const kept: KeptValues = new Map();
    let lastNames: readonly string[] = [];
    let scanned = 0;
    const wholeAtStart = this.answersDoNotScan;
    await Promise.all(
      jobList.map((job) =>
        limit(async () => {
          const path = jobTargetsPath(job);
          // The scanner reads the compact shape TAs write straight from the bytes, chunk by chunk as they arrive (the
          // reader lets each chunk go once the scanner has read it and seen the TAs' shape); anything else takes the
          // general path, which also names the problem. Both give the same result (lib/ta/scan.test.ts).
          let reader: JobAnswerReader | null = null;
          const earlier = this.lastJobs.get(job)?.targets;
          const sink = (keepAll: boolean) => () => (reader = new JobAnswerReader(this.scannedCollectors, keepAll, kept, earlier));
          let answer = await got(path, sink(this.answersDoNotScan));
          let read = (reader as JobAnswerReader | null)?.end();
          if (read?.kind === "lost") {
            // refused after its bytes were let go: once more, whole (a request and bytes of its own, counted as such)
            this.answersDoNotScan = true;
            answer = await got(path, sink(true));
            read = (reader as JobAnswerReader | null)?.end();
          }
          if (context.signal?.aborted) return;
          let value: ExtractedJob;
          if (read?.kind === "scanned") {
            value = read.value;
            scanned++;
            this.scannedCollectors = value.collectors;
          } else {
            await pollTurns.turn(); // one answer parsed per event-loop turn (server/cooperative.ts)
            if (context.signal?.aborted) return;
            const extracted = extractJobTargets(this.parse(read?.kind === "whole" ? { ...answer, body: read.body } : answer, path));
            if (!extracted.ok) throw this.schemaError(path, extracted.path, extracted.message);
            value = extracted.value;
          }
          const names = value.collectors;
          // Every job lists the same collectors, in the same order, as a rule: then merging is a cheap comparison (a
          // scanned answer that repeats the previous list is that very array; JSON.parse's keys are interned strings)
          // rather than 5,000 set insertions per job.
          if (!sameList(names, lastNames)) for (const c of names) collectors.add(c);
          lastNames = names;
          jobs.set(job, { targets: value.targets });
        }),
      ),
    );
    // answers read whole that all scanned: this TA's answers scan again, and are streamed from the next reading on
    if (wholeAtStart && scanned === jobList.length) this.answersDoNotScan = false;
    this.lastJobs = jobs;
    let metrics: TaMetrics | null = null;
    let metricsError: string | null = null;
    try {
      metrics = parseTaMetrics((await got("/metrics")).body.toString("utf8"), this.config.flavor);
    } catch (e) {
      if (context.signal?.aborted) throw e; // the poll's deadline or byte budget, not a problem of /metrics alone
      metricsError = (e as Error).message;
    }
    let scrapeConfigJobs: string[] | null = null;
    try {
      scrapeConfigJobs = this.json(await got("/scrape_configs"), scrapeConfigKeysSchema, "/scrape_configs");
    } catch (e) {
      if (context.signal?.aborted) throw e;
      scrapeConfigJobs = null; // optional: some deployments block the route; its error text is not kept either
    }
    return {
      ready,
      jobs,
      collectors: [...collectors].sort(),
      metrics,
      metricsError,
      scrapeConfigJobs,
      bytes,
      requests: this.http.requests - before,
      scanned,
      ms: performance.now() - started,
    };
  }

  private json<S extends z.ZodType>(r: HttpResult, schema: S, path: string): z.output<S> {
    const parsed = schema.safeParse(this.parse(r, path));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw this.schemaError(path, issue.path.slice(0, 4).join("."), issue.message);
    }
    return parsed.data;
  }

  /** Only the path of the problem is reported: values may come from /scrape_configs. */
  private schemaError(path: string, at: string, message: string): SourceError {
    return new SourceError({
      source: `${this.source} ${path}`,
      kind: "schema",
      message: `unexpected shape at ${at || "(root)"}: ${message}`,
      hint: "the TA's API changed or a proxy answers in its place",
    });
  }

  private parse(r: HttpResult, path: string): unknown {
    const source = `${this.source} ${path}`;
    try {
      return JSON.parse(r.body.toString("utf8"));
    } catch {
      const html = /html/i.test(r.contentType) || r.body.subarray(0, 64).toString("utf8").trimStart().startsWith("<");
      throw new SourceError({
        source,
        kind: "parse",
        message: html ? "the TA answered HTML instead of JSON" : `the TA's answer is not valid JSON (${r.body.length} bytes)`,
        hint: html ? "an upstream TA answers HTML to Accept: text/html; check a proxy in between rewrites Accept" : undefined,
      });
    }
  }

  close(): void {
    this.http.close();
  }
}
