#!/usr/bin/env node
// `npm test`: every test, tier by tier (CONTRIBUTING.md, "Tests"). Installs the Debian test peers it needs when run as
// root (chromium for the browser tier, prometheus and kubectl for the acceptance tier), or stops with a message naming the
// package. Starts building the Go test peers at once, in the background and at a lower priority, one process each
// (helm, upstream's Target Allocator, the CloudWatch fork's, oauth2-proxy, etcd and kube-apiserver: scripts/peers.mjs, cached; their logs in
// artifacts/peers/), and meanwhile runs:
//   checks       eslint and tsc, side by side
//   unit         vitest --project unit --project unit-isolated: the tests beside the code
//   build        next build and the bundled server entry
//   acceptance   vitest --project acceptance: the demo-cluster suites (test/acceptance, test/integration, test/deploy,
//                packages/*/test/acceptance)
//   built        vitest --project built: the built server (standalone, two replicas); needs no Go peer, so it runs
//                while they may still compile
//   real peers   vitest --project real-peers --project differential, once helm and both allocators are built (or known
//                missing)
//   browser      Playwright, once oauth2-proxy is built
//   control plane  vitest --project control-plane: the demo and the dashboard on a real kube-apiserver and etcd, once
//                both are built (the longest build: last)
// It prints each tier's counts and wall time, then `N passed, N failed` computed from the runners' own JSON reports (also
// written to artifacts/test-summary.json).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { GO_PEERS, requirePeers } from "./peers.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const artifacts = path.join(root, "artifacts");
fs.mkdirSync(path.join(artifacts, "peers"), { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", FORCE_COLOR: "0" };
const bin = (name) => path.join(root, "node_modules", ".bin", name);
const started = Date.now();
const clock = () => `${Math.round((Date.now() - started) / 1000)} s`;
// whole seconds first, so that 119.6 s reads 2m00s and not 1m60s
const mmss = (ms) => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
};

const DEBIAN_PEERS = [
  { cmd: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", pkg: "chromium", why: "the Playwright browser tests" },
  { cmd: "/usr/bin/prometheus", pkg: "prometheus", why: "the test with a real Prometheus as HTTP-SD client" },
  { cmd: ["/usr/bin/kubectl", "/usr/local/bin/kubectl"], pkg: "kubernetes-client", why: "the tests with a real kubectl and the rendering of deploy/" },
];
const missing = DEBIAN_PEERS.filter((p) => ![p.cmd].flat().some((c) => fs.existsSync(c)));
if (missing.length) {
  const pkgs = missing.map((p) => p.pkg);
  if (process.getuid?.() === 0) {
    console.log(`npm test: installing Debian packages ${pkgs.join(", ")}...`);
    const { spawnSync } = await import("node:child_process");
    const opts = { stdio: "inherit", env: { ...env, DEBIAN_FRONTEND: "noninteractive" } };
    const up = spawnSync("apt-get", ["update", "-qq"], opts);
    const inst = up.status === 0 ? spawnSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...pkgs], opts) : up;
    if (inst.status !== 0) {
      console.error(`npm test: could not install ${pkgs.join(", ")} with apt-get; install them and run again.`);
      process.exit(1);
    }
  } else {
    for (const p of missing) console.error(`npm test: ${[p.cmd].flat()[0]} is missing: install Debian's "${p.pkg}" package (needed for ${p.why}), e.g. sudo apt-get install -y ${p.pkg}`);
    process.exit(1);
  }
}

/**
 * Runs a command to its end: its output goes to the terminal as it comes, or, with `capture`, into the returned text
 * (for steps that run side by side, printed whole when they end). Resolves { code, ms, output }.
 */
function run(cmd, args, { capture = false, extraEnv = {}, logFile, onSpawn } = {}) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const out = logFile ? fs.openSync(logFile, "w") : undefined;
    const stdio = out !== undefined ? ["ignore", out, out] : capture ? ["ignore", "pipe", "pipe"] : "inherit";
    const child = spawn(cmd, args, { cwd: root, stdio, env: { ...env, ...extraEnv } });
    if (child.pid !== undefined) onSpawn?.(child.pid);
    let output = "";
    if (capture && out === undefined) {
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
    }
    child.on("error", (e) => (output += `${e.message}\n`));
    child.on("close", (code, signal) => {
      if (out !== undefined) fs.closeSync(out);
      resolve({ code: code ?? (signal ? 1 : 0), ms: Date.now() - t0, output });
    });
  });
}

