// Upstream's Target Allocator (otel-allocator), built from its Go module into a cache outside the repository
// (~/.cache/allocation-lens, or $ALLOCATION_LENS_CACHE), once, then reused: for the demo's `--ta real` and for the suites
// held to the real allocator (`npm test` builds it before the real peers tier, through scripts/peers.mjs). It cannot be `go install`ed
// here: the module proxy refuses the module's version list, which `go install` reads for deprecation notices. So the pinned
// version's module is downloaded and built inside a writable copy of it with `go build`, its own go.mod and go.sum pinning
// every dependency (docs/faithfulness.md, "Which allocator"). Plain JavaScript, so that plain `node` scripts can import it.
// Also the CloudWatch fork's Target Allocator, built from its source at one pinned commit (no module proxy serves it), and
// the helpers every Go-built test peer shares: the cache, finding Go, and whether a missing peer is a failure.
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
  const old = goTooOld(go, REAL_TA_GO);
  if (old) return { missing: `${go} is Go ${old}: building upstream's Target Allocator needs ${need}` };
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


export const CLOUDWATCH_TA_REPOSITORY = "https://github.com/aws/amazon-cloudwatch-agent-operator";
/** The pinned commit of the CloudWatch fork (the per-node allocation and scraper-role routing, before the readiness fix). */
export const CLOUDWATCH_TA_COMMIT = "d0967be75eb9b6e260b3f92816e84e4df8bfdb7b";
/** Its go.mod says go 1.26.4. */
const CLOUDWATCH_TA_GO = [1, 26];
const CLOUDWATCH_TA_PACKAGE = "./cmd/amazon-cloudwatch-agent-target-allocator";
const CLOUDWATCH_TA_BINARY = "amazon-cloudwatch-agent-target-allocator";
/** The pull request head the commit is on: a shallow fetch of the commit id itself is tried first. */
const CLOUDWATCH_TA_REF = "refs/pull/399/head";

/** Where the fork's allocator binary is (or will be): $ALLOCATION_LENS_CLOUDWATCH_TA, or the cache's versioned directory. */
export const cloudwatchTaPath = () =>
  process.env.ALLOCATION_LENS_CLOUDWATCH_TA || path.join(peerCache(), "bin", `cloudwatch-target-allocator-${CLOUDWATCH_TA_COMMIT.slice(0, 7)}`, CLOUDWATCH_TA_BINARY);

const goTooOld = (go, need) => {
  const v = goVersion(go);
  return !v || v[0] < need[0] || (v[0] === need[0] && v[1] < need[1]) ? (v ? v.join(".") : "of an unknown version") : null;
};

/** The module root inside `dir` (the directory holding go.mod; an unpacked archive has one top directory). */
function moduleRoot(dir) {
  if (fs.existsSync(path.join(dir, "go.mod"))) return dir;
  const entries = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory());
  if (entries.length === 1 && fs.existsSync(path.join(dir, entries[0].name, "go.mod"))) return path.join(dir, entries[0].name);
  return undefined;
}

/**
 * The fork's source at the pinned commit, copied into `work`: from $ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE (a directory or a
 * `.tar.gz` made by `git archive`, whose embedded commit id must be the pinned one), else fetched from the public
 * repository with git and checked against the commit id. Returns the module root or { missing }.
 */
