// Test peers that are built rather than installed: oauth2-proxy, from its Go module, for the browser test of embedding
// behind sign-in (e2e/tests/embed-auth.spec.ts). Built once with `go install` into a cache outside the repository
// (~/.cache/allocation-lens, or $ALLOCATION_LENS_CACHE) and reused; `npm test` calls ensureOauth2Proxy() before Playwright.
// Where Go or the build is missing the test is skipped with the reason, unless ALLOCATION_LENS_REQUIRE_PEERS=1 (CI), where
// it fails.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const OAUTH2_PROXY_MODULE = "github.com/oauth2-proxy/oauth2-proxy/v7";
export const OAUTH2_PROXY_VERSION = "v7.15.6";

export function peerCache() {
  return process.env.ALLOCATION_LENS_CACHE || path.join(os.homedir(), ".cache", "allocation-lens");
}

/** Where the binary is (or will be): $ALLOCATION_LENS_OAUTH2_PROXY, or the cache's versioned directory. */
export function oauth2ProxyPath() {
  return process.env.ALLOCATION_LENS_OAUTH2_PROXY || path.join(peerCache(), "bin", `oauth2-proxy-${OAUTH2_PROXY_VERSION}`, "oauth2-proxy");
}

export function requirePeers() {
  return process.env.ALLOCATION_LENS_REQUIRE_PEERS === "1";
}

export function findGo() {
  const candidates = [process.env.GO, "/usr/local/go/bin/go", ...(process.env.PATH ?? "").split(path.delimiter).filter(Boolean).map((d) => path.join(d, "go"))];
  return candidates.find((c) => c && fs.existsSync(c));
}

/**
 * The oauth2-proxy binary, built when absent. Returns { path, built, seconds } or { missing: reason }. The build prints
 * each package as it compiles (go install -v): about 2 minutes on 2 cores the first time, nothing afterwards.
 */
export function ensureOauth2Proxy({ log = (line) => console.log(line) } = {}) {
  const bin = oauth2ProxyPath();
  if (fs.existsSync(bin)) return { path: bin, built: false, seconds: 0 };
  if (process.env.ALLOCATION_LENS_OAUTH2_PROXY) return { missing: `ALLOCATION_LENS_OAUTH2_PROXY=${bin} does not exist` };
  const go = findGo();
  if (!go) return { missing: `Go is not installed (/usr/local/go/bin/go, or go on PATH): cannot build ${OAUTH2_PROXY_MODULE}@${OAUTH2_PROXY_VERSION}` };
  const gobin = path.dirname(bin);
  fs.mkdirSync(gobin, { recursive: true });
  log(`building ${OAUTH2_PROXY_MODULE}@${OAUTH2_PROXY_VERSION} with ${go} into ${gobin} (once, then cached; about 2 minutes on 2 cores)`);
  const started = Date.now();
  const r = spawnSync(go, ["install", "-v", `${OAUTH2_PROXY_MODULE}@${OAUTH2_PROXY_VERSION}`], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, GOBIN: gobin, GOFLAGS: "-buildvcs=false" },
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  if (r.status !== 0 || !fs.existsSync(bin)) return { missing: `go install ${OAUTH2_PROXY_MODULE}@${OAUTH2_PROXY_VERSION} failed (exit ${r.status ?? r.signal}) after ${seconds} s` };
  log(`built ${bin} in ${seconds} s`);
  return { path: bin, built: true, seconds };
}
