import "server-only";
/**
 * Hand-made Target Allocators on 127.0.0.1 for the tests of the TA client and the poller: a sound TA whose routes a test
 * can replace, and answers that misbehave (a body dribbled a byte at a time, answers that arrive late).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseConfig, type TaConfig } from "@/lib/config/schema";
import { jobTargetsPath } from "@/server/ta/client";
import { expect } from "vitest";
import { SourceError } from "@/lib/source-error";

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface FakeTa {
  url: string;
  /** paths requested, in order */
  paths: string[];
  routes: Map<string, Route>;
  /** every job's route: replaces the sound answer of /jobs/{job}/targets when set */
  jobRoute: Route | null;
  close(): Promise<void>;
}

export const NS = "agents";
export const SELECTOR = { "app.kubernetes.io/component": "agent" };

export function sendJson(res: http.ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

/** One job's answer: `n` targets on `node`, all assigned to collector-a. */
export function jobAnswer(job: string, n = 1, node = "node-a"): unknown {
  return {
    "collector-a": {
      _link: `/jobs/${job}/targets?collector_id=collector-a`,
      targets: Array.from({ length: n }, (_, i) => ({ targets: [`10.0.${i >> 8}.${i & 255}:9100`], labels: { __meta_kubernetes_pod_node_name: node, job } })),
    },
  };
}

/** Headers at once, then `body` `size` bytes (one by default) every `everyMs`: what an idle timeout never cuts. */
export function dribble(body: string, everyMs: number, size = 1): Route {
  const bytes = Buffer.from(body);
  return (_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed || i >= bytes.length) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(bytes.subarray(i, (i += size)));
    }, everyMs);
    res.on("close", () => clearInterval(timer));
  };
}

/** A sound TA serving `jobs` (job name -> its number of targets). */
export async function startFakeTa(jobs: Record<string, number>): Promise<FakeTa> {
  const byPath = new Map(Object.keys(jobs).map((j) => [jobTargetsPath(j), j]));
  const ta: FakeTa = { url: "", paths: [], routes: new Map(), jobRoute: null, close: async () => {} };
  const sound: Route = (req, res) => {
    const p = req.url ?? "";
    if (p === "/readyz") return sendJson(res, { status: "ok" });
    if (p === "/jobs") return sendJson(res, Object.fromEntries(Object.keys(jobs).map((j) => [j, { _link: jobTargetsPath(j) }])));
    if (p === "/metrics") {
      res.writeHead(200, { "Content-Type": "text/plain; version=0.0.4" });
      return res.end('# TYPE opentelemetry_allocator_targets gauge\nopentelemetry_allocator_targets{job_name="x"} 1\n');
    }
    if (p === "/scrape_configs") return sendJson(res, Object.fromEntries(Object.keys(jobs).map((j) => [j, { job_name: j }])));
    const job = byPath.get(p);
    if (job !== undefined) return ta.jobRoute ? ta.jobRoute(req, res) : sendJson(res, jobAnswer(job, jobs[job]));
    sendJson(res, { error: "not found" }, 404);
  };
  const server = http.createServer((req, res) => {
    ta.paths.push(req.url ?? "");
    (ta.routes.get(req.url ?? "") ?? sound)(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  ta.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ta.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return ta;
}

/** A validated TA configuration (defaults filled in) for `url`. */
export function taConfig(url: string, extra: Record<string, unknown> = {}): TaConfig {
  const r = parseConfig({
    clusters: [{ name: "c", targetAllocators: { "per-node": { url, flavor: "upstream", timeoutSeconds: 2, collectors: { namespace: NS, selector: SELECTOR }, ...extra } } }],
  });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.config.clusters[0].targetAllocators["per-node"]!;
}


/** The SourceError `p` rejects with (the test fails when it resolves, or rejects with anything else). */
export async function failure(p: Promise<unknown>): Promise<SourceError> {
  const e = await p.then(
    () => new Error("expected a failure"),
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(SourceError);
  return e as SourceError;
}
