/**
 * The tests held to a real Target Allocator: where its binary is (built by scripts/peers.mjs, which `npm test` runs
 * first), or why it is not. `realTaSuite(name, body)` (upstream's otel-allocator) and `cloudwatchTaSuite(name, body)`
 * (the CloudWatch fork's) run `body` with the binary, or register one skipped test naming the reason; with
 * ALLOCATION_LENS_REQUIRE_PEERS=1 (CI) a missing binary is one failed test instead.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLOUDWATCH_TA_COMMIT, cloudwatchOperatorDir, cloudwatchTaPath, operatorFiles as builtOperatorFiles, otelOperatorDir, REAL_TA_VERSION, realTaPath, requirePeers } from "@allocation-lens/demo-cluster/real-ta-build";
import { ETCD_VERSION, KUBERNETES_VERSION, etcdPath, kubeApiserverPath, monitoringCrdsDir } from "@allocation-lens/demo-cluster/kube-real-build";

export interface RealTaBinary {
  binary: string;
  version: string;
}

/** The built binary, or undefined when it is not built. */
export function realTaBinary(): RealTaBinary | undefined {
  const binary = realTaPath();
  return fs.existsSync(binary) ? { binary, version: REAL_TA_VERSION } : undefined;
}

/** The built CloudWatch fork's allocator (version: its commit), or undefined when it is not built. */
export function cloudwatchTaBinary(): RealTaBinary | undefined {
  const binary = cloudwatchTaPath();
  return fs.existsSync(binary) ? { binary, version: CLOUDWATCH_TA_COMMIT } : undefined;
}

function peerSuite(name: string, ta: RealTaBinary | undefined, reason: string, body: (ta: RealTaBinary) => void): void {
  if (ta) {
    describe(name, () => body(ta));
    return;
  }
  if (requirePeers()) it(`${name}: the real Target Allocator is available (ALLOCATION_LENS_REQUIRE_PEERS=1)`, () => expect.fail(reason));
  else it.skip(`${name}: ${reason}`, () => undefined);
}

export function realTaSuite(name: string, body: (ta: RealTaBinary) => void): void {
  const reason = `upstream's otel-allocator ${REAL_TA_VERSION} is not built (${realTaPath()}): "node scripts/build-peers.mjs otel-allocator" builds it with Go 1.24 or newer (npm test and npm run test:real-peers do)`;
  peerSuite(name, realTaBinary(), reason, body);
}

export function cloudwatchTaSuite(name: string, body: (ta: RealTaBinary) => void): void {
  const reason = `the CloudWatch fork's allocator (${CLOUDWATCH_TA_COMMIT.slice(0, 7)}) is not built (${cloudwatchTaPath()}): "node scripts/build-peers.mjs cloudwatch-target-allocator" builds it with Go 1.26 or newer from ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE or the public repository (npm test and npm run test:real-peers do)`;
  peerSuite(name, cloudwatchTaBinary(), reason, body);
}

/** etcd, kube-apiserver and the CRD files of the demo's `--kube real`, as startDemoCluster's `kubeReal` takes them. */
export interface KubeRealBinaries {
  etcd: string;
  kubeApiserver: string;
  crds: string[];
}

/** The built control plane, or undefined when a piece of it is not there. */
export function kubeRealBinaries(): KubeRealBinaries | undefined {
  const crdDir = monitoringCrdsDir();
  const crds = fs.existsSync(crdDir) ? fs.readdirSync(crdDir).filter((f) => f.endsWith(".yaml")).map((f) => `${crdDir}/${f}`) : [];
  const b = { etcd: etcdPath(), kubeApiserver: kubeApiserverPath(), crds };
  return fs.existsSync(b.etcd) && fs.existsSync(b.kubeApiserver) && crds.length ? b : undefined;
}

/**
 * `body` with a real control plane and a real allocator (upstream's, or the CloudWatch fork's with `flavor: "cloudwatch"`),
 * or one skipped test naming what is missing.
 */
export function kubeRealSuite(name: string, body: (kube: KubeRealBinaries, ta: RealTaBinary) => void, flavor: "upstream" | "cloudwatch" = "upstream"): void {
  const kube = kubeRealBinaries();
  const ta = flavor === "cloudwatch" ? cloudwatchTaBinary() : realTaBinary();
  const reason = !kube
    ? `kube-apiserver ${KUBERNETES_VERSION} and etcd ${ETCD_VERSION} are not built (${kubeApiserverPath()}, ${etcdPath()}): "node scripts/build-peers.mjs kube-apiserver" builds them with Go 1.26 or newer (npm test and npm run test:control-plane do)`
    : flavor === "cloudwatch"
      ? `the CloudWatch fork's allocator (${CLOUDWATCH_TA_COMMIT.slice(0, 7)}) is not built (${cloudwatchTaPath()}): "node scripts/build-peers.mjs cloudwatch-target-allocator" builds it`
      : `upstream's otel-allocator ${REAL_TA_VERSION} is not built (${realTaPath()}): "node scripts/build-peers.mjs otel-allocator" builds it`;
  if (kube && ta) {
    describe(name, () => body(kube, ta));
    return;
  }
  if (requirePeers()) it(`${name}: the real control plane is available (ALLOCATION_LENS_REQUIRE_PEERS=1)`, () => expect.fail(reason));
  else it.skip(`${name}: ${reason}`, () => undefined);
}

/** An operator's built manager, its CRD files and its ClusterRole file. */
export interface OperatorFiles {
  binary: string;
  crds: string[];
  role: string;
}

/** An operator as scripts/peers.mjs builds it (upstream's, or the CloudWatch agent operator), or undefined when a piece is not there. */
export function operatorFiles(flavor: "upstream" | "cloudwatch"): OperatorFiles | undefined {
  const dir = flavor === "cloudwatch" ? cloudwatchOperatorDir() : otelOperatorDir();
  const f = { binary: path.join(dir, "manager"), ...builtOperatorFiles(dir) };
  return fs.existsSync(f.binary) && fs.existsSync(f.role) && f.crds.length ? f : undefined;
}

/** `body` with a real control plane and an operator, or one skipped test naming what is missing. */
export function operatorSuite(name: string, body: (kube: KubeRealBinaries, operator: OperatorFiles) => void, flavor: "upstream" | "cloudwatch" = "upstream"): void {
  const kube = kubeRealBinaries();
  const op = operatorFiles(flavor);
  const peer = flavor === "cloudwatch" ? "cloudwatch-operator" : "opentelemetry-operator";
  const what = flavor === "cloudwatch" ? `the CloudWatch agent operator (${CLOUDWATCH_TA_COMMIT.slice(0, 7)})` : `upstream's OpenTelemetry Operator ${REAL_TA_VERSION}`;
  const reason = !kube
    ? `kube-apiserver ${KUBERNETES_VERSION} and etcd ${ETCD_VERSION} are not built (${kubeApiserverPath()}, ${etcdPath()}): "node scripts/build-peers.mjs kube-apiserver" builds them`
    : `${what} is not built (${flavor === "cloudwatch" ? cloudwatchOperatorDir() : otelOperatorDir()}): "node scripts/build-peers.mjs ${peer}" builds it with Go (npm test and npm run test:control-plane do)`;
  if (kube && op) {
    describe(name, () => body(kube, op));
    return;
  }
  if (requirePeers()) it(`${name}: the real control plane and the operator are available (ALLOCATION_LENS_REQUIRE_PEERS=1)`, () => expect.fail(reason));
  else it.skip(`${name}: ${reason}`, () => undefined);
}
