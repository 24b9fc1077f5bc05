// Test peers that are built rather than installed, each from its Go module with `go install` into a cache outside the
// repository (~/.cache/allocation-lens, or $ALLOCATION_LENS_CACHE), once, then reused. `npm test` builds all of them at its
// start, in the background (`node scripts/build-peers.mjs <name>`, one process each), and waits for one only before the tier
// that needs it:
// - oauth2-proxy, for the browser test of embedding behind sign-in (e2e/tests/embed-auth.spec.ts): the browser tier;
// - helm, for the Helm chart's tests (test/real-peers/helm.test.ts): the real peers tier;
// - upstream's Target Allocator (otel-allocator), for the demo's `--ta real` and the suites held to the real allocator:
//   the real peers tier. It cannot be `go install`ed here (the module proxy refuses the module's version list, which
//   `go install` reads for deprecation notices), so the pinned version's module is downloaded and built inside a copy of
//   it with `go build` (docs/faithfulness.md, "Which allocator");
// - etcd and kube-apiserver (with prometheus-operator's CRDs), for the demo's `--kube real` and the suites held to a real
//   API server: the control plane tier. Both are built inside writable copies of their modules, whose replaces point at
//   the published modules (packages/demo-cluster/src/kube-real-build.mjs);
// - the CloudWatch fork's Target Allocator, for the demo's `--flavor cloudwatch --ta real` and the suites held to it: the
//   real peers tier. No module proxy serves it: its source at the pinned commit comes from
//   $ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE (a checkout or a git-archive .tar.gz) or from a fetch of the public repository,
//   checked against the commit id;
// - the two operators, upstream's OpenTelemetry Operator (from the allocator's module) and the CloudWatch agent operator
//   (from the fork's source), each with its CRDs and ClusterRole, for the suites that run them against the real API
//   server: the control plane tier. Each starts when its allocator is built, whose compiled dependencies it shares.
// Where Go or the build is missing the tests are skipped with the reason, unless ALLOCATION_LENS_REQUIRE_PEERS=1 (CI), where
// they fail.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ensureCloudwatchOperator, ensureCloudwatchTa, ensureOtelOperator, ensureRealTa, findGo, GO_BUILD_FLAGS, GO_LINK_FLAGS, goEnv, peerCache, requirePeers } from "@allocation-lens/demo-cluster/real-ta-build";

export { findGo, peerCache, requirePeers };
// upstream's Target Allocator is the demo cluster's peer: its build lives in the demo's package
export { REAL_TA_MODULE, REAL_TA_VERSION, ensureRealTa, realTaPath } from "@allocation-lens/demo-cluster/real-ta-build";
// the CloudWatch fork's Target Allocator, built from its source at a pinned commit, likewise
export { CLOUDWATCH_TA_COMMIT, cloudwatchTaPath, ensureCloudwatchTa } from "@allocation-lens/demo-cluster/real-ta-build";
// a real control plane for the demo's `--kube real`: etcd, kube-apiserver and the monitoring CRDs, likewise
export { KUBERNETES_VERSION, ETCD_VERSION, ensureKubeReal } from "@allocation-lens/demo-cluster/kube-real-build";
import { ensureKubeReal } from "@allocation-lens/demo-cluster/kube-real-build";

export const OAUTH2_PROXY_MODULE = "github.com/oauth2-proxy/oauth2-proxy/v7";
export const OAUTH2_PROXY_VERSION = "v7.15.6";
export const HELM_MODULE = "helm.sh/helm/v3";
export const HELM_VERSION = "v3.22.0";

/**
 * A Go tool built from its module: `name` is the binary, `pkg` the package `go install` builds, `envVar` an environment
 * variable that names a prebuilt binary instead, `about` how long the first build takes. The binary lives in the cache's
 * versioned directory bin/<name>-<version>/. `ensure()` builds it when absent and returns { path, built, seconds } or
 * { missing: reason }; the build prints each package as it compiles (go install -v).
 */
function goPeer({ name, pkg, version, envVar, about }) {
  const binPath = () => process.env[envVar] || path.join(peerCache(), "bin", `${name}-${version}`, name);
  const ensure = ({ log = (line) => console.log(line) } = {}) => {
    const bin = binPath();
    if (fs.existsSync(bin)) return { path: bin, built: false, seconds: 0 };
    if (process.env[envVar]) return { missing: `${envVar}=${bin} does not exist` };
    const go = findGo();
    if (!go) return { missing: `Go is not installed (/usr/local/go/bin/go, or go on PATH): cannot build ${pkg}@${version}` };
    const gobin = path.dirname(bin);
    fs.mkdirSync(gobin, { recursive: true });
    log(`building ${pkg}@${version} with ${go} into ${gobin} (once, then cached; ${about})`);
    const started = Date.now();
    const r = spawnSync(go, ["install", "-v", ...GO_BUILD_FLAGS, "-ldflags", GO_LINK_FLAGS, `${pkg}@${version}`], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...goEnv(), GOBIN: gobin },
    });
    const seconds = Math.round((Date.now() - started) / 1000);
    if (r.status !== 0 || !fs.existsSync(bin)) return { missing: `go install ${pkg}@${version} failed (exit ${r.status ?? r.signal}) after ${seconds} s` };
    log(`built ${bin} in ${seconds} s`);
    return { path: bin, built: true, seconds };
  };
  return { path: binPath, ensure };
}

const OAUTH2_PROXY = goPeer({ name: "oauth2-proxy", pkg: OAUTH2_PROXY_MODULE, version: OAUTH2_PROXY_VERSION, envVar: "ALLOCATION_LENS_OAUTH2_PROXY", about: "about 2 minutes on 2 cores" });
const HELM = goPeer({ name: "helm", pkg: `${HELM_MODULE}/cmd/helm`, version: HELM_VERSION, envVar: "ALLOCATION_LENS_HELM", about: "about 2 minutes on 2 cores" });

/** Where the oauth2-proxy binary is (or will be): $ALLOCATION_LENS_OAUTH2_PROXY, or the cache's versioned directory. */
export const oauth2ProxyPath = () => OAUTH2_PROXY.path();
/** Where the helm binary is (or will be): $ALLOCATION_LENS_HELM, or the cache's versioned directory. */
export const helmPath = () => HELM.path();

/** The oauth2-proxy binary, built when absent: about 2 minutes on 2 cores the first time, nothing afterwards. */
export const ensureOauth2Proxy = (options) => OAUTH2_PROXY.ensure(options);
/** The helm binary (helm.sh/helm/v3), built when absent, as ensureOauth2Proxy. */
export const ensureHelm = (options) => HELM.ensure(options);

/** Every Go-built test peer by name, in the order `npm test` wants them. */
export const GO_PEERS = {
  helm: ensureHelm,
  "otel-allocator": ensureRealTa,
  "cloudwatch-target-allocator": ensureCloudwatchTa,
  "oauth2-proxy": ensureOauth2Proxy,
  // each operator after its allocator (npm test starts it when that one is built): the same module, mostly compiled by then
  "opentelemetry-operator": ensureOtelOperator,
  "cloudwatch-operator": ensureCloudwatchOperator,
  // etcd, then kube-apiserver (about 9 minutes of one core the first time), then the CRD files: one peer, `path` the API server's
  "kube-apiserver": (options) => {
    const r = ensureKubeReal(options);
    return "missing" in r ? r : { path: r.kubeApiserver.path, built: r.built, seconds: r.seconds, etcd: r.etcd.path, crds: r.crds.files };
  },
};

