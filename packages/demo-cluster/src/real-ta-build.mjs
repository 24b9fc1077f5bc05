// Upstream's Target Allocator (otel-allocator), built from its Go module into a cache outside the repository
// (~/.cache/allocation-lens, or $ALLOCATION_LENS_CACHE), once, then reused: for the demo's `--ta real` and for the suites
// held to the real allocator (`npm test` builds it before the real peers tier, through scripts/peers.mjs). It cannot be `go install`ed
// here: the module proxy refuses the module's version list, which `go install` reads for deprecation notices. So the pinned
// version's module is downloaded and built inside a writable copy of it with `go build`, its own go.mod and go.sum pinning
// every dependency (docs/faithfulness.md, "Which allocator"). Plain JavaScript, so that plain `node` scripts can import it.
// Also the CloudWatch fork's Target Allocator, built from its source at one pinned commit (no module proxy serves it). What
// every Go-built peer shares (the cache, finding Go, the flags) is in go-build.mjs, re-exported here for the scripts.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildInCopy, findGo, goBuild, goEnv, goTooOld, peerCache } from "./go-build.mjs";

export { findGo, GO_BUILD_FLAGS, GO_LINK_FLAGS, goEnv, peerCache, requirePeers } from "./go-build.mjs";

export const REAL_TA_MODULE = "github.com/open-telemetry/opentelemetry-operator";
export const REAL_TA_VERSION = "v0.140.0";
/** the oldest Go that builds REAL_TA_VERSION (its go.mod says go 1.24.0) */
const REAL_TA_GO = [1, 24];

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
  return buildInCopy({
    name: "otel-allocator",
    mod: REAL_TA_MODULE,
    version: REAL_TA_VERSION,
    pkg: "./cmd/otel-allocator",
    bin,
    about: "about 5 minutes on 2 cores",
    env: goEnv(),
    log,
  });
}

/** Where upstream's operator (the OpenTelemetry Operator's manager) is built, with its CRDs and ClusterRole beside it. */
export const otelOperatorDir = () => path.join(peerCache(), "bin", `opentelemetry-operator-${REAL_TA_VERSION}`);

/**
 * Upstream's OpenTelemetry Operator from the same module version as its allocator (`go build .` in a writable copy: the
 * module's root package is the manager), built when absent. The module's CRDs (config/crd/bases) and the manager's
 * ClusterRole (config/rbac/role.yaml) are copied beside the binary, for a test to install and grant. The allocator's
 * build before it leaves most of the shared dependencies compiled. Returns { path, built, seconds, version, crds, role }
 * or { missing }.
 */
export function ensureOtelOperator({ log = (line) => console.log(line) } = {}) {
  const dir = otelOperatorDir();
  const built = buildInCopy({
    name: "opentelemetry-operator",
    mod: REAL_TA_MODULE,
    version: REAL_TA_VERSION,
    pkg: ".",
    bin: path.join(dir, "manager"),
    about: "about 3 minutes on 2 cores after the allocator",
    env: goEnv(),
    log,
    prepare: (work) => copyOperatorFiles(work, dir),
  });
  return "missing" in built ? built : { ...built, ...operatorFiles(dir) };
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
  return buildFromFork({ what: "the CloudWatch fork's Target Allocator", pkg: CLOUDWATCH_TA_PACKAGE, bin, about: "about 5 minutes on 2 cores", log });
}

/** Where the CloudWatch agent operator (the fork's manager) is built, with its CRDs and ClusterRole beside it. */
export const cloudwatchOperatorDir = () => path.join(peerCache(), "bin", `cloudwatch-operator-${CLOUDWATCH_TA_COMMIT.slice(0, 7)}`);

/**
 * The CloudWatch agent operator from the same source as the fork's allocator (`go build .`: the module's root package is
 * the manager), built when absent; its CRDs (config/crd/bases) and ClusterRole (config/rbac/role.yaml) are copied beside
 * it. Returns { path, built, seconds, version, crds, role } or { missing }.
 */
export function ensureCloudwatchOperator({ log = (line) => console.log(line) } = {}) {
  const dir = cloudwatchOperatorDir();
  const bin = path.join(dir, "manager");
  const built = fs.existsSync(bin)
    ? { path: bin, built: false, seconds: 0 }
    : buildFromFork({ what: "the CloudWatch agent operator", pkg: ".", bin, about: "about 3 minutes on 2 cores after the allocator", log, prepare: (root) => copyOperatorFiles(root, dir) });
  return "missing" in built ? built : { ...built, version: CLOUDWATCH_TA_COMMIT, ...operatorFiles(dir) };
}

/** An operator module's CRDs and its manager's ClusterRole, copied into `dir` (crds/, role.yaml); { missing } when absent. */
function copyOperatorFiles(root, dir) {
  const crds = path.join(root, "config", "crd", "bases");
  const role = path.join(root, "config", "rbac", "role.yaml");
  if (!fs.existsSync(crds) || !fs.existsSync(role)) return { missing: `no config/crd/bases or config/rbac/role.yaml in ${root}` };
  fs.mkdirSync(path.join(dir, "crds"), { recursive: true });
  for (const f of fs.readdirSync(crds).filter((x) => x.endsWith(".yaml"))) fs.copyFileSync(path.join(crds, f), path.join(dir, "crds", f));
  fs.copyFileSync(role, path.join(dir, "role.yaml"));
  return undefined;
}

/** The files copyOperatorFiles put in `dir` (whether they are there or not). */
export function operatorFiles(dir) {
  const crds = path.join(dir, "crds");
  return { crds: fs.existsSync(crds) ? fs.readdirSync(crds).map((f) => path.join(crds, f)) : [], role: path.join(dir, "role.yaml") };
}

/** `pkg` of the fork's source at the pinned commit, built into `bin` after `prepare(root)`: { path, built, seconds } or { missing }. */
function buildFromFork({ what, pkg, bin, about, log, prepare }) {
  const go = findGo();
  const need = `Go ${CLOUDWATCH_TA_GO.join(".")} or newer (https://go.dev/doc/install)`;
  const how = `and its source: ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE (a checkout or archive of ${CLOUDWATCH_TA_REPOSITORY} at ${CLOUDWATCH_TA_COMMIT.slice(0, 7)}) or network access to that repository`;
  if (!go) return { missing: `Go is not installed: building ${what} needs ${need} ${how}` };
  const old = goTooOld(go, CLOUDWATCH_TA_GO);
  if (old) return { missing: `${go} is Go ${old}: building ${what} needs ${need} ${how}` };
  const started = Date.now();
  log(`building ${what} (${CLOUDWATCH_TA_COMMIT.slice(0, 7)}) with ${go} into ${path.dirname(bin)} (once, then cached; ${about})`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-cloudwatch-"));
  try {
    const source = cloudwatchTaSource(work, log);
    if ("missing" in source) return source;
    const prepared = prepare?.(source.root);
    if (prepared?.missing) return prepared;
    return goBuild(go, { cwd: source.root, pkg, bin, env: goEnv("-mod=mod"), what, started, log });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
