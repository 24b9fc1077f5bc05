import "server-only";
/**
 * A client of the Prometheus HTTP API (`/api/v1/query_range`, `/api/v1/query`) as Prometheus, Thanos Query and Mimir serve
 * it, for the churn view's long ranges (history.prometheus). POST with a form body (GET when the endpoint answers 405),
 * Accept JSON, a timeout, a response-size limit, mTLS, a bearer token read from its file at each request (rotation works)
 * and plain headers such as Mimir's X-Scope-OrgID. Answers are validated (lib/prometheus/schemas.ts); every failure is a
 * SourceError with a hint. The token is only ever put in the Authorization header: never in a message or a log.
 */
import http from "node:http";
import https from "node:https";
import { urlToHttpOptions } from "node:url";
import type { HistoryPrometheusConfig } from "@/lib/config/schema";
import { SourceError } from "@/lib/source-error";
import { clientAgent, readConfiguredFile, TLS_CODES } from "@/server/net/client-agent";
import { redactEndpoint } from "@/lib/views/churn-source";
import { promResponseSchema, type Matrix, type PromResponse, type Vector } from "@/lib/prometheus/schemas";

export class PrometheusClient {
  /** scheme, host and path of the API root: what views and messages may show */
  readonly endpoint: string;
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly source: string;
  private method: "POST" | "GET" = "POST";
  /** requests sent (tests) */
  requests = 0;

  constructor(private readonly config: HistoryPrometheusConfig) {
    this.base = new URL(config.url);
    this.endpoint = redactEndpoint(config.url);
    this.source = `prometheus ${this.endpoint}`;
    this.agent = clientAgent(this.base, config.tls, { keepAlive: true, maxSockets: 8 }, (path, what) => this.readFile(path, what));
  }

  private readFile(path: string, what: string): Buffer {
    return readConfiguredFile(path, what, this.source, "check the file paths under history.prometheus and that the file is mounted and readable");
  }

  /** A range query: one evaluation every `step` seconds from `start` to `end` (seconds since the epoch). */
  async queryRange(query: string, grid: { start: number; end: number; step: number }): Promise<Matrix> {
    const r = await this.call("/api/v1/query_range", { query, start: String(grid.start), end: String(grid.end), step: String(grid.step) });
    if (r.resultType !== "matrix") throw this.schemaError(`expected a matrix, got a ${r.resultType}`);
    return r.result;
  }

  /** An instant query at `time` (seconds since the epoch). */
  async query(query: string, time: number): Promise<Vector> {
    const r = await this.call("/api/v1/query", { query, time: String(time) });
    if (r.resultType !== "vector") throw this.schemaError(`expected a vector, got a ${r.resultType}`);
    return r.result;
  }

  private schemaError(message: string): SourceError {
    return new SourceError({ source: this.source, kind: "schema", message, hint: "is history.prometheus.url the root of a Prometheus-compatible query API?" });
  }

  private async call(api: string, params: Record<string, string>): Promise<Extract<PromResponse, { status: "success" }>["data"]> {
    let res = await this.send(api, params, this.method);
    if (res.status === 405 && this.method === "POST") {
      // a proxy that allows GET only
      this.method = "GET";
      res = await this.send(api, params, "GET");
    }
    let json: unknown;
    try {
      json = JSON.parse(res.body.toString("utf8"));
    } catch {
      if (res.status === 401 || res.status === 403) throw this.forbidden(res.status);
      if (res.status >= 400) throw this.httpError(res.status, res.body.subarray(0, 160).toString("utf8").trim());
      throw new SourceError({
        source: this.source,
        kind: "parse",
        status: res.status,
        message: `not JSON (${res.contentType || "no content type"}): ${res.body.subarray(0, 80).toString("utf8").trim()}`,
        hint: "is history.prometheus.url the API root (not a UI page or a login page)?",
      });
    }
    const parsed = promResponseSchema.safeParse(json);
    if (!parsed.success) {
      if (res.status === 401 || res.status === 403) throw this.forbidden(res.status);
      if (res.status >= 400) throw this.httpError(res.status, JSON.stringify(json).slice(0, 160));
      throw this.schemaError(`unexpected answer: ${parsed.error.issues[0]?.path.join(".") || "(root)"}: ${parsed.error.issues[0]?.message}`);
    }
    const body = parsed.data;
    if (body.status === "error") {
      if (res.status === 401 || res.status === 403) throw this.forbidden(res.status);
      throw new SourceError({
        source: this.source,
        kind: res.status === 503 || body.errorType === "timeout" ? "timeout" : "http",
        status: res.status,
        message: `${body.errorType}: ${body.error.slice(0, 300)}`,
        hint:
          body.errorType === "timeout" || res.status === 503
            ? "the backend gave up on the query: shorten the range or raise its query timeout"
            : "check history.prometheus.matchers; the backend refused the query",
      });
    }
    if (res.status >= 400) throw this.httpError(res.status, "");
    return body.data;
  }

