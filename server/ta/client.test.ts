/**
 * TaClient.read against hand-made TAs on 127.0.0.1: one reading is bounded as a whole (a deadline, a byte budget, a
 * number of jobs) and each request has a deadline from start to last byte; whatever ends a reading ends it at once, with
 * no further request, and names the limit and its configuration key.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SourceError } from "@/lib/source-error";
import { extractJobTargets } from "@/lib/ta/extract";
import { JobTargetsScanner } from "@/lib/ta/scan";
import { TaClient } from "@/server/ta/client";
import { dribble, jobAnswer, sendJson, startFakeTa, taConfig, type FakeTa } from "@/test/fixtures/ta";

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
  it("sends the bearer token of bearerTokenFile, and refuses a file whose token holds a line break, naming the key and not the token", async () => {
    const ta = await fake({ a: 1 });
    const authorization: (string | undefined)[] = [];
    ta.jobRoute = (req, res) => (authorization.push(req.headers.authorization), sendJson(res, jobAnswer("a", 1)));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-token-"));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, "token");
    fs.writeFileSync(file, "s3cret-token\n");
    await client(ta, { bearerTokenFile: file }).read();
    expect(authorization).toEqual(["Bearer s3cret-token"]);

    fs.writeFileSync(file, "s3cret-token\r\nX-Injected: 1\n");
    const requests = ta.paths.length;
    const err = (() => {
      try {
        client(ta, { bearerTokenFile: file });
      } catch (e) {
        return e;
      }
      return new Error("expected the client to refuse the token file");
    })();
    expect(err).toBeInstanceOf(SourceError);
    expect(err).toMatchObject({ kind: "config", source: "c/ta/per-node", hint: expect.stringContaining("targetAllocators.per-node.bearerTokenFile") });
    expect(JSON.stringify(err) + String((err as Error).message)).not.toMatch(/s3cret|X-Injected/);
    expect(ta.paths.length).toBe(requests);
  });

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

describe("TaClient.read, job answers streamed through the scanner", () => {
  const general = (answer: unknown) => {
    const r = extractJobTargets(answer);
    if (!r.ok) throw new Error(r.message);
    return r.value.targets;
  };
  /** a compact answer of `n` collectors, the last one's item with two addresses (the scanner refuses it, JSON.parse does not) */
  const lateRefused = (n: number) => {
    const answer = Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`agent-${i}`, { _link: `/jobs/a/targets?collector_id=agent-${i}`, targets: [] as unknown[] }]),
    );
    answer[`agent-${n - 1}`].targets.push({ targets: ["10.0.0.1:80", "10.0.0.2:80"], labels: { __meta_kubernetes_pod_node_name: "node-a" } });
    return answer;
  };
  const jobRequests = (ta: FakeTa) => ta.paths.filter((p) => p === "/jobs/a/targets").length;

  it("scans an answer sent slowly in small chunks as they arrive, not once it is whole", async () => {
    const ta = await fake({ a: 1 });
    const answer = jobAnswer("a", 300);
    ta.jobRoute = dribble(JSON.stringify(answer), 2, 512);
    const feeds = vi.spyOn(JobTargetsScanner.prototype, "feed");
    cleanups.push(() => feeds.mockRestore());
    const r = await client(ta).read();
    expect(r.scanned).toBe(1);
    expect(r.requests).toBe(5);
    expect(r.jobs.get("a")!.targets).toEqual(general(answer));
    expect(feeds.mock.calls.length).toBeGreaterThan(10); // about 60 pieces of 512 bytes, some of them merged on the way
    expect(Math.max(...feeds.mock.calls.map(([chunk]) => chunk.length))).toBeLessThan(JSON.stringify(answer).length);
  });

  it("reads a pretty-printed answer with JSON.parse from the chunks it kept: no second request", async () => {
    const ta = await fake({ a: 1 });
    const answer = jobAnswer("a", 50);
    ta.jobRoute = (_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(answer, null, 2));
    };
    const c = client(ta);
    for (let poll = 0; poll < 2; poll++) {
      const r = await c.read();
      expect(r.scanned).toBe(0);
      expect(r.requests).toBe(5);
      expect(r.jobs.get("a")!.targets).toEqual(general(answer));
    }
  });

  it("asks once more, whole, for an answer refused after its chunks were let go, and reads that TA whole until its answers scan", async () => {
    const ta = await fake({ a: 1 });
    const late = lateRefused(3000); // about 200 kB: the first chunks are let go long before the refusal
    let sound = false;
    ta.jobRoute = (req, res) => (sound ? sendJson(res, jobAnswer("a", 2)) : dribble(JSON.stringify(late), 1, 16 * 1024)(req, res));
    const c = client(ta);
    const first = await c.read();
    expect(first).toMatchObject({ scanned: 0, requests: 6 }); // the answer twice, both counted
    expect(jobRequests(ta)).toBe(2);
    expect(first.jobs.get("a")!.targets).toEqual(general(late));
    // read whole from now on: refused again, but parsed from the whole answer without asking twice
    expect(await c.read()).toMatchObject({ scanned: 0, requests: 5 });
    expect(jobRequests(ta)).toBe(3);
    // its answers scan again (read whole, scanned): streamed from the next reading on, so a late refusal costs a request again
    sound = true;
    expect(await c.read()).toMatchObject({ scanned: 1, requests: 5 });
    sound = false;
    expect(await c.read()).toMatchObject({ scanned: 0, requests: 6 });
  });

  it("fails an answer cut off mid-way, whatever the scanner had read of it; the retry starts a fresh scanner", async () => {
    const ta = await fake({ a: 1 });
    const answer = JSON.stringify(jobAnswer("a", 200));
    let attempts = 0;
    let cutOff = 3;
    ta.jobRoute = (_req, res) => {
      if (++attempts > cutOff) return sendJson(res, JSON.parse(answer));
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(answer.length) });
      res.write(answer.slice(0, answer.length >> 1), () => res.destroy());
    };
    const { err } = await readError(client(ta));
    expect(err).toMatchObject({ kind: "network", source: "c/ta/per-node /jobs/a/targets" });
    expect(attempts).toBe(3);
    // cut off once, then whole: the retry's answer is scanned on its own
    attempts = 0;
    cutOff = 1;
    const r = await client(ta).read();
    expect(attempts).toBe(2);
    expect(r.scanned).toBe(1);
    expect(r.jobs.get("a")!.targets).toEqual(general(JSON.parse(answer)));
  });
});
