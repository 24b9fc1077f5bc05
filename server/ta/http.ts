import "server-only";
/**
 * HTTP(S) GET against one Target Allocator, with mTLS up to TLS 1.3, a per-request timeout, a response-size limit and
 * bounded concurrency (one keep-alive agent per TA, `maxSockets` = concurrency). Failures become SourceErrors.
 */
import http from "node:http";
import https from "node:https";
import { urlToHttpOptions } from "node:url";
import { SourceError } from "@/lib/source-error";
import { nextRetryDelay, type RetryPolicy, DEFAULT_RETRY } from "@/lib/retry";
import type { TaConfig } from "@/lib/config/schema";
import { clientAgent, readConfiguredFile, TLS_CODES } from "@/server/net/client-agent";

export interface HttpResult {
  status: number;
  body: Buffer;
  contentType: string;
  ms: number;
}

/** an absolute path: no scheme, no authority ("//host"), no fragment, no whitespace or control characters */
const SAFE_PATH = /^\/(?!\/)[\x21\x22\x24-\x7e]*$/;

export class TaHttp {
  private readonly agent: http.Agent;
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  private inFlight = 0;
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
    const lib = this.base.protocol === "https:" ? https : http;
    const started = performance.now();
    const timeoutMs = this.config.timeoutSeconds * 1000;
    const limit = this.config.maxResponseBytes;
    const source = `${this.source} ${path.split("?")[0]}`;
    this.requests++;
    this.inFlight++;
    return new Promise<HttpResult>((resolve, reject) => {
      const fail = (err: SourceError) => {
        req.destroy();
        reject(err);
      };
      const req = lib.request(
        { ...urlToHttpOptions(this.base), path, method: "GET", agent: this.agent, headers: accept ? { ...this.headers, Accept: accept } : this.headers },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > limit) {
              res.destroy();
              fail(new SourceError({ source, kind: "too_large", message: `answer larger than ${limit} bytes`, hint: "raise maxResponseBytes if this TA really serves that much" }));
              return;
            }
            chunks.push(c);
          });
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            const body = Buffer.concat(chunks);
            const result = { status, body, contentType: String(res.headers["content-type"] ?? ""), ms: performance.now() - started };
            if (status === 401 || status === 403) {
              reject(new SourceError({ source, kind: "forbidden", status, message: `HTTP ${status}`, hint: "check the bearer token file or the client certificate" }));
            } else if (status >= 400 && !(status === 503 && path === "/readyz")) {
              reject(new SourceError({ source, kind: status === 404 ? "not_found" : "http", status, message: `HTTP ${status}: ${body.subarray(0, 120).toString("utf8").trim()}` }));
            } else resolve(result);
          });
          res.on("error", (e) => fail(classify(source, e)));
        },
      );
      req.setTimeout(timeoutMs, () =>
        fail(new SourceError({ source, kind: "timeout", message: `no answer within ${this.config.timeoutSeconds}s`, hint: "the TA is slow or unreachable; raise timeoutSeconds if it is only slow" })),
      );
      req.on("error", (e) => fail(classify(source, e)));
      req.end();
    }).finally(() => {
      this.inFlight--;
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function classify(source: string, e: Error & { code?: string }): SourceError {
  if (e instanceof SourceError) return e;
  const code = e.code ?? "";
  if (TLS_CODES.test(code) || TLS_CODES.test(e.message)) {
    return new SourceError({
      source,
      kind: "tls",
      message: `TLS failed: ${e.message}`,
      hint: "the TA requires a client certificate signed by its CA and a CA file for its server certificate (tls.ca, tls.cert, tls.key)",
    });
  }
  return new SourceError({ source, kind: "network", message: `${code || "network error"}: ${e.message}` });
}
