// Upstream's Target Allocator (otel-allocator), built from its Go module into a cache outside the repository
// (~/.cache/allocation-lens, or $ALLOCATION_LENS_CACHE), once, then reused: for the demo's `--ta real` and for the suites
// held to the real allocator (`npm test` builds it before vitest, through scripts/peers.mjs). It cannot be `go install`ed
// here: the module proxy refuses the module's version list, which `go install` reads for deprecation notices. So the pinned
// version's module is downloaded and built inside a writable copy of it with `go build`, its own go.mod and go.sum pinning
// every dependency (docs/faithfulness.md, "Which allocator"). Plain JavaScript, so that plain `node` scripts can import it.
// Also the helpers every Go-built test peer shares: the cache, finding Go, and whether a missing peer is a failure.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The cache of built test peers: $ALLOCATION_LENS_CACHE, or ~/.cache/allocation-lens. */
export function peerCache() {
  return process.env.ALLOCATION_LENS_CACHE || path.join(os.homedir(), ".cache", "allocation-lens");
}

/** Whether a missing or failing peer fails its tests (ALLOCATION_LENS_REQUIRE_PEERS=1, as CI sets it) instead of skipping them. */
export function requirePeers() {
  return process.env.ALLOCATION_LENS_REQUIRE_PEERS === "1";
}

/** The go command: $GO, /usr/local/go/bin/go, or go on PATH; undefined when there is none. */
export function findGo() {
  const candidates = [process.env.GO, "/usr/local/go/bin/go", ...(process.env.PATH ?? "").split(path.delimiter).filter(Boolean).map((d) => path.join(d, "go"))];
  return candidates.find((c) => c && fs.existsSync(c));
}

export const REAL_TA_MODULE = "github.com/open-telemetry/opentelemetry-operator";
export const REAL_TA_VERSION = "v0.140.0";
/** the oldest Go that builds REAL_TA_VERSION (its go.mod says go 1.24.0) */
const REAL_TA_GO = [1, 24];

/** `go version` as [major, minor], or undefined */
function goVersion(go) {
  const r = spawnSync(go, ["version"], { encoding: "utf8" });
  const m = /go(\d+)\.(\d+)/.exec(r.stdout ?? "");
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** Where upstream's otel-allocator binary is (or will be): $ALLOCATION_LENS_REAL_TA, or the cache's versioned directory. */
export const realTaPath = () => process.env.ALLOCATION_LENS_REAL_TA || path.join(peerCache(), "bin", `otel-allocator-${REAL_TA_VERSION}`, "otel-allocator");

/**
 * Upstream's Target Allocator, built when absent (about 4 to 5 minutes on 2 cores the first time, nothing afterwards):
 * `go mod download` of the pinned module version, then `go build ./cmd/otel-allocator` in a writable copy of it, so that
 * its own go.mod and go.sum pin every dependency. Returns { path, built, seconds, version } or { missing: reason }.
 */
export function ensureRealTa({ log = (line) => console.log(line) } = {}) {
  const bin = realTaPath();
  if (fs.existsSync(bin)) return { path: bin, built: false, seconds: 0, version: REAL_TA_VERSION };
  if (process.env.ALLOCATION_LENS_REAL_TA) return { missing: `ALLOCATION_LENS_REAL_TA=${bin} does not exist` };
  const go = findGo();
  const need = `Go ${REAL_TA_GO.join(".")} or newer (https://go.dev/doc/install, or Debian's golang package where it is new enough)`;
  if (!go) return { missing: `Go is not installed: building upstream's Target Allocator needs ${need}` };
  const v = goVersion(go);
  if (!v || v[0] < REAL_TA_GO[0] || (v[0] === REAL_TA_GO[0] && v[1] < REAL_TA_GO[1])) {
    return { missing: `${go} is Go ${v ? v.join(".") : "of an unknown version"}: building upstream's Target Allocator needs ${need}` };
  }
  const started = Date.now();
  const env = { ...process.env, GOFLAGS: "-buildvcs=false" };
  log(`building ${REAL_TA_MODULE}/cmd/otel-allocator@${REAL_TA_VERSION} with ${go} into ${path.dirname(bin)} (once, then cached; about 5 minutes on 2 cores)`);
  log(`  downloading the module ${REAL_TA_MODULE}@${REAL_TA_VERSION}`);
  const dl = spawnSync(go, ["mod", "download", "-json", `${REAL_TA_MODULE}@${REAL_TA_VERSION}`], { encoding: "utf8", env, maxBuffer: 1 << 20 });
  let dir;
  try {
    dir = JSON.parse(dl.stdout).Dir;
  } catch {
    /* reported below */
  }
  if (dl.status !== 0 || !dir) {
    const why = (dl.stdout || dl.stderr || "").split("\n").find((l) => /error|forbidden|not found/i.test(l)) ?? `exit ${dl.status}`;
    return { missing: `go mod download ${REAL_TA_MODULE}@${REAL_TA_VERSION} failed: ${why.trim().slice(0, 300)}` };
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-real-ta-"));
  try {
    fs.cpSync(dir, work, { recursive: true });
    spawnSync("chmod", ["-R", "u+w", work]);
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    log(`  compiling in ${work} (go build -v prints each package as it compiles)`);
    const tmpBin = `${bin}.partial-${process.pid}`;
    const r = spawnSync(go, ["build", "-v", "-trimpath", "-o", tmpBin, "./cmd/otel-allocator"], { cwd: work, stdio: ["ignore", "inherit", "inherit"], env });
    const seconds = Math.round((Date.now() - started) / 1000);
    if (r.status !== 0 || !fs.existsSync(tmpBin)) return { missing: `go build of ${REAL_TA_MODULE}/cmd/otel-allocator@${REAL_TA_VERSION} failed (exit ${r.status ?? r.signal}) after ${seconds} s` };
    fs.renameSync(tmpBin, bin);
    log(`built ${bin} in ${seconds} s`);
    return { path: bin, built: true, seconds, version: REAL_TA_VERSION };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

