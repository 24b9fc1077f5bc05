import fs from "node:fs";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { parseSchedstat, threadCpuIsPerThread, threadCpuMs } from "./thread-cpu";

const onLinux = fs.existsSync("/proc/thread-self/schedstat");

describe("threadCpuMs", () => {
  it("reads the first field of schedstat, in nanoseconds", () => {
    expect(parseSchedstat("142681 320325 2\n")).toBe(142681);
    expect(threadCpuMs(() => "2500000000 10 3\n", () => -1)).toBe(2500);
  });

  it("falls back to the process's CPU when schedstat is missing or unreadable", () => {
    const missing = () => {
      throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
    };
    expect(threadCpuMs(missing, () => 42)).toBe(42);
    expect(threadCpuMs(() => "garbage", () => 7)).toBe(7);
    expect(parseSchedstat("")).toBeNull();
    expect(threadCpuIsPerThread(missing)).toBe(false);
    const c = process.cpuUsage();
    expect(threadCpuMs(missing)).toBeGreaterThanOrEqual((c.user + c.system) / 1000);
  });

  it.runIf(onLinux)("counts this thread only: a busy worker does not add to it, while the process's CPU grows", async () => {
    expect(threadCpuIsPerThread()).toBe(true);
    const thread0 = threadCpuMs();
    const process0 = process.cpuUsage();
    // The worker spins until its own schedstat shows 300 ms more on CPU (however busy the machine) while this thread waits.
    const worker = `
      const fs = require("node:fs");
      const ms = () => Number(fs.readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
      const t0 = ms(), wall0 = Date.now();
      while (ms() - t0 < 300 && Date.now() - wall0 < 20000) {}
      require("node:worker_threads").parentPort.postMessage(ms() - t0);`;
    const w = new Worker(worker, { eval: true });
    const workerMs = await new Promise<number>((resolve, reject) => {
      w.once("message", resolve);
      w.once("error", reject);
    });
    await w.terminate();
    const threadMs = threadCpuMs() - thread0;
    const p = process.cpuUsage(process0);
    const processMs = (p.user + p.system) / 1000;
    expect(workerMs).toBeGreaterThanOrEqual(300);
    expect(processMs).toBeGreaterThanOrEqual(workerMs - 20);
    expect(threadMs).toBeLessThan(processMs - 250);
    expect(threadMs).toBeGreaterThanOrEqual(0);
  });
});
