// A real Kubernetes control plane for the demo's `--kube real`: etcd and kube-apiserver, each built from its Go module into
// the test peers' cache (~/.cache/allocation-lens, or $ALLOCATION_LENS_CACHE), once, then reused; and the monitoring CRDs
// (ServiceMonitor, PodMonitor) from prometheus-operator's module. Neither binary can be `go install`ed: both modules replace
// their sibling modules with directories their module zips do not hold, so each is built inside a writable copy whose
// replaces point at the published modules of the same release (docs/decisions/0011-a-real-control-plane.md). Plain
// JavaScript, so that plain `node` scripts can import it.
import fs from "node:fs";
import path from "node:path";
import { buildInCopy, download, findGo, GO_LINK_FLAGS, goEnv, peerCache } from "./go-build.mjs";

export const KUBERNETES_MODULE = "k8s.io/kubernetes";
export const KUBERNETES_VERSION = "v1.37.2";
/** the staging modules' published release that goes with KUBERNETES_VERSION */
const STAGING_VERSION = "v0.37.2";
export const ETCD_MODULE = "go.etcd.io/etcd/server/v3";
export const ETCD_VERSION = "v3.6.16";
export const PROMETHEUS_OPERATOR_MODULE = "github.com/prometheus-operator/prometheus-operator";
/** the version upstream's otel-allocator v0.140.0 is built against */
export const PROMETHEUS_OPERATOR_VERSION = "v0.81.0";

/** Where kube-apiserver is (or will be): $ALLOCATION_LENS_KUBE_APISERVER, or the cache's versioned directory. */
export const kubeApiserverPath = () => process.env.ALLOCATION_LENS_KUBE_APISERVER || path.join(peerCache(), "bin", `kube-apiserver-${KUBERNETES_VERSION}`, "kube-apiserver");
/** Where etcd is (or will be): $ALLOCATION_LENS_ETCD, or the cache's versioned directory. */
export const etcdPath = () => process.env.ALLOCATION_LENS_ETCD || path.join(peerCache(), "bin", `etcd-${ETCD_VERSION}`, "etcd");
/** Where the monitoring CRDs are copied: the cache's versioned directory. */
export const monitoringCrdsDir = () => path.join(peerCache(), "crds", `prometheus-operator-${PROMETHEUS_OPERATOR_VERSION}-cert-manager-v1.16.2-gateway-api-v1.2.1`);

/** The env of every build here: `-mod=mod` (the edited go.mod), the machine's own Go (a toolchain line fetches none). */
const env = () => goEnv("-mod=mod", { local: true });

/**
 * kube-apiserver from k8s.io/kubernetes, built when absent (about 9 minutes of one core the first time, nothing
 * afterwards). The module's go.mod replaces every staging module (k8s.io/api, k8s.io/apiserver, ...) with
 * ./staging/src/k8s.io/<name>, which its zip does not hold: each replace is pointed at that module's published release
 * instead, and go.work is dropped. The version is stamped as a release build does, or the server calls itself v0.0.0-master.
 */
export function ensureKubeApiserver({ log = (line) => console.log(line) } = {}) {
  const bin = kubeApiserverPath();
  if (process.env.ALLOCATION_LENS_KUBE_APISERVER && !fs.existsSync(bin)) return { missing: `ALLOCATION_LENS_KUBE_APISERVER=${bin} does not exist` };
  const [major, minor] = KUBERNETES_VERSION.slice(1).split(".");
  const stamp = (k, v) => `-X k8s.io/component-base/version.${k}=${v}`;
  return buildInCopy({
    name: "kube-apiserver",
    mod: KUBERNETES_MODULE,
    version: KUBERNETES_VERSION,
    pkg: "./cmd/kube-apiserver",
    bin,
    about: "about 9 minutes of one core",
    log,
    ldflags: [stamp("gitVersion", KUBERNETES_VERSION), stamp("gitMajor", major), stamp("gitMinor", minor), stamp("gitTreeState", "clean"), GO_LINK_FLAGS].join(" "),
    env: env(),
    prepare: (work) => {
      const gomod = path.join(work, "go.mod");
      const text = fs.readFileSync(gomod, "utf8");
      let count = 0;
      const edited = text.replace(/^(\s*)(k8s\.io\/[\w.-]+) => \.\/staging\/src\/k8s\.io\/[\w.-]+\s*$/gm, (_, indent, name) => {
        count++;
        return `${indent}${name} => ${name} ${STAGING_VERSION}`;
      });
      if (!count) return { missing: `${KUBERNETES_MODULE}@${KUBERNETES_VERSION}: its go.mod has no ./staging replace to point at the published modules` };
      fs.writeFileSync(gomod, edited);
      for (const f of ["go.work", "go.work.sum"]) fs.rmSync(path.join(work, f), { force: true });
      log(`  pointed ${count} staging replaces at their ${STAGING_VERSION} modules`);
      return undefined;
    },
  });
}

