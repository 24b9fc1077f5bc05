#!/usr/bin/env node
// `npm start`: builds the dashboard when there is no build yet, then serves it (on the embedded demo cluster when no
// configuration is given: set ALLOCATION_LENS_CONFIG or pass --config FILE for a real cluster).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const next = path.join(root, "node_modules", "next", "dist", "bin", "next");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

const args = process.argv.slice(2);
const i = args.indexOf("--config");
if (i >= 0) {
  if (!args[i + 1]) {
    console.error("--config needs a file path");
    process.exit(2);
  }
  env.ALLOCATION_LENS_CONFIG = path.resolve(args[i + 1]);
  args.splice(i, 2);
}

if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) {
  console.log("allocation-lens: no build yet, running `next build` (about a minute)...");
  const r = spawnSync(process.execPath, [next, "build"], { cwd: root, stdio: "inherit", env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const port = env.PORT ?? "3000";
const host = env.HOST ?? "0.0.0.0";
console.log(`allocation-lens: serving on http://${host === "0.0.0.0" ? "localhost" : host}:${port}`);
const child = spawn(process.execPath, [next, "start", "-p", port, "-H", host, ...args], { cwd: root, stdio: "inherit", env });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
