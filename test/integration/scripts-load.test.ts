/**
 * The bench and the attack suite are not run by `npm test` (each takes minutes and most of the machine), so a change could
 * break them silently. This loads them as `npm run bench` and `npm run attack` do (`node --conditions=react-server
 * --import tsx`, ES modules: a CommonJS module's exports are seen by name only) and asks for their usage: every module
 * they import is loaded, nothing is started.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const NODE_ARGS = ["--conditions=react-server", "--import", "tsx"];
/** Runs node with `args` in the repository, with a temporary directory of its own (TMPDIR): returns what it left there. */
function run(args: string[], input?: string) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-scripts-test-"));
  try {
    const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", timeout: 60_000, input, env: { ...process.env, NODE_OPTIONS: "", TMPDIR: tmp } });
    return { ...r, leftInTmp: fs.readdirSync(tmp) };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

describe("the bench and the attack suite load", () => {
  it.each([
    ["scripts/bench.mts", "usage: npm run bench"],
    ["scripts/attack.mts", "usage: npm run attack"],
  ])("%s --help prints its usage and starts nothing", (script, usage) => {
    const r = run([...NODE_ARGS, script, "--help"]);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(usage);
    // neither its working directory nor the demo's (both made under the temporary directory)
    expect(r.leftInTmp.filter((f) => f.startsWith("allocation-lens-"))).toEqual([]);
  });

  it("an unknown option prints the usage and exits 2", () => {
    const r = run([...NODE_ARGS, "scripts/bench.mts", "--no-such-option"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("usage: npm run bench");
  });

  it("the bench's JSON.parse yardstick loads and names its arguments", () => {
    const r = run(["--import", "tsx", "scripts/json-parse-yardstick.mts"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("usage:");
  });

  it("the attack suite's observer thread loads as attack.mts loads it", () => {
    // As scripts/attack.mts starts it: a worker that registers tsx, then imports the module; "stop" with nothing started
    // answers null.
    const monitor = JSON.stringify(path.join(ROOT, "scripts/attack-monitor.mts"));
    const code = `
      import { Worker } from "node:worker_threads";
      import { pathToFileURL } from "node:url";
      const href = pathToFileURL(${monitor}).href;
      const w = new Worker(\`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(\${JSON.stringify(href)}); });\`, { eval: true });
      w.on("error", (e) => { console.error(e); process.exit(1); });
      w.on("message", (m) => { console.log(JSON.stringify({ answer: m })); process.exit(0); });
      setTimeout(() => w.postMessage({ cmd: "stop" }), 500);
      setTimeout(() => { console.error("no answer"); process.exit(1); }, 30_000);`;
    const r = run(["--input-type=module", "-"], code);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual({ answer: null });
  });
});
