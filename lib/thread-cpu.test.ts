import { describe, expect, it } from "vitest";
import { Worker } from "node:worker_threads";
import { parseSchedstat, threadCpuMs, threadCpuSource } from "@/lib/thread-cpu";

describe("threadCpuMs", () => {
  it("parses the first field of a schedstat line as nanoseconds", () => {
    expect(parseSchedstat("1234567890 5678 12\n")).toBe(1234.56789);
    expect(parseSchedstat("")).toBeNull();
    expect(parseSchedstat("x 1 2")).toBeNull();
  });

  it("counts this thread's work and not another thread's", async () => {
    expect(threadCpuSource()).toBe("thread"); // Linux: /proc/thread-self exists
    const before = threadCpuMs();
    // another thread burns CPU for ~300 ms while this one waits for it without working
    const worker = new Worker("const t = Date.now(); while (Date.now() - t < 300); require('worker_threads').parentPort.postMessage(1);", { eval: true });
    await new Promise((resolve) => worker.once("message", resolve));
    await worker.terminate();
    const waited = threadCpuMs() - before;
    // the process as a whole spent at least the worker's 300 ms meanwhile; this thread far less
    expect(waited).toBeLessThan(150);
    // and this thread's own work is counted: it reaches 100 ms of CPU within a few seconds of spinning
    const start = threadCpuMs();
    const t = Date.now();
    while (threadCpuMs() - start < 100 && Date.now() - t < 5000);
    expect(threadCpuMs() - start).toBeGreaterThanOrEqual(100);
  });
});
