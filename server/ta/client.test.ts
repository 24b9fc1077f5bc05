/**
 * TaClient.read against hand-made TAs on 127.0.0.1: one reading is bounded as a whole (a deadline, a byte budget, a
 * number of jobs) and each request has a deadline from start to last byte; whatever ends a reading ends it at once, with
 * no further request, and names the limit and its configuration key.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SourceError } from "@/lib/source-error";
import { TaClient } from "@/server/ta/client";
import { dribble, jobAnswer, sendJson, startFakeTa, taConfig, type FakeTa } from "@/server/ta/test-fixtures";

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fake(jobs: Record<string, number>): Promise<FakeTa> {
  const ta = await startFakeTa(jobs);
  cleanups.push(() => ta.close());
  return ta;
}

function client(ta: FakeTa, extra: Record<string, unknown> = {}): TaClient {
  const c = new TaClient("c", "per-node", taConfig(ta.url, extra));
  cleanups.push(() => c.close());
  return c;
}

async function readError(c: TaClient): Promise<{ err: SourceError; ms: number }> {
  const started = performance.now();
  const err = await c.read().then(
    () => new Error("expected the read to fail"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SourceError);
  return { err: err as SourceError, ms: performance.now() - started };
}

/** requests the TA sees from now until they stop (none for 300 ms) */
async function settledPaths(ta: FakeTa): Promise<string[]> {
  for (let n = -1; n !== ta.paths.length; ) {
    n = ta.paths.length;
    await new Promise((r) => setTimeout(r, 300));
  }
  return ta.paths;
}

const targetRequests = (paths: string[]) => paths.filter((p) => /^\/jobs\/.+\/targets$/.test(p)).length;