/**
 * etcd from go.etcd.io/etcd/server/v3 (its root package is the etcd binary), built when absent (about 30 s the first
 * time). Its go.mod replaces its sibling modules (api, client, pkg) with ../ directories: those replaces are dropped, the
 * siblings being published at the same version.
 */
export function ensureEtcd({ log = (line) => console.log(line) } = {}) {
  const bin = etcdPath();
  if (process.env.ALLOCATION_LENS_ETCD && !fs.existsSync(bin)) return { missing: `ALLOCATION_LENS_ETCD=${bin} does not exist` };
  return buildInCopy({
    name: "etcd",
    mod: ETCD_MODULE,
    version: ETCD_VERSION,
    pkg: ".",
    bin,
    about: "about 1 minute",
    log,
    env: env(),
    prepare: (work) => {
      const gomod = path.join(work, "go.mod");
      const text = fs.readFileSync(gomod, "utf8");
      // the block of ../ replaces and the FORBIDDEN_DEPENDENCY guards go; the siblings come at ETCD_VERSION
      const edited = text
        .replace(/^replace \(\n(?:\s*go\.etcd\.io\/[^\n]*=> \.\.\/[^\n]*\n)+\)\n/m, "")
        .replace(/^replace go\.etcd\.io\/[^\n]*=> \.\.\/[^\n]*\n/gm, "");
      if (/=> \.\.\//.test(edited)) return { missing: `${ETCD_MODULE}@${ETCD_VERSION}: its go.mod still replaces a sibling with a ../ directory after the edit` };
      fs.writeFileSync(gomod, edited);
      return undefined;
    },
  });
}

/**
 * The CRDs the demo installs, each from the Go module that publishes it: the monitoring CRDs from prometheus-operator's
 * (what the allocators and the dashboard read), and those the deploy manifests' optional objects need, as a cluster
 * running them has them installed: cert-manager's Certificate, the Gateway API's HTTPRoute.
 */
const CRD_SOURCES = [
  {
    mod: PROMETHEUS_OPERATOR_MODULE,
    version: PROMETHEUS_OPERATOR_VERSION,
    dir: "example/prometheus-operator-crd",
    files: ["monitoring.coreos.com_servicemonitors.yaml", "monitoring.coreos.com_podmonitors.yaml", "monitoring.coreos.com_scrapeconfigs.yaml", "monitoring.coreos.com_probes.yaml", "monitoring.coreos.com_prometheusrules.yaml"],
  },
  // its CRD files are also its Helm chart's templates: the template lines are YAML comments but for the labels (cleaned)
  { mod: "github.com/cert-manager/cert-manager", version: "v1.16.2", dir: "deploy/crds", files: ["crd-certificates.yaml"], cleanLabels: true },
  { mod: "sigs.k8s.io/gateway-api", version: "v1.2.1", dir: "config/crd/standard", files: ["gateway.networking.k8s.io_httproutes.yaml"] },
];

/** The CRD files copied into the cache when absent: { dir, files } or { missing }. */
export function ensureMonitoringCrds({ log = (line) => console.log(line) } = {}) {
  const dir = monitoringCrdsDir();
  const files = CRD_SOURCES.flatMap((c) => c.files.map((f) => path.join(dir, f)));
  if (files.every((f) => fs.existsSync(f))) return { dir, files, built: false, seconds: 0 };
  const go = findGo();
  if (!go) return { missing: `Go is not installed: the CRDs come from Go modules (${CRD_SOURCES.map((c) => `${c.mod}@${c.version}`).join(", ")})` };
  fs.mkdirSync(dir, { recursive: true });
  for (const c of CRD_SOURCES) {
    const source = download(go, c.mod, c.version, log, env());
    if ("missing" in source) return source;
    for (const f of c.files) {
      const from = path.join(source.dir, c.dir, f);
      if (!fs.existsSync(from)) return { missing: `${c.mod}@${c.version} has no ${c.dir}/${f}` };
      let text = fs.readFileSync(from, "utf8");
      if (c.cleanLabels) text = text.replace(/^  labels:\n(?:    .*\n)+/m, "  labels:\n    app.kubernetes.io/name: cert-manager\n");
      fs.writeFileSync(path.join(dir, f), text);
    }
  }
  return { dir, files, built: true, seconds: 0 };
}

/** Everything `--kube real` needs: { etcd, kubeApiserver, crds } with paths, or { missing } naming the first that is not there. */
export function ensureKubeReal({ log = (line) => console.log(line) } = {}) {
  const etcd = ensureEtcd({ log });
  if ("missing" in etcd) return etcd;
  const kubeApiserver = ensureKubeApiserver({ log });
  if ("missing" in kubeApiserver) return kubeApiserver;
  const crds = ensureMonitoringCrds({ log });
  if ("missing" in crds) return crds;
  return { etcd, kubeApiserver, crds, seconds: etcd.seconds + kubeApiserver.seconds, built: etcd.built || kubeApiserver.built };
}
