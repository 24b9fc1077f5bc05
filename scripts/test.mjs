#!/usr/bin/env node
// `npm test`: every test. Installs the Debian test peers it needs when run as root (chromium for e2e, prometheus for the
// real-client integration test), or stops with a message naming the package; builds helm (for the Helm chart's tests, before
// vitest), upstream's Target Allocator and the CloudWatch fork's (for the suites held to the real allocators, before
// vitest) and oauth2-proxy (for the
// browser test of embedding behind sign-in) once each with Go (cached, scripts/peers.mjs).
// Runs lint and type checks, the unit and integration tests (vitest), builds the app and runs the browser tests
// (Playwright), then prints `N passed, N failed` computed from the runners' own JSON reports (also written to
// artifacts/test-summary.json).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureCloudwatchTa, ensureHelm, ensureOauth2Proxy, ensureRealTa, requirePeers } from "./peers.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const artifacts = path.join(root, "artifacts");
fs.mkdirSync(artifacts, { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", FORCE_COLOR: "0" };
const bin = (name) => path.join(root, "node_modules", ".bin", name);

const PEERS = [
  { cmd: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", pkg: "chromium", why: "the Playwright browser tests" },
  { cmd: "/usr/bin/prometheus", pkg: "prometheus", why: "the test with a real Prometheus as HTTP-SD client" },
  { cmd: ["/usr/bin/kubectl", "/usr/local/bin/kubectl"], pkg: "kubernetes-client", why: "the tests with a real kubectl and the rendering of deploy/" },
];
const missing = PEERS.filter((p) => ![p.cmd].flat().some((c) => fs.existsSync(c)));
if (missing.length) {
  const pkgs = missing.map((p) => p.pkg);
  if (process.getuid?.() === 0) {
    console.log(`npm test: installing Debian packages ${pkgs.join(", ")}...`);
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

const run = (label, cmd, args, extraEnv = {}) => {
  console.log(`\n== ${label}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...env, ...extraEnv } });
  return r.status ?? 1;
};

const results = { suites: [], passed: 0, failed: 0, skipped: 0 };
let failedStep = false;

if (run("lint", bin("eslint"), [".", "--max-warnings=0"]) !== 0) failedStep = true;
if (run("type check", bin("tsc"), ["--noEmit", "-p", "."]) !== 0) failedStep = true;

// The standalone-server test builds its own copy of the app (about 1.4 GiB at peak): it runs alone, after the main build.
const STANDALONE_TEST = "server/security/standalone.test.ts";
// The replicas test runs two built servers (.next/allocation-lens-server.mjs): after the build too.
const REPLICAS_TEST = "server/lease/replicas.test.ts";
// The alerts' browser tests open each alert's dashboard_url in the built server (.next/allocation-lens-server.mjs): after the
// build too, one after the other (the ring's runs a demo of about a thousand nodes).
const ALERTS_BROWSER_TESTS = ["server/acceptance/alerts-browser.test.ts", "server/acceptance/alerts-ring.test.ts", "server/acceptance/alerts-locality.test.ts", "server/acceptance/alerts-upstream.test.ts"];

function vitest(label, name, args) {
  const file = path.join(artifacts, `${name}.json`);
  fs.rmSync(file, { force: true });
  run(label, bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${file}`, ...args]);
  if (!fs.existsSync(file)) return { runner: name, passed: 0, failed: 1, skipped: 0, note: "no JSON report" };
  const v = JSON.parse(fs.readFileSync(file, "utf8"));
  // A file that fails outside its tests (load error, beforeAll) has no failed test of its own: count it as a failure.
  const brokenFiles = (v.testResults ?? []).filter((f) => f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed")).length;
  return { runner: name, passed: v.numPassedTests, failed: v.numFailedTests + brokenFiles, skipped: v.numPendingTests + (v.numTodoTests ?? 0) };
}

/** A Go-built test peer: built once (cached), or the reason it is missing and what that means for its tests. */
function goPeer(label, ensure, what) {
  console.log(`\n== test peer: ${label}`);
  const peer = ensure();
  if ("missing" in peer) console.log(`npm test: ${peer.missing}: ${what} ${requirePeers() ? "fail (ALLOCATION_LENS_REQUIRE_PEERS=1)" : "are skipped"}`);
  else console.log(`${label}: ${peer.path}${peer.built ? ` (built in ${peer.seconds} s)` : " (cached)"}`);
}

// helm for the Helm chart's tests (server/security/helm.test.ts), which vitest runs: built once from its Go module
goPeer("helm", ensureHelm, "the Helm chart's tests");
// upstream's Target Allocator for the suites held to the real allocator (test-support/real-ta.ts): built once from its module
goPeer("otel-allocator", ensureRealTa, "the tests against the real Target Allocator");
// the CloudWatch fork's Target Allocator for the suites held to it: built once from its source (ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE or a fetch)
goPeer("cloudwatch-target-allocator", ensureCloudwatchTa, "the tests against the CloudWatch fork's Target Allocator");

results.suites.push(vitest("unit and integration tests (vitest)", "vitest", ["--exclude", STANDALONE_TEST, "--exclude", REPLICAS_TEST, ...ALERTS_BROWSER_TESTS.flatMap((t) => ["--exclude", t])]));

// `npm run build`: the app, then the server entry and the poll worker bundled beside it (the replicas test runs them)
const built = () =>
  run("build", process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"]) === 0 &&
  run("bundle the server entry", process.execPath, [path.join(root, "scripts", "build-server.mjs")]) === 0;
if (!built()) {
  results.suites.push({ runner: "playwright", passed: 0, failed: 1, skipped: 0, note: "build failed" });
} else {
  results.suites.push(vitest("standalone server test (vitest)", "vitest-standalone", [STANDALONE_TEST]));
  results.suites.push(vitest("two replicas on one Lease (vitest, the built server)", "vitest-replicas", [REPLICAS_TEST]));
  results.suites.push(vitest("alerts: dashboard_url in Chromium (vitest, the built server)", "vitest-alerts-browser", ["--no-file-parallelism", ...ALERTS_BROWSER_TESTS]));
  // oauth2-proxy for the embedding-behind-sign-in browser test: built once from its Go module, then cached
  goPeer("oauth2-proxy", ensureOauth2Proxy, "the embedding tests");
  const pwJson = path.join(artifacts, "playwright.json");
  fs.rmSync(pwJson, { force: true });
  run("browser tests (playwright)", bin("playwright"), ["test"], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson });
  if (fs.existsSync(pwJson)) {
    const s = JSON.parse(fs.readFileSync(pwJson, "utf8")).stats ?? {};
    results.suites.push({ runner: "playwright", passed: s.expected ?? 0, failed: (s.unexpected ?? 0) + (s.flaky ?? 0), skipped: s.skipped ?? 0, flaky: s.flaky ?? 0 });
  } else {
    results.suites.push({ runner: "playwright", passed: 0, failed: 1, skipped: 0, note: "no JSON report" });
  }
}

for (const s of results.suites) {
  results.passed += s.passed;
  results.failed += s.failed;
  results.skipped += s.skipped;
}
if (failedStep) results.failed += 1;
results.checksFailed = failedStep;
fs.writeFileSync(path.join(artifacts, "test-summary.json"), JSON.stringify(results, null, 2));
console.log("");
for (const s of results.suites) console.log(`${s.runner}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped${s.note ? ` (${s.note})` : ""}`);
if (failedStep) console.log("lint or type check failed (counted as 1 failure)");
console.log(`${results.passed} passed, ${results.failed} failed${results.skipped ? `, ${results.skipped} skipped` : ""}`);
process.exit(results.failed ? 1 : 0);