describe("TaClient.read", () => {
  it("reads a sound TA through the scanner, within every limit", async () => {
    const ta = await fake({ a: 3, b: 2 });
    const r = await client(ta).read();
    expect([...r.jobs.keys()]).toEqual(["a", "b"]);
    expect(r.jobs.get("a")!.targets).toHaveLength(3);
    expect(r.scanned).toBe(2);
    expect(r.requests).toBe(6);
  });

  it("cuts a job answer that dribbles a byte every 200 ms at the request deadline (timeoutSeconds), not when it goes idle", async () => {
    const ta = await fake({ a: 1 });
    ta.jobRoute = dribble(JSON.stringify(jobAnswer("a", 200)), 200);
    const { err, ms } = await readError(client(ta, { timeoutSeconds: 1, pollTimeoutSeconds: 30 }));
    expect(err).toMatchObject({ kind: "timeout", message: "no complete answer within 1 s" });
    expect(err.hint).toContain("targetAllocators.per-node.timeoutSeconds");
    // three attempts of 1 s and the backoff between them; an idle timeout would wait for the whole 4 kB (over 10 minutes)
    expect(ms).toBeLessThan(8_000);
  });

  it("ends a reading at its deadline (pollTimeoutSeconds) even when every request is within its own, and sends nothing more", async () => {
    const ta = await fake(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`job-${i}`, 1])));
    ta.jobRoute = (req, res) => setTimeout(() => sendJson(res, jobAnswer("x")), 300);
    const { err, ms } = await readError(client(ta, { timeoutSeconds: 1, pollTimeoutSeconds: 1.5, concurrency: 1 }));
    expect(err).toMatchObject({ kind: "timeout", source: "c/ta/per-node", message: "reading the TA took longer than 1.5 s" });
    expect(err.hint).toContain("targetAllocators.per-node.pollTimeoutSeconds");
    expect(ms).toBeGreaterThanOrEqual(1_400);
    expect(ms).toBeLessThan(3_000);
    const paths = await settledPaths(ta);
    expect(targetRequests(paths)).toBeLessThan(10); // 40 jobs at 300 ms each: about 5 fit in 1.5 s
    expect(paths).not.toContain("/metrics");
  });

  it("stops at the poll's byte budget (maxBytesPerPoll): too_large naming the key, no further request", async () => {
    const ta = await fake(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`job-${i}`, 1500])));
    const answer = JSON.stringify(jobAnswer("x", 1500)); // about 110 kB
    const { err } = await readError(client(ta, { concurrency: 1, maxBytesPerPoll: 4 * answer.length }));
    expect(err).toMatchObject({ kind: "too_large", message: `the TA's answers in one poll exceed ${4 * answer.length} bytes` });
    expect(err.hint).toContain("targetAllocators.per-node.maxBytesPerPoll");
    const paths = await settledPaths(ta);
    expect(targetRequests(paths)).toBeLessThanOrEqual(5);
    expect(paths).not.toContain("/metrics");
    expect(paths).not.toContain("/scrape_configs");
  });

  it("refuses an answer whose declared length is over maxResponseBytes before reading it", async () => {
    const ta = await fake({ a: 1 });
    let sent = 0;
    ta.jobRoute = (_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(200 * 1024 * 1024) });
      const chunk = Buffer.alloc(64 * 1024, " ");
      const pump = () => {
        while (!res.destroyed && sent < 200 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
      };
      pump();
    };
    const { err } = await readError(client(ta));
    expect(err).toMatchObject({ kind: "too_large", message: `answer larger than ${64 * 1024 * 1024} bytes` });
    expect(err.hint).toContain("targetAllocators.per-node.maxResponseBytes");
    await new Promise((r) => setTimeout(r, 100));
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  });

  it("refuses a /jobs of a million entries (maxJobs) without asking for any of them", async () => {
    const ta = await fake({});
    const million = `{${Array.from({ length: 1_000_000 }, (_, i) => `"job-${i}":{"_link":"/jobs/job-${i}/targets"}`).join(",")}}`;
    ta.routes.set("/jobs", (_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(million);
    });
    const heapBefore = process.memoryUsage().heapUsed;
    const { err } = await readError(client(ta));
    expect(err).toMatchObject({ kind: "too_large", source: "c/ta/per-node /jobs", message: "the TA lists more than 10000 jobs" });
    expect(err.hint).toContain("targetAllocators.per-node.maxJobs");
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);
    expect(targetRequests(await settledPaths(ta))).toBe(0);
  });

  it("a job list within maxJobs is read in full", async () => {
    const ta = await fake({ a: 1, b: 1, c: 1 });
    expect((await client(ta, { maxJobs: 3 }).read()).jobs.size).toBe(3);
    const { err } = await readError(client(ta, { maxJobs: 2 }));
    expect(err).toMatchObject({ kind: "too_large", message: "the TA lists more than 2 jobs" });
  });

  it("an error body stays out of the message: a fixed text per status, the excerpt in `detail` (never for /scrape_configs)", async () => {
    const ta = await fake({ a: 1 });
    ta.routes.set("/jobs", (_req, res) => {
      res.writeHead(500, { "Content-Type": "text/plain" });
      res.end("internal error: shard 7 unavailable\u0000\u0007");
    });
    const { err } = await readError(client(ta));
    expect(err.toJSON()).toEqual({ source: "c/ta/per-node /jobs", kind: "http", status: 500, message: "HTTP 500 from the TA", hint: "the server log has the start of the TA's answer" });
    expect(JSON.stringify(err)).not.toContain("shard 7");
    expect(err.detail).toBe("body: internal error: shard 7 unavailable");
    ta.routes.set("/scrape_configs", (_req, res) => {
      res.writeHead(400, { "Content-Type": "text/plain" });
      res.end("bad job: basic_auth password hunter2");
    });
    const denied = await client(ta)
      .http.get("/scrape_configs")
      .catch((e: unknown) => e as SourceError);
    expect(denied).toMatchObject({ kind: "http", status: 400, message: "HTTP 400 from the TA" });
    expect((denied as SourceError).detail).toBeUndefined();
    expect(JSON.stringify(denied)).not.toContain("hunter2");
  });
});
