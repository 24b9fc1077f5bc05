import "server-only";
/**
 * HTTP(S) GET against one Target Allocator, with mTLS up to TLS 1.3, a deadline per request, a response-size limit, the
 * poll's byte budget and cancellation, and bounded concurrency (one keep-alive agent per TA, `maxSockets` = concurrency).
 * Failures become SourceErrors whose messages are fixed per kind of failure: an excerpt of an error body goes to `detail`
 * (the server log) only, and never for /scrape_configs, whose answers may carry credentials.
 */
import { isHeaderValue } from "@/lib/http/header-check";
import { SourceError } from "@/lib/source-error";
import { nextRetryDelay, type RetryPolicy, DEFAULT_RETRY } from "@/lib/retry";
import type { TaConfig } from "@/lib/config/schema";
import { bodyExcerpt, boundedRequest, readConfiguredFile, type BodySink, type BoundedLimits, type ByteBudget } from "@/server/net/client-agent";
import { directTransport, type TaRoute, type TaTransport } from "@/server/ta/reach";

export interface HttpResult {
  status: number;
  /** the body; empty when a sink took it */
  body: Buffer;
  /** bytes of the body read */
  size: number;
  contentType: string;
  ms: number;
}

/** What the requests of one poll share: its byte budget, and a signal that ends them all (deadline, failure). */
export interface PollContext {
  budget?: ByteBudget;
  signal?: AbortSignal;
}

/** an absolute path: no scheme, no authority ("//host"), no fragment, no whitespace or control characters */
const SAFE_PATH = /^\/(?!\/)[\x21\x22\x24-\x7e]*$/;

/** Reads a configured file (TLS, token) into a SourceError naming the key to fix. */
export function taFileReader(source: string): (path: string, what: string) => Buffer {
  return (path, what) =>
    readConfiguredFile(path, what, source, `check targetAllocators.${source.split("/").pop()}.tls paths and bearerTokenFile, and that the file is mounted and readable`);
}

export class TaHttp {
  private readonly transport: TaTransport;
  private readonly headers: Record<string, string>;
  private readonly role: string;
  /** requests sent, for tests and for the poller's own metrics */
  requests = 0;

  /**
   * @param transport how requests reach the TA (server/ta/reach: `taTransport`); default direct to `config.url` with the
   *   TLS files of `config.tls`, built here and now (an unreadable file throws its SourceError)
   */
  constructor(
    private readonly source: string,
    private readonly config: TaConfig,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
    transport?: TaTransport,
  ) {
    const read = taFileReader(source);
    this.role = source.split("/").pop() ?? "";
    this.headers = { Accept: "application/json", "User-Agent": "allocation-lens" };
    const token = config.bearerTokenFile ? read(config.bearerTokenFile, "bearer token").toString("utf8").trim() : undefined;
    if (token && !isHeaderValue(token)) {
      // named without its value: the token goes to the TA alone, never into an error, a log or an answer
      throw new SourceError({
        source,
        kind: "config",
        message: "the bearer token holds a character a request header cannot carry (a line break inside it, or another control character)",
        hint: `check targetAllocators.${this.role}.bearerTokenFile: the file holds the token alone, on one line`,
      });
    }
    if (token) this.headers.Authorization = `Bearer ${token}`;
    if (!transport && config.tlsSecret) {
      throw new SourceError({ source, kind: "config", message: "tlsSecret needs the cluster's Kubernetes access", hint: "build the TA client with taTransport (server/ta/reach)" });
    }
    this.transport = transport ?? directTransport(config, read);
  }

  /** how this TA is reached */
  get reach(): TaTransport["kind"] {
    return this.transport.kind;
  }

