import "server-only";
/**
 * A client of the Prometheus HTTP API (`/api/v1/query_range`, `/api/v1/query`) as Prometheus, Thanos Query and Mimir serve
 * it, for the churn view's long ranges (history.prometheus) and the fleet view (fleet.prometheus). POST with a form body (GET when the endpoint answers 405),
 * Accept JSON, a deadline per query (`timeoutSeconds`, from sending it to the answer's last byte), a response-size limit, mTLS, a bearer token read from its file at each request (rotation works)
 * and plain headers such as Mimir's X-Scope-OrgID. Answers are validated (lib/prometheus/schemas.ts); every failure is a
 * SourceError with a hint. The token is only ever put in the Authorization header: never in a message or a log.
 */
import http from "node:http";
import type { HistoryPrometheusConfig } from "@/lib/config/schema";
import { SourceError } from "@/lib/source-error";
import { bodyExcerpt, boundedRequest, clientAgent, readConfiguredFile, type BoundedAnswer } from "@/server/net/client-agent";
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

  /** `key`: where the configuration says this endpoint, named by the hints (history.prometheus, fleet.prometheus) */
  constructor(
    private readonly config: HistoryPrometheusConfig,
    private readonly key = "history.prometheus",
  ) {
    this.base = new URL(config.url);
    this.endpoint = redactEndpoint(config.url);
    this.source = `prometheus ${this.endpoint}`;
    this.agent = clientAgent(this.base, config.tls, { keepAlive: true, maxSockets: 8 }, (path, what) => this.readFile(path, what));
  }

  private readFile(path: string, what: string): Buffer {
    return readConfiguredFile(path, what, this.source, `check the file paths under ${this.key} and that the file is mounted and readable`);
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
    return new SourceError({ source: this.source, kind: "schema", message, hint: `is ${this.key}.url the root of a Prometheus-compatible query API?` });
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
      if (res.status >= 400) throw this.httpError(res.status, bodyExcerpt(res.body));
      throw new SourceError({
        source: this.source,
        kind: "parse",
        status: res.status,
        message: `not JSON (${(res.contentType || "no content type").split(";")[0].slice(0, 60)})`,
        hint: `is ${this.key}.url the API root (not a UI page or a login page)?`,
        detail: `body: ${bodyExcerpt(res.body) || "(empty)"}`,
      });
    }
    const parsed = promResponseSchema.safeParse(json);
    if (!parsed.success) {
      if (res.status === 401 || res.status === 403) throw this.forbidden(res.status);
      if (res.status >= 400) throw this.httpError(res.status, bodyExcerpt(res.body));
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
            : `check ${this.key}.matchers; the backend refused the query`,
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
      hint: `check ${this.key}.bearerTokenFile, tls and headers (Mimir needs X-Scope-OrgID)`,
    });
  }

  private httpError(status: number, text: string): SourceError {
    return new SourceError({
      source: this.source,
      kind: status === 404 ? "not_found" : "http",
      status,
      message: `HTTP ${status} from the backend`,
      hint: status === 404 ? `check the path in ${this.key}.url: the API root, e.g. https://mimir/prometheus for Mimir` : "the server log has the start of the backend's answer",
      detail: text ? `body: ${text}` : undefined,
    });
  }

  private send(api: string, params: Record<string, string>, method: "POST" | "GET"): Promise<BoundedAnswer> {
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
    this.requests++;
    return boundedRequest(
      this.base,
      this.agent,
      { path, method, headers, body: method === "POST" ? form : undefined },
      {
        source: `${this.source}${api}`,
        timeoutMs: this.config.timeoutSeconds * 1000,
        maxBytes: this.config.maxResponseBytes,
        hints: {
          tooLarge: `shorten the range, or raise ${this.key}.maxResponseBytes`,
          timeout: `the backend is slow or unreachable: shorten the range or raise ${this.key}.timeoutSeconds (a deadline per query)`,
          tls: `check ${this.key}.tls (ca for the server certificate; cert and key when it requires a client certificate)`,
          network: `is the backend running and reachable at ${this.key}.url?`,
        },
      },
    );
  }

  close(): void {
    this.agent.destroy();
  }
}