  private forbidden(status: number): SourceError {
    return new SourceError({
      source: this.source,
      kind: "forbidden",
      status,
      message: `HTTP ${status}`,
      hint: "check history.prometheus.bearerTokenFile, tls and headers (Mimir needs X-Scope-OrgID)",
    });
  }

  private httpError(status: number, text: string): SourceError {
    return new SourceError({
      source: this.source,
      kind: status === 404 ? "not_found" : "http",
      status,
      message: `HTTP ${status}${text ? `: ${text}` : ""}`,
      hint: status === 404 ? "check the path in history.prometheus.url: the API root, e.g. https://mimir/prometheus for Mimir" : undefined,
    });
  }

  private send(api: string, params: Record<string, string>, method: "POST" | "GET"): Promise<{ status: number; body: Buffer; contentType: string }> {
    const form = new URLSearchParams(params).toString();
    const prefix = this.base.pathname.replace(/\/+$/, "");
    const path = method === "GET" ? `${prefix}${api}?${form}` : `${prefix}${api}`;
    const headers: Record<string, string> = { ...this.config.headers, Accept: "application/json", "User-Agent": "allocation-lens" };
    if (this.config.bearerTokenFile) {
      const token = this.readFile(this.config.bearerTokenFile, "bearer token").toString("utf8").trim();
      if (token) headers.Authorization = `Bearer ${token}`;
    }
    if (method === "POST") {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      headers["Content-Length"] = String(Buffer.byteLength(form));
    }
    const lib = this.base.protocol === "https:" ? https : http;
    const timeoutMs = this.config.timeoutSeconds * 1000;
    const limit = this.config.maxResponseBytes;
    const source = `${this.source}${api}`;
    this.requests++;
    return new Promise((resolve, reject) => {
      let done = false;
      const fail = (err: SourceError) => {
        if (done) return;
        done = true;
        req.destroy();
        reject(err);
      };
      const req = lib.request({ ...urlToHttpOptions(this.base), path, method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > limit) {
            res.destroy();
            fail(new SourceError({ source, kind: "too_large", message: `answer larger than ${limit} bytes`, hint: "shorten the range, or raise history.prometheus.maxResponseBytes" }));
          } else chunks.push(c);
        });
        res.on("end", () => {
          if (done) return;
          done = true;
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), contentType: String(res.headers["content-type"] ?? "") });
        });
        res.on("error", (e) => fail(classify(source, e)));
      });
      req.setTimeout(timeoutMs, () =>
        fail(new SourceError({ source, kind: "timeout", message: `no answer within ${this.config.timeoutSeconds}s`, hint: "the backend is slow or unreachable: shorten the range or raise history.prometheus.timeoutSeconds" })),
      );
      req.on("error", (e) => fail(classify(source, e)));
      req.end(method === "POST" ? form : undefined);
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
    return new SourceError({ source, kind: "tls", message: `TLS failed: ${e.message}`, hint: "check history.prometheus.tls (ca for the server certificate; cert and key when it requires a client certificate)" });
  }
  return new SourceError({ source, kind: "network", message: `${code || "network error"}: ${e.message}`, hint: "is the backend running and reachable at history.prometheus.url?" });
}
