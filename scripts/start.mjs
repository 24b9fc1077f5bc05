#!/usr/bin/env node
// `npm start`: builds the dashboard when there is no build yet, bundles the server entry (server/inbound/main.ts: our own
// HTTP server with explicit limits in front of Next.js) and runs it in this process, on the embedded demo cluster when no
// configuration is given (set ALLOCATION_LENS_CONFIG or pass --config FILE for a real cluster).
// Listens on HOST (default 127.0.0.1: loopback; anything else needs auth, see README, Configuration) and PORT (3000).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildServerEntry } from "./build-server.mjs";
import { ensureCloudwatchTa, ensureRealTa } from "./peers.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const next = path.join(root, "node_modules", "next", "dist", "bin", "next");
process.env.NEXT_TELEMETRY_DISABLED = "1";

const args = process.argv.slice(2);
const i = args.indexOf("--config");
if (i >= 0) {
  if (!args[i + 1]) {
    console.error("--config needs a file path");
    process.exit(2);
  }
  process.env.ALLOCATION_LENS_CONFIG = path.resolve(args[i + 1]);
  args.splice(i, 2);
}
// --kubeconfig FILE / --context NAME: a real cluster with nothing else configured (its TAs are discovered);
// --discover: on the embedded demo, find its TAs the same way instead of using the generated configuration
for (const [flag, env] of [
  ["--kubeconfig", "ALLOCATION_LENS_KUBECONFIG"],
  ["--context", "ALLOCATION_LENS_CONTEXT"],
]) {
  const at = args.indexOf(flag);
  if (at < 0) continue;
  if (!args[at + 1] || args[at + 1].startsWith("--")) {
    console.error(`${flag} needs a value`);
    process.exit(2);
  }
  process.env[env] = flag === "--kubeconfig" ? path.resolve(args[at + 1]) : args[at + 1];
  args.splice(at, 2);
}
const d = args.indexOf("--discover");
if (d >= 0) {
  process.env.ALLOCATION_LENS_DISCOVER = "1";
  args.splice(d, 1);
}
// --ta real [--flavor upstream|cloudwatch] [--strategy S] [--fallback F]: the embedded demo on a real Target Allocator,
// built once with Go: upstream's otel-allocator (the default with --ta real) or the CloudWatch fork's (--flavor cloudwatch)
const demoArgs = [];
for (const flag of ["--ta", "--flavor", "--strategy", "--fallback"]) {
  const at = args.indexOf(flag);
  if (at < 0) continue;
  if (!args[at + 1] || args[at + 1].startsWith("--")) {
    console.error(`${flag} needs a value`);
    process.exit(2);
  }
  demoArgs.push(flag, args[at + 1]);
  args.splice(at, 2);
}
if (demoArgs.length) {
  if (process.env.ALLOCATION_LENS_CONFIG || process.env.ALLOCATION_LENS_KUBECONFIG || process.env.ALLOCATION_LENS_CONTEXT) {
    console.error("--ta, --flavor, --strategy and --fallback choose the embedded demo's allocator: they go without --config and --kubeconfig");
    process.exit(2);
  }
  const ta = demoArgs.includes("--ta") ? demoArgs[demoArgs.indexOf("--ta") + 1] : undefined;
  const flavor = demoArgs.includes("--flavor") ? demoArgs[demoArgs.indexOf("--flavor") + 1] : undefined;
  if (ta === "real") {
    const ensure = flavor === "cloudwatch" ? ensureCloudwatchTa : ensureRealTa;
    const peer = ensure({ log: (line) => console.log(`allocation-lens: ${line}`) });
    if ("missing" in peer) {
      console.error(`allocation-lens: --ta real: ${peer.missing}`);
      process.exit(1);
    }
    if (!flavor) demoArgs.push("--flavor", "upstream");
  }
  process.env.ALLOCATION_LENS_DEMO_ARGS = [process.env.ALLOCATION_LENS_DEMO_ARGS ?? "", ...demoArgs].join(" ").trim();
}
if (process.env.ALLOCATION_LENS_CONFIG && (process.env.ALLOCATION_LENS_KUBECONFIG || process.env.ALLOCATION_LENS_CONTEXT || process.env.ALLOCATION_LENS_DISCOVER)) {
  console.error("--config and --kubeconfig/--context/--discover exclude each other: a configuration file names its clusters itself (use targetAllocators: auto there)");
  process.exit(2);
}
if (args.length) {
  console.error(`unknown arguments: ${args.join(" ")}; usage: npm start [-- --config FILE | --kubeconfig FILE [--context NAME] | [--discover] [--ta simulated|real] [--flavor upstream|cloudwatch] [--strategy S] [--fallback F]] (environment: HOST, PORT)`);
  process.exit(2);
}

const distDir = process.env.ALLOCATION_LENS_DIST_DIR || ".next";
if (!fs.existsSync(path.join(root, distDir, "BUILD_ID"))) {
  console.log("allocation-lens: no build yet, running `next build` (about a minute)...");
  const r = spawnSync(process.execPath, [next, "build"], { cwd: root, stdio: "inherit", env: process.env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// The entry reads HOSTNAME, as the container image sets it; an inherited HOSTNAME (the machine's name) is not meant here.
process.env.HOSTNAME = process.env.HOST || "127.0.0.1";
process.env.PORT ||= "3000";
process.chdir(root);
const entry = await buildServerEntry();
await import(pathToFileURL(entry).href);
