/**
 * The runtime on the embedded demo (no configuration: `npm start` as it comes): its stop waits for the demo to close, so
 * that the demo's temporary directory (TLS keys, the control token, the history) is gone when the process exits. Before,
 * the demo was still closing when the server exited, and the launcher's exit hook killed it with SIGKILL.
 * One runtime per file (`getRuntime` is a process-wide singleton).
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const demoDirs = (dir: string) => fs.readdirSync(dir).filter((f) => f.startsWith("allocation-lens-demo-"));

describe("the embedded demo's runtime", () => {
  it("leaves no temporary directory of the demo behind once it has stopped", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-runtime-"));
    const saved = { ...process.env };
    for (const k of ["ALLOCATION_LENS_CONFIG", "ALLOCATION_LENS_KUBECONFIG", "ALLOCATION_LENS_CONTEXT", "ALLOCATION_LENS_DISCOVER"]) delete process.env[k];
    // the demo is a child process: it makes its directory under the TMPDIR it inherits
    process.env.TMPDIR = tmp;
    process.env.ALLOCATION_LENS_DEMO_ARGS = "--nodes 3";
    try {
      const { getRuntime } = await import("@/server/runtime");
      const runtime = await getRuntime();
      expect(runtime.demo).toBe(true);
      expect(demoDirs(tmp)).toHaveLength(1);
      await runtime.stop();
      expect(demoDirs(tmp)).toEqual([]);
    } finally {
      process.env = saved;
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});
