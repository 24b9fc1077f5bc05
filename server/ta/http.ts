import "server-only";
/**
 * HTTP(S) GET against one Target Allocator, with mTLS up to TLS 1.3, a per-request timeout, a response-size limit and
 * bounded concurrency (one keep-alive agent per TA, `maxSockets` = concurrency). Failures become SourceErrors.
 */
import type { Agent } from "node:http";
import { SourceError } from "@/lib/source-error";
import { nextRetryDelay, type RetryPolicy, DEFAULT_RETRY } from "@/lib/retry";
import type { TaConfig } from "@/lib/config/schema";
import { boundedRequest, clientAgent, readConfiguredFile } from "@/server/net/client-agent";

export interface HttpResult {
  status: number;
  body: Buffer;
  contentType: string;
  ms: number;
}

/** an absolute path: no scheme, no authority ("//host"), no fragment, no whitespace or control characters */
const SAFE_PATH = /^\/(?!\/)[\x21\x22\x24-\x7e]*$/;

export class TaHttp {
  private readonly agent: Agent;
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  /** requests sent, for tests and for the poller's own metrics */
  requests = 0;

  constructor(
    private readonly source: string,
    private readonly config: TaConfig,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
  ) {
    this.base = new URL(config.url);
    const read = (path: string, what: string) =>
      readConfiguredFile(path, what, source, `check targetAllocators.${source.split("/").pop()}.tls paths and that the file is mounted and readable`);
    this.headers = { Accept: "application/json", "User-Agent": "allocation-lens" };
    const token = config.bearerTokenFile ? read(config.bearerTokenFile, "bearer token").toString("utf8").trim() : undefined;
    if (token) this.headers.Authorization = `Bearer ${token}`;
    this.agent = clientAgent(this.base, config.tls, { keepAlive: true, maxSockets: config.concurrency, maxFreeSockets: config.concurrency }, read, "TLSv1.3");
  }

  /** GET with retries on transient failures. `path` is already escaped. */
  async get(path: string, accept?: string): Promise<HttpResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(path, accept);
      } catch (e) {
        const err = e as SourceError;
        const delay = nextRetryDelay(err, attempt, this.retry, Math.random());
        if (delay === null) throw err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private once(path: string, accept?: string): Promise<HttpResult> {
    // Only the configured TA, and exactly the path asked for: the scheme, host and port come from the configuration alone,
    // and the path is sent as given (never resolved by a URL parser, which would turn "/jobs/%2E%2E/targets" into
    // "/targets"). A path that is not one absolute path without dot segments is refused before any connection is made.
    if (!SAFE_PATH.test(path) || path.split("/").some((s) => s === "." || s === "..")) {
      return Promise.reject(
        new SourceError({ source: `${this.source} ${path.slice(0, 120)}`, kind: "config", message: "refused a request path that is not a single path on the configured TA" }),
      );
    }
    const started = performance.now();
    const source = `${this.source} ${path.split("?")[0]}`;
    this.requests++;
    const answer = boundedRequest(
      this.base,
      this.agent,
      { path, method: "GET", headers: accept ? { ...this.headers, Accept: accept } : this.headers },
      {
        source,
        timeoutMs: this.config.timeoutSeconds * 1000,
        maxBytes: this.config.maxResponseBytes,
        hints: {
          tooLarge: "raise maxResponseBytes if this TA really serves that much",
          timeout: "the TA is slow or unreachable; raise timeoutSeconds if it is only slow",
          tls: "the TA requires a client certificate signed by its CA and a CA file for its server certificate (tls.ca, tls.cert, tls.key)",
        },
      },
    );
    return answer.then(({ status, body, contentType }) => {
      if (status === 401 || status === 403) {
        throw new SourceError({ source, kind: "forbidden", status, message: `HTTP ${status}`, hint: "check the bearer token file or the client certificate" });
      }
      if (status >= 400 && !(status === 503 && path === "/readyz")) {
        throw new SourceError({ source, kind: status === 404 ? "not_found" : "http", status, message: `HTTP ${status}: ${body.subarray(0, 120).toString("utf8").trim()}` });
      }
      return { status, body, contentType, ms: performance.now() - started };
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
