/**
 * The serving thread's side of the poll worker against a real worker thread polling the demo cluster on loopback: the
 * answers pushed after a poll are served without asking the worker, a question with parameters is asked once per poll,
 * error answers are not kept, and a worker that dies is started again while the answers already here keep being served.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isMainThread } from "node:worker_threads";
import { execFileSync } from "node:child_process";
import zlib from "node:zlib";
import { SERVING_NODE_FLAGS, SERVING_SEMI_SPACE_MIB } from "@/lib/node-flags";
import { loadConfigFile } from "@/server/config";
import { heapFlagOverride, PollHost, POLL_WORKER_YOUNG_MIB, startWorker, workerFailure, workerHeapLimits } from "@/server/poll/host";
import { startDemoCluster, type DemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";
import { until, waitFor } from "@allocation-lens/test-support/wait";
import { TARGET_PAGE_SIZE } from "@/lib/views/target-window";
import { GZIP_MIN_BYTES } from "@/lib/inbound/pushed";

let demo: DemoCluster;
let host: PollHost;
const logged: string[] = [];

beforeAll(async () => {
  demo = await startDemoCluster({ pollInterval: 1, nodes: 4, seed: 3 });
  const config = loadConfigFile(demo.info.dashboardConfig);
  host = new PollHost(config, demo.info.dashboardConfig, (line) => logged.push(line));
  host.start();
  await [...host.clusters.values()][0].next(60_000);
}, 90_000);

afterAll(async () => {
  await host?.stop();
  await demo?.close();
});

const decode = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b)) as Record<string, unknown>;

describe("PollHost", () => {
  it("polls in the worker: the TAs are read while this thread constructs no poller", async () => {
    expect(isMainThread).toBe(true);
    const cluster = [...host.clusters.values()][0];
    const polls = cluster.polls;
    const meta = await until(() => cluster.latest, (m) => m.polls >= polls + 1, 20_000, "another poll", 50);
    expect(meta.taRequestsLastPoll).toBeGreaterThan(0);
    expect(Object.values(meta.taRequests).every((n) => (n ?? 0) > 0)).toBe(true);
    // the poll's CPU is the worker thread's: a few ms for 4 nodes, not the process' total since start
    expect(meta.pollCpuMs).toBeGreaterThanOrEqual(0);
    expect(meta.pollCpuMs).toBeLessThan(meta.pollMs + 1000);
    // and at a lower scheduling priority than this thread, which serves HTTP
    expect(host.priority).toBe("nice 10");
  });

  it("gives the worker its own young generation under the serving thread's --max-semi-space-size", () => {
    // a process started as `npm start` starts it; each thread fills its young generation and reports its size
    const script = `
      import v8 from "node:v8";
      const host = await import("./server/poll/host.ts");
      const startWorker = host.startWorker ?? host.default.startWorker;
      const young = "(() => { let a = []; for (let i = 0; i < 2e6; i++) { a.push({ i }); if (a.length > 5e4) a = []; } return v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size; })()";
      const serving = eval(young);
      const w = startWorker("const v8 = require('node:v8'); require('node:worker_threads').parentPort.postMessage(" + young + ")", { eval: true, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 48 } }, console.log);
      w.once("message", (worker) => { console.log(JSON.stringify({ serving, worker })); w.terminate(); });
    `;
    const out = execFileSync(process.execPath, [...SERVING_NODE_FLAGS, "--conditions=react-server", "--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    const { serving, worker } = JSON.parse(out.trim().split("\n").at(-1)!) as { serving: number; worker: number };
    // two semi-spaces each: the serving thread's 2 MiB, the worker's 48 / 3 = 16 MiB (without the release: 2 MiB too)
    expect(serving).toBeLessThanOrEqual(2 * SERVING_SEMI_SPACE_MIB * 2 ** 20);
    expect(worker).toBeGreaterThanOrEqual(16 * 2 ** 20);
  });

  it("gives the worker the heap of pollWorker.maxHeapMiB, not V8's default of 4 GiB", async () => {
    const text = new TextDecoder().decode(await host.metricsBytes());
    const limit = Number(/^allocation_lens_poll_worker_heap_bytes\{kind="limit"\} (\S+)$/m.exec(text)?.[1]);
    const mib = limit / 2 ** 20;
    // V8's limit is the old generation plus the young one's semi-space reserve: a little over what was asked
    expect(mib).toBeGreaterThanOrEqual(1024 - POLL_WORKER_YOUNG_MIB);
    expect(mib).toBeLessThan(1024 + 32);
  });

  it("starts a worker without the V8 options it refuses, and says so", async () => {
    const lines: string[] = [];
    const w = startWorker("require('node:worker_threads').parentPort.postMessage(process.execArgv)", { eval: true, execArgv: ["--enable-source-maps", "--max-semi-space-size=4", "--stack-trace-limit=50"] }, (l) => lines.push(l));
    const argv = await new Promise((resolve) => w.once("message", resolve));
    await w.terminate();
    expect(argv).toEqual(["--enable-source-maps"]);
    expect(lines).toEqual(["allocation-lens: Node refuses --max-semi-space-size=4 --stack-trace-limit=50 as a worker's own flags: the poll worker starts without them"]);
  });

  it("knows when Node's --max-old-space-size decides the worker's heap instead", () => {
    expect(heapFlagOverride(["--conditions=react-server"], "")).toBeNull();
    expect(heapFlagOverride([], "--enable-source-maps --max-old-space-size=640")).toBe("--max-old-space-size=640");
    expect(heapFlagOverride(["--max_old_space_size=300"])).toBe("--max_old_space_size=300");
    expect(heapFlagOverride(["--max-semi-space-size=8"], "--max-old-space-sizes=1")).toBeNull();
  });

  it("names pollWorker.maxHeapMiB when the worker ran out of heap", () => {
    const oom = Object.assign(new Error("Worker terminated due to reaching memory limit: JS heap out of memory"), { code: "ERR_WORKER_OUT_OF_MEMORY" });
    expect(workerFailure(oom, { maxHeapMiB: 512 })).toBe(
      "allocation-lens: the poll worker ran out of its heap (pollWorker.maxHeapMiB: 512); raise pollWorker.maxHeapMiB in the configuration for a cluster this size",
    );
    expect(workerFailure(new Error("boom"), { maxHeapMiB: 512 })).toContain("poll worker failed: Error: boom");
    expect(workerHeapLimits({ maxHeapMiB: 512 })).toEqual({ maxOldGenerationSizeMb: 512 - POLL_WORKER_YOUNG_MIB, maxYoungGenerationSizeMb: POLL_WORKER_YOUNG_MIB });
  });

  it("serves the pushed answers without asking the worker, and asks a question with parameters once per poll", async () => {
    const cluster = [...host.clusters.values()][0];
    const ask = vi.spyOn(host, "ask");
    try {
      const polls = cluster.polls;
      await until(() => cluster.latest, (m) => m.polls > polls, 20_000, "a fresh poll", 20);
      ask.mockClear();
      const summary = await cluster.answer({ route: "summary", search: "" });
      expect(summary.status).toBe(200);
      expect(decode(summary.body).cluster).toBe(cluster.config.name);
      // the same question with the cluster named is the same key
      const nodes = await cluster.answer({ route: "nodes", search: `?cluster=${cluster.config.name}` });
      // a large pushed answer comes gzipped by the worker as well (GZIP_MIN_BYTES), the same bytes once inflated
      expect(nodes.body.byteLength).toBeGreaterThanOrEqual(GZIP_MIN_BYTES);
      expect(Buffer.from(zlib.gunzipSync(nodes.gzip!)).equals(Buffer.from(nodes.body))).toBe(true);
      // the targets page's first page, as the page preloads it: pushed too, whatever the order of its parameters
      const first = await cluster.answer({ route: "targets", search: `?limit=${TARGET_PAGE_SIZE}&offset=0&cluster=${cluster.config.name}` });
      expect(first.status).toBe(200);
      expect(decode(first.body)).toMatchObject({ offset: 0, limit: TARGET_PAGE_SIZE });
      expect(first.gzip).toBeUndefined(); // not a pushed route: Next.js serves it, and compresses it itself
      expect(ask).not.toHaveBeenCalled();

      const before = cluster.polls;
      const a = await cluster.answer({ route: "targets", search: "?limit=5&role=per-node" });
      const b = await cluster.answer({ route: "targets", search: "?role=per-node&limit=5" });
      expect(a.status).toBe(200);
      expect(decode(a.body).rows).toHaveLength(5);
      // asked once, unless a poll ended between the two questions (then once per poll)
      expect(ask).toHaveBeenCalledTimes(cluster.polls === before ? 1 : 2);
      if (cluster.polls === before) expect(b).toBe(a);
      // a new poll asks again: one after the last answer (a poll may already have ended between the two questions, and
      // the second one's answer is then kept for the poll it came in)
      const seen = cluster.polls;
      await until(() => cluster.latest, (m) => m.polls > seen, 20_000, "the next poll", 20);
      ask.mockClear();
      await cluster.answer({ route: "targets", search: "?limit=5&role=per-node" });
      expect(ask).toHaveBeenCalledTimes(1);
    } finally {
      ask.mockRestore();
    }
  });

  it("the worker's metrics: every allocation_lens_* series with its own heap, and none of the serving thread's process metrics", async () => {
    const bytes = await host.metricsBytes();
    const text = new TextDecoder().decode(bytes);
    const cluster = [...host.clusters.values()][0].config.name;
    expect(text).toContain(`allocation_lens_poll_duration_seconds{cluster="${cluster}"}`);
    expect(text).toMatch(/^allocation_lens_readiness_transitions_total\{cluster="[^"]+",role="per-node"\} \d+$/m);
    // the demo's cluster-scraper TA runs consistent-hashing (its metrics say so): its ring has a headroom below 1061
    expect(Number(/^allocation_lens_ta_ring_headroom\{cluster="[^"]+",role="cluster-scraper"\} (-?\d+)$/m.exec(text)?.[1])).toBeLessThan(1061);
    const used = Number(/^allocation_lens_poll_worker_heap_bytes\{kind="used"\} (\d+)$/m.exec(text)?.[1]);
    expect(used).toBeGreaterThan(1 << 20);
    expect(text).not.toMatch(/^nodejs_|^process_/m);
    // Asked once, the worker sends the text with every poll's news: a scrape after a poll (the demo is calm: no change
    // between polls) asks nothing and has that poll's text. A change between polls makes the next scrape ask.
    const ask = vi.spyOn(host, "ask");
    try {
      const cluster0 = [...host.clusters.values()][0];
      const polls = cluster0.polls;
      await until(() => cluster0.latest, (m) => m.polls > polls + 1, 20_000, "two more polls", 20);
      ask.mockClear();
      const laterBytes = await host.metricsBytes();
      expect(ask).not.toHaveBeenCalled();
      const later = new TextDecoder().decode(laterBytes);
      expect(later).not.toBe(text);
      expect(later).toMatch(new RegExp(`^allocation_lens_poll_duration_seconds\\{cluster="${cluster}"\\}`, "m"));
      // the worker's change count moves without a poll (as a pod event's counter does): the scrape asks, and the worker,
      // whose text has not changed, sends none
      Atomics.add((host as unknown as { metricsVersion: Int32Array }).metricsVersion, 0, 1);
      const asked = await host.metricsBytes();
      expect(ask).toHaveBeenCalledTimes(1);
      expect(await ask.mock.results[0].value).toMatchObject({ bytes: null });
      expect(asked).toBe(laterBytes);
    } finally {
      ask.mockRestore();
    }
  });

  it("does not keep error answers", async () => {
    const cluster = [...host.clusters.values()][0];
    const ask = vi.spyOn(host, "ask");
    try {
      const first = await cluster.answer({ route: "node", search: "", name: "no-such-node" });
      expect(first.status).toBe(404);
      expect(decode(first.body)).toMatchObject({ error: { code: "unknown_node" } });
      await new Promise((resolve) => setImmediate(resolve));
      const second = await cluster.answer({ route: "node", search: "", name: "no-such-node" });
      expect(second.status).toBe(404);
      expect(ask).toHaveBeenCalledTimes(2);
    } finally {
      ask.mockRestore();
    }
  });

  it("starts a worker that died again; meanwhile the answers already here are served and questions get 503", async () => {
    const cluster = [...host.clusters.values()][0];
    const summary = await cluster.answer({ route: "summary", search: "" });
    const polls = cluster.polls;
    // what an out-of-memory kill or a crash of the thread looks like from here: the thread ends
    await (host as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    const refused = await cluster.answer({ route: "targets", search: "?limit=7" }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 503, code: "poll_worker" });
    expect(await cluster.answer({ route: "summary", search: "" })).toBe(summary);
    expect(logged.some((l) => l.includes("poll worker exited"))).toBe(true);
    // started again: polls resume (the count restarts with the new worker) and questions are answered
    await until(() => host.starts, (n) => n === 2, 20_000, "a second worker", 50);
    const died = Date.now();
    // a new worker loads the poller's modules again before its first poll: on a loaded machine that takes a while
    const resumed = await until(() => cluster.latest, (m) => m.at > died, 90_000, "a poll of the new worker", 50).catch((e: Error) => {
      throw new Error(`${e.message}\nthe host's log:\n${logged.slice(-20).join("\n")}`);
    });
    expect(resumed.polls).toBeLessThan(polls + 1);
    // answered by the new worker (on a loaded machine it may itself have ended and been started again: the host's log
    // says why, and the answer still comes within the restart back-off)
    const again = await waitFor(
      "an answer from the new worker",
      async () => {
        const a = await cluster.answer({ route: "targets", search: "?limit=7" }).catch((e: unknown) => e as { status: number });
        return a.status === 200 ? a : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(again.status).toBe(200);
    const exits = logged.filter((l) => l.includes("poll worker exited"));
    if (exits.length > 1) console.warn(`poll-host: the worker ended ${exits.length} times:\n${logged.join("\n")}`);
  }, 180_000);
});