  /**
   * GET with retries on transient failures. `path` is already escaped. With `sink`, a successful answer's body (status
   * under 400) goes to the sink it returns, chunk by chunk as it arrives, within the same limits; `sink` is called again
   * for each attempt, so a retried answer starts in a fresh sink. Error bodies are read whole (for the log's excerpt).
   */
  async get(path: string, context: PollContext = {}, accept?: string, sink?: (status: number) => BodySink): Promise<HttpResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(path, context, accept, sink);
      } catch (e) {
        const err = e as SourceError;
        if (context.signal?.aborted) throw err;
        const delay = nextRetryDelay(err, attempt, this.retry, Math.random());
        if (delay === null) throw err;
        await new Promise<void>((r) => {
          const timer = setTimeout(done, delay);
          function done() {
            clearTimeout(timer);
            context.signal?.removeEventListener("abort", done);
            r();
          }
          context.signal?.addEventListener("abort", done, { once: true });
        });
      }
    }
  }

  private once(path: string, context: PollContext, accept?: string, sink?: (status: number) => BodySink): Promise<HttpResult> {
    // the path is checked before anything is read or sent (a Secret, the kubeconfig's credentials)
    if (!SAFE_PATH.test(path) || path.split("/").some((s) => s === "." || s === "..")) return this.sendOn(null, path, context, accept, sink);
    let route: TaRoute | Promise<TaRoute>;
    try {
      route = this.transport.route();
    } catch (e) {
      return Promise.reject(e instanceof SourceError ? e : new SourceError({ source: this.source, kind: "config", message: String((e as Error)?.message ?? e) }));
    }
    if (!(route instanceof Promise)) return this.sendOn(route, path, context, accept, sink);
    return route.then((r) => this.sendOn(r, path, context, accept, sink));
  }

  private sendOn(via: TaRoute | null, path: string, context: PollContext, accept?: string, sink?: (status: number) => BodySink): Promise<HttpResult> {
    // Only the configured TA, and exactly the path asked for: the scheme, host and port come from the configuration alone,
    // and the path is sent as given (never resolved by a URL parser, which would turn "/jobs/%2E%2E/targets" into
    // "/targets"). A path that is not one absolute path without dot segments is refused before any connection is made.
    if (!via || !SAFE_PATH.test(path) || path.split("/").some((s) => s === "." || s === "..")) {
      return Promise.reject(
        new SourceError({ source: `${this.source} ${path.slice(0, 120)}`, kind: "config", message: "refused a request path that is not a single path on the configured TA" }),
      );
    }
    // a poll that ended (its deadline, a failure, its byte budget) sends nothing more
    if (context.signal?.aborted) return Promise.reject(context.signal.reason as SourceError);
    const started = performance.now();
    const route = path.split("?")[0];
    const source = `${this.source} ${route}`;
    const key = `targetAllocators.${this.role}`;
    this.requests++;
    const headers = via.headers ? { ...via.headers, ...this.headers } : this.headers;
    const limits: BoundedLimits = {
      source,
      timeoutMs: this.config.timeoutSeconds * 1000,
      maxBytes: Math.min(this.config.maxResponseBytes, this.config.maxBytesPerPoll),
      budget: context.budget,
      signal: context.signal,
      sink: sink && ((status) => (status < 400 ? sink(status) : undefined)),
      hints: {
        tooLarge: `raise ${key}.maxResponseBytes (now ${this.config.maxResponseBytes} bytes) if this TA really serves that much`,
        timeout: `the TA is slow or unreachable; raise ${key}.timeoutSeconds (now ${this.config.timeoutSeconds}, a deadline per request) if it is only slow`,
        tls: this.config.tlsSecret
          ? `the TA requires a client certificate signed by its CA and a CA for its server certificate (${key}.tlsSecret, tls.ca, tls.serverName)`
          : "the TA requires a client certificate signed by its CA and a CA file for its server certificate (tls.ca, tls.cert, tls.key)",
      },
    };
    const request = { path: `${via.pathPrefix ?? ""}${path}`, method: "GET" as const, headers: accept ? { ...headers, Accept: accept } : headers };
    const answer = via.fast ? via.fast.get(request.path, request.headers, limits) : boundedRequest(via.base, via.agent, request, limits);
    return answer.then(({ status, body, size, contentType }) => {
      const refused = (status === 401 || status === 403) && via.refused?.(status, body);
      if (refused) throw new SourceError({ source, kind: "forbidden", status, ...refused });
      if (status === 401 || status === 403) {
        throw new SourceError({ source, kind: "forbidden", status, message: `HTTP ${status} from the TA`, hint: "check the bearer token file or the client certificate" });
      }
      if (status >= 400 && !(status === 503 && path === "/readyz")) {
        throw new SourceError({
          source,
          kind: status === 404 ? "not_found" : "http",
          status,
          message: `HTTP ${status} from the TA`,
          hint: "the server log has the start of the TA's answer",
          // never an excerpt of /scrape_configs: its answers may carry credentials
          detail: route === "/scrape_configs" ? undefined : `body: ${bodyExcerpt(body) || "(empty)"}`,
        });
      }
      return { status, body, size, contentType, ms: performance.now() - started };
    }, (e: unknown) => {
      if (e instanceof SourceError) this.transport.failed(e);
      throw e;
    });
  }

  close(): void {
    this.transport.close();
  }
}
