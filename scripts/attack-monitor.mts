/**
 * The attack suite's observer, in a worker thread of its own so that the attacks' work on the main thread (thousands of
 * sockets, a 200 MB answer being generated) does not inflate what it measures: a legitimate client calling one URL every
 * 200 ms (latency, status), and the resident memory of the attacked dashboard's process tree every 200 ms.
 *
 * Messages: {cmd: "start", url, headers, pid} starts both; {cmd: "stop"} answers {latencies, statuses, errors, peakRss}.
 */
import { parentPort } from "node:worker_threads";
import { rssOfTree } from "./proc.mts";

type Start = { cmd: "start"; url: string; headers: Record<string, string>; pid: number };
type Stop = { cmd: "stop" };

let run = 0;

async function legit(id: number, url: string, headers: Record<string, string>, out: { latencies: number[]; statuses: Record<string, number>; errors: number }) {
  while (run === id) {
    const t = performance.now();
    let status = "error";
    try {
      const r = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
      await r.arrayBuffer();
      status = String(r.status);
      if (r.status !== 200) out.errors++;
    } catch {
      out.errors++;
    }
    out.latencies.push(performance.now() - t);
    out.statuses[status] = (out.statuses[status] ?? 0) + 1;
    await new Promise((r) => setTimeout(r, 200));
  }
}

let current: { out: { latencies: number[]; statuses: Record<string, number>; errors: number }; peakRss: number; timer: NodeJS.Timeout; done: Promise<void> } | null = null;

parentPort!.on("message", async (m: Start | Stop) => {
  if (m.cmd === "start") {
    const id = ++run;
    const out = { latencies: [] as number[], statuses: {} as Record<string, number>, errors: 0 };
    const state = { out, peakRss: 0, timer: undefined as unknown as NodeJS.Timeout, done: Promise.resolve() };
    const sample = () => {
      state.peakRss = Math.max(state.peakRss, rssOfTree(m.pid));
    };
    sample();
    state.timer = setInterval(sample, 200);
    state.done = legit(id, m.url, m.headers, out);
    current = state;
  } else if (m.cmd === "stop") {
    run++;
    const c = current;
    current = null;
    if (!c) return parentPort!.postMessage(null);
    clearInterval(c.timer);
    await c.done;
    parentPort!.postMessage({ ...c.out, peakRss: c.peakRss });
  }
});
