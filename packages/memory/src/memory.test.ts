/**
 * The addon against the real allocator: memory freed in the middle of glibc's heap (small buffers, every sixteenth kept,
 * so that the top of the heap cannot shrink) stays resident until releaseMemory, which gives it back.
 */
import { describe, expect, it } from "vitest";
import { releaseMemory, unavailable } from "@allocation-lens/memory";

const glibc = Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);
const MiB = 2 ** 20;

/** Resident memory of the process now. */
const rss = () => process.memoryUsage.rss();

describe("releaseMemory", () => {
  it("loads the addon", () => {
    expect(unavailable()).toBeNull();
  });

  it("collects the calling thread's garbage at once", async () => {
    let ref: WeakRef<object> | undefined;
    (() => {
      ref = new WeakRef({ payload: "x".repeat(1000) });
    })();
    // a WeakRef's target lives until the end of the job that made or read it
    await new Promise((r) => setImmediate(r));
    expect(releaseMemory()).not.toBeNull();
    expect(ref!.deref()).toBeUndefined();
  });

  // only glibc has malloc_trim (elsewhere releaseMemory collects and says `trimmed: false`)
  it.skipIf(!glibc)("gives memory freed inside glibc's heap back to the system", async () => {
    const size = 4096;
    let bufs: Buffer[] = [];
    for (let i = 0; i < (64 * MiB) / size; i++) bufs.push(Buffer.alloc(size, 1));
    // keep every sixteenth buffer: 60 MiB freed in the middle of the heap, where only malloc_trim can return it
    bufs = bufs.filter((_, i) => i % 16 === 0);
    await new Promise((r) => setImmediate(r));
    const before = rss();
    const r = releaseMemory();
    const after = rss();
    expect(r?.trimmed).toBe(true);
    expect((before - after) / MiB).toBeGreaterThan(30);
    expect(bufs.length).toBe(1024);
  });
});