const tiers = [];
const checks = [];

/** One or more vitest projects, in one run: their counts from its JSON report. */
async function vitestTier(tier, projects, label) {
  projects = [projects].flat();
  const file = path.join(artifacts, `vitest-${projects.join("+")}.json`);
  fs.rmSync(file, { force: true });
  console.log(`\n== ${label} (vitest ${projects.map((p) => `--project ${p}`).join(" ")}) at ${clock()}`);
  const r = await run(bin("vitest"), ["run", ...projects.flatMap((p) => ["--project", p]), "--reporter=default", "--reporter=json", `--outputFile.json=${file}`]);
  const counts = { passed: 0, failed: 0, skipped: 0 };
  if (!fs.existsSync(file)) Object.assign(counts, { failed: 1, note: "no JSON report" });
  else {
    const v = JSON.parse(fs.readFileSync(file, "utf8"));
    // A file that fails outside its tests (load error, beforeAll) has no failed test of its own: count it as a failure.
    const brokenFiles = (v.testResults ?? []).filter((f) => f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed")).length;
    Object.assign(counts, { passed: v.numPassedTests, failed: v.numFailedTests + brokenFiles, skipped: v.numPendingTests + (v.numTodoTests ?? 0) });
    if (r.code !== 0 && counts.failed === 0) Object.assign(counts, { failed: 1, note: `vitest exited ${r.code}` });
  }
  tiers.push({ tier, runner: `vitest ${projects.join(" + ")}`, ms: r.ms, ...counts });
}

// The Go-built test peers: all start now, each in a process of its own at a lower priority (nice), so that they
// compile while the checks, the unit tier, the build and the acceptance tier run, and slow no timing of a test much.
// kube-apiserver, the longest build and needed last (the control plane tier), gets only the CPU the others leave. A tier
// waits only for the peers it needs; a build it waits for gets the runner's priority back (hurry).
const NICE = { "kube-apiserver": "19", "opentelemetry-operator": "19", "cloudwatch-operator": "19" };
// a peer built from the same module as another starts when that one is built, and finds most of it compiled
const AFTER = { "opentelemetry-operator": "otel-allocator", "cloudwatch-operator": "cloudwatch-target-allocator" };
const peerPids = {};
const peers = {};
// (GO_PEERS lists each peer before the one that comes after it)
for (const name of Object.keys(GO_PEERS)) {
  const logFile = path.join(artifacts, "peers", `${name}.log`);
  const before = AFTER[name] ? peers[AFTER[name]] : Promise.resolve();
  peers[name] = before.then(() =>
    run("nice", ["-n", NICE[name] ?? "10", process.execPath, path.join(root, "scripts", "build-peers.mjs"), name], { logFile, onSpawn: (pid) => (peerPids[name] = pid) }).then((r) => {
      const last = fs.readFileSync(logFile, "utf8").trim().split("\n").pop() ?? "";
      let peer;
      try {
        peer = JSON.parse(last);
      } catch {
        peer = { peer: name, missing: `scripts/build-peers.mjs ${name} exited ${r.code} (artifacts/peers/${name}.log)` };
      }
      return { ...peer, ms: r.ms, logFile };
    }),
  );
}
console.log(`npm test: building the Go test peers in the background (${Object.keys(peers).join(", ")}; logs in artifacts/peers/)`);

/** A process and all its descendants, from /proc (Linux); just the process elsewhere. */
function processTree(pid) {
  const children = new Map();
  try {
    for (const d of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (!children.has(ppid)) children.set(ppid, []);
        children.get(ppid).push(Number(d));
      } catch {
        // ended meanwhile
      }
    }
  } catch {
    return [pid];
  }
  const tree = [];
  const walk = (p) => {
    tree.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return tree;
}

/**
 * A tier now waits for a peer still compiling: nothing else runs, so its build gets this process' priority back (the
 * compilers it starts from now on inherit it). Lowering a nice value needs root; elsewhere it keeps its own.
 */
function hurry(name) {
  const pid = peerPids[name];
  if (pid === undefined) return;
  const mine = os.getPriority();
  let raised = 0;
  for (const p of processTree(pid)) {
    try {
      if (os.getPriority(p) > mine) {
        os.setPriority(p, mine);
        raised++;
      }
    } catch {
      // not permitted, or ended
    }
  }
  if (raised) console.log(`npm test: ${name} is still compiling and the tests wait for it: its build runs at this process' priority now`);
}

/** Waits for the named peers, saying what each means for the tests that need it. */
async function needPeers(names, what) {
  const t0 = Date.now();
  for (const name of names) {
    if (!(await Promise.race([peers[name].then(() => true), new Promise((r) => setTimeout(() => r(false), 0))]))) hurry(name);
    const p = await peers[name];
    if ("missing" in p) {
      console.log(`npm test: ${name} is missing: ${p.missing} (log: ${path.relative(root, p.logFile)}); ${what} ${requirePeers() ? "fail (ALLOCATION_LENS_REQUIRE_PEERS=1)" : "are skipped"}`);
      const tail = fs.readFileSync(p.logFile, "utf8").trim().split("\n").slice(-15).join("\n");
      if (tail) console.log(tail);
    } else console.log(`test peer ${name}: ${p.path}${p.built ? ` (built in ${p.seconds} s)` : " (cached)"}`);
  }
  const waited = Date.now() - t0;
  if (waited > 1000) console.log(`(waited ${mmss(waited)} for ${names.join(", ")})`);
  return waited;
}

// checks: lint and types side by side, each printed whole when it ends
console.log(`\n== checks: eslint and tsc at ${clock()}`);
const checkStart = Date.now();
await Promise.all(
  [
    ["lint", bin("eslint"), [".", "--max-warnings=0"]],
    ["type check", bin("tsc"), ["--noEmit", "-p", "."]],
  ].map(async ([label, cmd, args]) => {
    const r = await run(cmd, args, { capture: true });
    console.log(`\n-- ${label}: ${r.code === 0 ? "ok" : `failed (exit ${r.code})`} in ${mmss(r.ms)}`);
    if (r.output.trim()) console.log(r.output.trimEnd());
    checks.push({ label, ok: r.code === 0, ms: r.ms });
  }),
);
const checksMs = Date.now() - checkStart;

await vitestTier("unit", ["unit", "unit-isolated"], "unit tier");

console.log(`\n== build (next build, then the server entry) at ${clock()}`);
const buildStart = Date.now();
const built =
  (await run(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"])).code === 0 &&
  (await run(process.execPath, [path.join(root, "scripts", "build-server.mjs")])).code === 0;
const buildMs = Date.now() - buildStart;

await vitestTier("acceptance", "acceptance", "acceptance tier");

if (built) await vitestTier("built", "built", "the built server (vitest)");
else tiers.push({ tier: "built", runner: "vitest built", ms: 0, passed: 0, failed: 1, skipped: 0, note: "build failed" });

async function realPeersTier() {
  console.log(`\n== real peers tier: waiting for helm and both allocators at ${clock()}`);
  const realWait = await needPeers(["helm", "otel-allocator", "cloudwatch-target-allocator"], "the suites held to them");
  await vitestTier("real peers", ["real-peers", "differential"], "real peers tier");
  tiers.at(-1).waitedMs = realWait;
}

async function browserTier() {
  if (!built) {
    tiers.push({ tier: "browser", runner: "playwright", ms: 0, passed: 0, failed: 1, skipped: 0, note: "build failed" });
    return;
  }
  console.log(`\n== browser tier (playwright) at ${clock()}`);
  const pwWait = await needPeers(["oauth2-proxy"], "the embedding tests");
  const pwJson = path.join(artifacts, "playwright.json");
  fs.rmSync(pwJson, { force: true });
  const r = await run(bin("playwright"), ["test"], { extraEnv: { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson } });
  if (fs.existsSync(pwJson)) {
    const s = JSON.parse(fs.readFileSync(pwJson, "utf8")).stats ?? {};
    tiers.push({ tier: "browser", runner: "playwright", ms: r.ms, waitedMs: pwWait, passed: s.expected ?? 0, failed: (s.unexpected ?? 0) + (s.flaky ?? 0), skipped: s.skipped ?? 0, flaky: s.flaky ?? 0 });
  } else {
    tiers.push({ tier: "browser", runner: "playwright", ms: r.ms, passed: 0, failed: 1, skipped: 0, note: "no JSON report" });
  }
}

// On a new machine the allocators may still be compiling when the built tier ends: the browser tier (whose one Go peer,
// oauth2-proxy, is small) then runs first, in that wait, instead of after it.
const settled = (name) => Promise.race([peers[name].then(() => true), new Promise((r) => setTimeout(() => r(false), 0))]);
const allocatorsReady = (await Promise.all(["helm", "otel-allocator", "cloudwatch-target-allocator"].map(settled))).every(Boolean);
if (!allocatorsReady && (await settled("oauth2-proxy"))) {
  console.log("\nnpm test: the allocators are still compiling and oauth2-proxy is built: the browser tier runs first");
  await browserTier();
  await realPeersTier();
} else {
  await realPeersTier();
  await browserTier();
}

console.log(`\n== control plane tier: waiting for etcd, kube-apiserver and the two real allocators at ${clock()}`);
const cpWait = await needPeers(["kube-apiserver", "otel-allocator", "cloudwatch-target-allocator", "opentelemetry-operator", "cloudwatch-operator"], "the suites held to a real API server");
await vitestTier("control plane", ["control-plane"], "control plane tier");
tiers.at(-1).waitedMs = cpWait;

// a peer build nothing waited for (the build failed) is waited for here, and counts in the summary
const peerResults = await Promise.all(Object.values(peers));
const checksFailed = checks.some((c) => !c.ok);
const results = {
  suites: tiers.map(({ runner, passed, failed, skipped, note, flaky }) => ({ runner, passed, failed, skipped, ...(flaky ? { flaky } : {}), ...(note ? { note } : {}) })),
  tiers: tiers.map(({ tier, runner, ms, waitedMs }) => ({ tier, runner, seconds: Math.round(ms / 1000), waitedForPeersSeconds: Math.round((waitedMs ?? 0) / 1000) })),
  peers: peerResults.map(({ peer, path: p, built: b, seconds, missing: m }) => ({ peer, ...(m ? { missing: m } : { path: p, built: b, seconds }) })),
  passed: tiers.reduce((s, t) => s + t.passed, 0),
  failed: tiers.reduce((s, t) => s + t.failed, 0) + (checksFailed ? 1 : 0),
  skipped: tiers.reduce((s, t) => s + t.skipped, 0),
  checksFailed,
  seconds: Math.round((Date.now() - started) / 1000),
};
fs.writeFileSync(path.join(artifacts, "test-summary.json"), JSON.stringify(results, null, 2));

console.log("\nTiers (wall time; one after the other, the Go peers building beside them):");
const row = (name, ms, text) => console.log(`  ${name.padEnd(14)} ${mmss(ms).padStart(7)}  ${text}`);
row("checks", checksMs, checks.map((c) => `${c.label} ${c.ok ? "ok" : "FAILED"} (${mmss(c.ms)})`).join(", "));
const waited = (t) => (t.waitedMs > 1000 ? `, after waiting ${mmss(t.waitedMs)} for its peers` : "");
const tierRow = (t) => row(t.tier, t.ms, `${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped${t.note ? ` (${t.note})` : ""}${waited(t)}`);
tierRow(tiers.find((t) => t.tier === "unit"));
row("build", buildMs, built ? "ok" : "FAILED");
for (const t of tiers.filter((x) => x.tier !== "unit")) tierRow(t);
console.log(`  Go peers: ${peerResults.map((p) => `${p.peer} ${"missing" in p ? "missing" : p.built ? `built in ${p.seconds} s` : "cached"}`).join(", ")}`);
console.log(`  total ${mmss(Date.now() - started)}`);
if (checksFailed) console.log("lint or type check failed (counted as 1 failure)");
console.log(`${results.passed} passed, ${results.failed} failed${results.skipped ? `, ${results.skipped} skipped` : ""}`);
process.exit(results.failed ? 1 : 0);
