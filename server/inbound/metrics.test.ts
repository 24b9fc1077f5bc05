/**
 * GET /metrics answered by the server entry (server/inbound/metrics.ts) over a real socket: a node HTTP server whose
 * handler is serveMetrics, falling through to a marker answer where Next.js would take over. The runtime is a stand-in
 * whose poll host holds the worker's exposition bytes; the access decision is the real one, with a token file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import type { AddressInfo } from "node:net";
import { compilePolicy } from "@/lib/auth/decide";
import { resetSecurityPolicy, type SecurityPolicy } from "@/server/access";
import { serveMetrics } from "@/server/inbound/metrics";
import { runtimeIfSettled } from "@/server/inbound/runtime-now";

const GOOD = "good-token-0123456789abcdefghijklmnopqrstuvwxyz";
const RUNTIME = Symbol.for("allocation-lens.runtime");
const WORKER_TEXT = Array.from({ length: 3000 }, (_, i) => `allocation_lens_collector_targets{cluster="prod",collector="c-${i}"} ${i}`).join("\n") + "\n";

let dir: string;
let server: http.Server;
let port: number;
let workerFails = false;
let scrapes = 0;

function policy(mode: "token" | "none" = "token"): SecurityPolicy {
  return {
    auth: compilePolicy({ mode, trustedProxies: [], exemptPaths: ["/api/healthz"] }),
    tokenFile: path.join(dir, "tokens"),
    frameAncestors: ["'self'"],
    demo: false,
    failures: { maxFailures: 3, windowMs: 60_000 },
  };
}

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

function call(p: string, headers: Record<string, string> = {}, method = "GET"): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: p, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const auth = { Authorization: `Bearer ${GOOD}` };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-metrics-"));
  fs.writeFileSync(path.join(dir, "tokens"), `${GOOD}\n`);
  const bytes = new TextEncoder().encode(WORKER_TEXT);
  const host = {
    metricsBytes: async (): Promise<Uint8Array> => {
      scrapes++;
      if (workerFails) throw new Error("worker gone");
      return bytes;
    },
  };
  (globalThis as Record<symbol, unknown>)[RUNTIME] = Promise.resolve({ config: { clusters: [{ name: "prod" }] }, pollers: new Map(), host });
  server = http.createServer((req, res) => {
    void serveMetrics(req, res, "/lens").then((served) => {
      if (!served) res.writeHead(299, { "X-Next": "yes" }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  await vi.waitFor(() => expect(runtimeIfSettled()).not.toBeNull());
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  delete (globalThis as Record<symbol, unknown>)[RUNTIME];
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  resetSecurityPolicy();
  workerFails = false;
  vi.restoreAllMocks();
});

describe("/metrics served before Next.js", () => {
  it("answers the process metrics followed by the worker's bytes, with Content-Length and the security headers", async () => {
    resetSecurityPolicy(policy());
    const r = await call("/lens/metrics", auth);
    expect(r.status).toBe(200);
    expect(r.headers["x-next"]).toBeUndefined();
    expect(r.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect(Number(r.headers["content-length"])).toBe(r.raw.byteLength);
    const text = r.raw.toString("utf8");
    // the serving thread's own series first (prom-client's defaults), the worker's part after them, unchanged
    expect(text).toMatch(/^# HELP process_cpu_user_seconds_total/);
    expect(text).toContain("nodejs_eventloop_lag_max_seconds");
    expect(text.endsWith(`\n${WORKER_TEXT}`)).toBe(true);
    expect(text.indexOf("allocation_lens_")).toBeGreaterThan(text.indexOf("nodejs_eventloop_lag"));
  });

  it("gzips for a client that takes gzip (as Prometheus does), the same text once inflated", async () => {
    resetSecurityPolicy(policy());
    const plain = (await call("/lens/metrics", auth)).raw.toString("utf8");
    const z = await call("/lens/metrics", { ...auth, "Accept-Encoding": "gzip" });
    expect(z.status).toBe(200);
    expect(z.headers["content-encoding"]).toBe("gzip");
    expect(z.headers.vary).toBe("Accept-Encoding");
    expect(z.raw.byteLength).toBeLessThan(plain.length / 4);
    const text = zlib.gunzipSync(z.raw).toString("utf8");
    expect(text.endsWith(`\n${WORKER_TEXT}`)).toBe(true);
    // the process part is read at each scrape (counters move between the two calls): compare the series it names
    const names = (s: string) => s.split("\n").filter((l) => l.startsWith("# TYPE")).sort();
    expect(names(text)).toEqual(names(plain));
  });

  it("refuses a scrape without a valid token, and asks the worker for nothing", async () => {
    resetSecurityPolicy(policy());
    const before = scrapes;
    for (const headers of [{}, { Authorization: "Bearer wrong-token-0123456789abcdefghijklmnop" }] as Record<string, string>[]) {
      const r = await call("/lens/metrics", headers);
      expect(r.status).toBe(401);
      expect(r.headers["x-next"]).toBeUndefined();
      expect(r.raw.toString()).not.toContain("allocation_lens_");
    }
    expect(scrapes).toBe(before);
  });

  it("leaves the worker's part out when the worker fails, and still answers the process metrics", async () => {
    resetSecurityPolicy(policy("none"));
    workerFails = true;
    const r = await call("/lens/metrics");
    expect(r.status).toBe(200);
    const text = r.raw.toString("utf8");
    expect(text).toContain("process_cpu_user_seconds_total");
    expect(text).not.toContain("allocation_lens_collector_targets");
  });

  it("leaves other methods, paths and spellings to Next.js", async () => {
    resetSecurityPolicy(policy("none"));
    for (const [p, method] of [["/lens/metrics", "HEAD"], ["/lens/metrics", "POST"], ["/metrics", "GET"], ["/lens/metrics/", "GET"], ["/lens/metricsx", "GET"], ["/lens/api/v1/summary", "GET"]] as const) {
      const r = await call(p, {}, method);
      expect(r.status, `${method} ${p}`).toBe(299);
      expect(r.headers["x-next"], `${method} ${p}`).toBe("yes");
    }
    // a query string does not change what is served
    expect((await call("/lens/metrics?x=1")).status).toBe(200);
  });
});