function cloudwatchTaSource(work, log) {
  const given = process.env.ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE;
  const src = path.join(work, "src");
  fs.mkdirSync(src, { recursive: true });
  if (given) {
    if (!fs.existsSync(given)) return { missing: `ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE=${given} does not exist` };
    if (fs.statSync(given).isDirectory()) {
      const head = spawnSync("git", ["-C", given, "rev-parse", "HEAD"], { encoding: "utf8" });
      if (head.status === 0 && head.stdout.trim() !== CLOUDWATCH_TA_COMMIT) {
        return { missing: `ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE=${given} is a checkout of ${head.stdout.trim().slice(0, 12)}, not the pinned commit ${CLOUDWATCH_TA_COMMIT}` };
      }
      log(`  copying the source from ${given}`);
      fs.cpSync(given, src, { recursive: true, filter: (p) => path.basename(p) !== ".git" });
    } else {
      const id = spawnSync("sh", ["-c", 'gzip -dc "$1" | git get-tar-commit-id', "sh", given], { encoding: "utf8" });
      if (id.status === 0 && id.stdout.trim() && id.stdout.trim() !== CLOUDWATCH_TA_COMMIT) {
        return { missing: `ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE=${given} is an archive of ${id.stdout.trim().slice(0, 12)}, not the pinned commit ${CLOUDWATCH_TA_COMMIT}` };
      }
      log(`  unpacking ${given}${id.stdout.trim() ? ` (commit ${id.stdout.trim()})` : ""}`);
      const tar = spawnSync("tar", ["-xzf", given, "-C", src], { encoding: "utf8" });
      if (tar.status !== 0) return { missing: `could not unpack ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE=${given}: ${(tar.stderr || "").trim().slice(0, 200)}` };
    }
  } else {
    log(`  fetching ${CLOUDWATCH_TA_COMMIT} from ${CLOUDWATCH_TA_REPOSITORY} (set ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE to a checkout or archive of it instead)`);
    const git = (...args) => spawnSync("git", ["-C", src, ...args], { encoding: "utf8", env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } });
    if (git("init", "-q").status !== 0) return { missing: "git is not installed: cannot fetch the CloudWatch fork's source (or set ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE)" };
    let fetched = git("fetch", "-q", "--depth", "1", CLOUDWATCH_TA_REPOSITORY, CLOUDWATCH_TA_COMMIT);
    if (fetched.status !== 0) fetched = git("fetch", "-q", "--depth", "50", CLOUDWATCH_TA_REPOSITORY, CLOUDWATCH_TA_REF);
    if (fetched.status !== 0) {
      return { missing: `could not fetch ${CLOUDWATCH_TA_REPOSITORY} (${(fetched.stderr || "").trim().split("\n").pop()?.slice(0, 200)}): set ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE to a checkout or a git-archive .tar.gz of commit ${CLOUDWATCH_TA_COMMIT}` };
    }
    if (git("checkout", "-q", CLOUDWATCH_TA_COMMIT).status !== 0) return { missing: `${CLOUDWATCH_TA_REPOSITORY}: commit ${CLOUDWATCH_TA_COMMIT} is not in what was fetched` };
    const head = git("rev-parse", "HEAD").stdout.trim();
    if (head !== CLOUDWATCH_TA_COMMIT) return { missing: `${CLOUDWATCH_TA_REPOSITORY}: fetched ${head}, not ${CLOUDWATCH_TA_COMMIT}` };
  }
  const root = moduleRoot(src);
  return root ? { root } : { missing: `no go.mod in the CloudWatch fork's source (${given ?? CLOUDWATCH_TA_REPOSITORY})` };
}

/**
 * The CloudWatch fork's Target Allocator, built when absent (about 5 minutes on 2 cores the first time, nothing
 * afterwards): its source at the pinned commit (cloudwatchTaSource), then `go build ./cmd/amazon-cloudwatch-agent-target-allocator`
 * inside it, every dependency from the module proxy as its go.mod and go.sum pin them. Returns { path, built, seconds,
 * version } (version: the commit) or { missing: reason }.
 */
export function ensureCloudwatchTa({ log = (line) => console.log(line) } = {}) {
  const bin = cloudwatchTaPath();
  if (fs.existsSync(bin)) return { path: bin, built: false, seconds: 0, version: CLOUDWATCH_TA_COMMIT };
  if (process.env.ALLOCATION_LENS_CLOUDWATCH_TA) return { missing: `ALLOCATION_LENS_CLOUDWATCH_TA=${bin} does not exist` };
  const go = findGo();
  const need = `Go ${CLOUDWATCH_TA_GO.join(".")} or newer (https://go.dev/doc/install)`;
  const how = `and its source: ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE (a checkout or archive of ${CLOUDWATCH_TA_REPOSITORY} at ${CLOUDWATCH_TA_COMMIT.slice(0, 7)}) or network access to that repository`;
  if (!go) return { missing: `Go is not installed: building the CloudWatch fork's Target Allocator needs ${need} ${how}` };
  const old = goTooOld(go, CLOUDWATCH_TA_GO);
  if (old) return { missing: `${go} is Go ${old}: building the CloudWatch fork's Target Allocator needs ${need} ${how}` };
  const started = Date.now();
  log(`building the CloudWatch fork's Target Allocator (${CLOUDWATCH_TA_COMMIT.slice(0, 7)}) with ${go} into ${path.dirname(bin)} (once, then cached; about 5 minutes on 2 cores)`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-cloudwatch-ta-"));
  try {
    const source = cloudwatchTaSource(work, log);
    if ("missing" in source) return source;
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    log(`  compiling in ${source.root} (go build -v prints each package as it compiles)`);
    const tmpBin = `${bin}.partial-${process.pid}`;
    const env = { ...process.env, GOFLAGS: "-mod=mod -buildvcs=false" };
    const r = spawnSync(go, ["build", "-v", "-trimpath", "-o", tmpBin, CLOUDWATCH_TA_PACKAGE], { cwd: source.root, stdio: ["ignore", "inherit", "inherit"], env });
    const seconds = Math.round((Date.now() - started) / 1000);
    if (r.status !== 0 || !fs.existsSync(tmpBin)) return { missing: `go build of the CloudWatch fork's Target Allocator failed (exit ${r.status ?? r.signal}) after ${seconds} s` };
    fs.renameSync(tmpBin, bin);
    log(`built ${bin} in ${seconds} s`);
    return { path: bin, built: true, seconds, version: CLOUDWATCH_TA_COMMIT };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
