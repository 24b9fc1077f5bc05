// What every Go-built test peer shares: the cache its binaries live in, finding Go and its version, whether a missing peer
// is a failure, the compiler flags, and building a package of a module version inside a writable copy of that module.
// Plain JavaScript, so that plain `node` scripts can import it.
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

/** `go version` as [major, minor], or undefined */
function goVersion(go) {
  const r = spawnSync(go, ["version"], { encoding: "utf8" });
  const m = /go(\d+)\.(\d+)/.exec(r.stdout ?? "");
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** null when `go` is at least `need` ([major, minor]); else its version (or "of an unknown version"). */
export function goTooOld(go, need) {
  const v = goVersion(go);
  return !v || v[0] < need[0] || (v[0] === need[0] && v[1] < need[1]) ? (v ? v.join(".") : "of an unknown version") : null;
}

/**
 * The flags of every peer build: no build paths in the binary, and no debug information. Nobody debugs a test peer, and
 * leaving out DWARF (compiler) and the symbol table (linker) saves compile and link time on the largest builds.
 */
export const GO_BUILD_FLAGS = ["-trimpath", "-gcflags=all=-dwarf=false"];
export const GO_LINK_FLAGS = "-s -w";

/** The env of a build: no VCS stamping, `goflags` added; `local` keeps the machine's Go (a toolchain line fetches none). */
export function goEnv(goflags = "", { local = false } = {}) {
  return { ...process.env, GOFLAGS: `${goflags} -buildvcs=false`.trim(), ...(local ? { GOTOOLCHAIN: "local" } : {}) };
}

/** `go mod download` of one module version: { dir } or { missing }. */
export function download(go, mod, version, log, env = goEnv()) {
  log(`  downloading the module ${mod}@${version}`);
  const dl = spawnSync(go, ["mod", "download", "-json", `${mod}@${version}`], { encoding: "utf8", env, maxBuffer: 1 << 20 });
  let dir;
  try {
    dir = JSON.parse(dl.stdout).Dir;
  } catch {
    /* reported below */
  }
  if (dl.status !== 0 || !dir) {
    const why = (dl.stdout || dl.stderr || "").split("\n").find((l) => /error|forbidden|not found/i.test(l)) ?? `exit ${dl.status}`;
    return { missing: `go mod download ${mod}@${version} failed: ${why.trim().slice(0, 300)}` };
  }
  return { dir };
}

/**
 * `go build` of `pkg` in `cwd` into `bin` (through a partial file renamed at the end), with GO_BUILD_FLAGS and the link
 * flags; logs and returns { path, built, seconds } or { missing } naming `what`. `started` is when the build began.
 */
export function goBuild(go, { cwd, pkg, bin, env, ldflags = GO_LINK_FLAGS, what, started, log }) {
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  log(`  compiling in ${cwd} (go build -v prints each package as it compiles)`);
  const tmpBin = `${bin}.partial-${process.pid}`;
  const r = spawnSync(go, ["build", "-v", ...GO_BUILD_FLAGS, "-ldflags", ldflags, "-o", tmpBin, pkg], { cwd, stdio: ["ignore", "inherit", "inherit"], env });
  const seconds = Math.round((Date.now() - started) / 1000);
  if (r.status !== 0 || !fs.existsSync(tmpBin)) return { missing: `go build of ${what} failed (exit ${r.status ?? r.signal}) after ${seconds} s` };
  fs.renameSync(tmpBin, bin);
  log(`built ${bin} in ${seconds} s`);
  return { path: bin, built: true, seconds };
}

/**
 * Builds `pkg` of module `mod@version` into `bin` inside a writable copy of the module, after `prepare(copy)` edits it
 * (optional). `env` is the build's (goEnv). Returns { path, built, seconds, version } or { missing }.
 */
export function buildInCopy({ name, mod, version, pkg, bin, about, prepare, ldflags, env, log }) {
  if (fs.existsSync(bin)) return { path: bin, built: false, seconds: 0, version };
  const go = findGo();
  if (!go) return { missing: `Go is not installed (/usr/local/go/bin/go, or go on PATH): cannot build ${name} from ${mod}@${version}` };
  const started = Date.now();
  log(`building ${name} from ${mod}@${version} with ${go} into ${path.dirname(bin)} (once, then cached; ${about})`);
  const source = download(go, mod, version, log, env);
  if ("missing" in source) return source;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `allocation-lens-${name}-`));
  try {
    fs.cpSync(source.dir, work, { recursive: true });
    spawnSync("chmod", ["-R", "u+w", work]);
    const prepared = prepare?.(work, go);
    if (prepared?.missing) return prepared;
    const built = goBuild(go, { cwd: work, pkg, bin, env, ldflags, what: `${name} (${mod}@${version})`, started, log });
    return "missing" in built ? built : { ...built, version };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
