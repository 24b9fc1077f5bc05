import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { GC_THREADING_FLAG, givenFlag, heapFlagsToSet, HEAP_GROWING_PERCENT, SERVING_ENV, SERVING_NODE_FLAGS, workerExecArgv } from "@/lib/node-flags";

describe("the process' V8 settings", () => {
  it("finds a flag given with dashes or underscores, with or without a value, on the command line or in NODE_OPTIONS", () => {
    expect(givenFlag("max-old-space-size", ["--max-old-space-size=640"])).toBe("--max-old-space-size=640");
    expect(givenFlag("max-old-space-size", [], "--enable-source-maps  --max_old_space_size=512")).toBe("--max_old_space_size=512");
    expect(givenFlag("heap-growing-percent", ["--heap-growing-percent"])).toBe("--heap-growing-percent");
    expect(givenFlag("max-old-space-size", ["--max-old-space-size-x=1", "--max-semi-space-size=2"])).toBeNull();
    expect(givenFlag("max-old-space-size", [], "")).toBeNull();
  });

  it("sets the heap's growth unless the operator gave their own", () => {
    expect(heapFlagsToSet([])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    expect(heapFlagsToSet(["--enable-source-maps"], "--max-old-space-size=640")).toEqual(["--heap-growing-percent=25"]);
    expect(heapFlagsToSet(["--heap-growing-percent=50"])).toEqual([]);
    expect(heapFlagsToSet([], "--heap_growing_percent=10")).toEqual([]);
  });

  it("passes the process' flags to the poll worker without the serving thread's semi-space", () => {
    expect(workerExecArgv([...SERVING_NODE_FLAGS, "--enable-source-maps", "--max_semi_space_size=8", "--cpu-prof"])).toEqual(["--enable-source-maps", "--cpu-prof"]);
    expect(workerExecArgv(["--single_threaded_gc", "--single-threaded-gc-x", "--trace-gc"])).toEqual(["--single-threaded-gc-x", "--trace-gc"]);
    expect(givenFlag("max-semi-space-size", SERVING_NODE_FLAGS)).toBe("--max-semi-space-size=2");
    expect(SERVING_NODE_FLAGS).toContain(GC_THREADING_FLAG);
  });
});

describe("where the serving thread's flags are given", () => {
  // a V8 flag read when the isolate is created: each way of starting the server names it on its command line
  const read = (f: string) => fs.readFileSync(path.join(import.meta.dirname, "..", f), "utf8");
  it("npm start and the container image's CMD", () => {
    const start = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts.start;
    const env = Object.entries(SERVING_ENV).map(([k, v]) => `${k}=${v}`);
    expect(start).toBe(`${env.join(" ")} node ${SERVING_NODE_FLAGS.join(" ")} scripts/start.mjs`);
    const dockerfile = read("Dockerfile").split("\n");
    const cmd = dockerfile.filter((l) => l.startsWith("CMD "));
    expect(dockerfile.filter((l) => /^ENV MALLOC_/.test(l)).map((l) => l.slice("ENV ".length))).toEqual(env);
    expect(cmd.at(-1)).toBe(`CMD ${JSON.stringify(["node", ...SERVING_NODE_FLAGS, "allocation-lens-server.mjs"]).replace(/","/g, '", "')}`);
  });
});
