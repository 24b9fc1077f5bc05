/**
 * `npm run demo-cluster -- [options]`: runs the embedded demo cluster alone. When ready, prints one line of JSON on stdout
 * (kubeconfig, kubeApi, targetAllocators, dashboardConfig, control, ...) and runs until SIGINT or SIGTERM, or (started by
 * launchDemo) until its launcher is gone.
 */
import { parseArgs } from "node:util";
import { startDemoCluster, DEFAULT_DEMO } from "./cluster";
import { SCENARIOS, type ScenarioName } from "./scenario";
import { ensureCloudwatchTa, ensureRealTa } from "./real-ta-build.mjs";
import { ensureKubeReal } from "./kube-real-build.mjs";
import { EXIT_WITH_PARENT_ENV } from "./contract/launcher";

const USAGE = `usage: npm run demo-cluster -- [--nodes N (1-5000, default 12)] [--flavor upstream|cloudwatch] [--tracking ready-only|legacy]
       [--seed N] [--scenario ${SCENARIOS.join("|")}] [--host 127.0.0.1] [--kube-port P] [--control-port P]
       [--per-node-port P] [--cluster-scraper-port P] [--poll-interval SECONDS] [--dir DIR]
       [--ta simulated|real] [--strategy per-node|consistent-hashing|least-weighted] [--fallback consistent-hashing|none]
       [--grace-seconds N] [--https] [--annotation-key KEY] [--kube demo|real]
  --ta real runs the flavor's real Target Allocator in place of the simulated one, built once with Go into a cache:
  upstream's otel-allocator (--flavor upstream), or the CloudWatch fork's allocator, one per role (--flavor cloudwatch;
  its source from ALLOCATION_LENS_CLOUDWATCH_TA_SOURCE or the public repository). --annotation-key is the routing
  annotation's key on the world's monitors (default cloudwatch.aws.amazon.com/scraper; with the fork's allocator
  cloudwatch.aws/scraper, the key it reads).
  --kube real gives every client a real kube-apiserver (with etcd, both built once with Go into the same cache) in place
  of the demo's own API: the world is written to it, RBAC and all; the JSON line adds etcd's URL.`;

function fail(message: string): never {
  console.error(`demo-cluster: ${message}\n${USAGE}`);
  process.exit(2);
}

function int(name: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be an integer from ${min} to ${max}, got "${v}"`);
  return n;
}

async function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        nodes: { type: "string" },
        flavor: { type: "string" },
        tracking: { type: "string" },
        seed: { type: "string" },
        scenario: { type: "string" },
        host: { type: "string" },
        "kube-port": { type: "string" },
        "control-port": { type: "string" },
        "per-node-port": { type: "string" },
        "cluster-scraper-port": { type: "string" },
        "poll-interval": { type: "string" },
        dir: { type: "string" },
        ta: { type: "string" },
        strategy: { type: "string" },
        fallback: { type: "string" },
        "grace-seconds": { type: "string" },
        https: { type: "boolean" },
        "annotation-key": { type: "string" },
        kube: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (e) {
    fail((e as Error).message);
  }
  if (values.help) {
    console.error(USAGE);
    process.exit(0);
  }
  const flavor = values.flavor ?? DEFAULT_DEMO.flavor;
  if (flavor !== "upstream" && flavor !== "cloudwatch") fail(`--flavor must be upstream or cloudwatch, got "${flavor}"`);
  // the fork's real allocator tracks its collectors the legacy way: the simulated twin that runs beside it does the same
  const tracking = values.tracking ?? (values.ta === "real" && flavor === "cloudwatch" ? "legacy" : DEFAULT_DEMO.tracking);
  if (tracking !== "ready-only" && tracking !== "legacy") fail(`--tracking must be ready-only or legacy, got "${tracking}"`);
  const scenario = (values.scenario ?? DEFAULT_DEMO.scenario) as ScenarioName;
  if (!SCENARIOS.includes(scenario)) fail(`--scenario must be one of ${SCENARIOS.join(", ")}, got "${scenario}"`);
  const ta = values.ta ?? "simulated";
  if (ta !== "simulated" && ta !== "real") fail(`--ta must be simulated or real, got "${ta}"`);
  const strategy = values.strategy ?? "per-node";
  if (strategy !== "per-node" && strategy !== "consistent-hashing" && strategy !== "least-weighted") {
    fail(`--strategy must be per-node, consistent-hashing or least-weighted, got "${strategy}"`);
  }
  const fallback = values.fallback ?? "consistent-hashing";
  if (fallback !== "consistent-hashing" && fallback !== "none") fail(`--fallback must be consistent-hashing or none, got "${fallback}"`);
  if (values.fallback !== undefined && strategy !== "per-node") fail("--fallback applies to --strategy per-node only");
  const annotationKey = values["annotation-key"];
  if (annotationKey !== undefined && !/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(annotationKey)) {
    fail(`--annotation-key must be a Kubernetes annotation key (an optional DNS prefix and "/", then a name), got "${annotationKey}"`);
  }
  let realTa: { binary: string; version: string } | undefined;
  if (ta === "real") {
    const ensure = flavor === "cloudwatch" ? ensureCloudwatchTa : ensureRealTa;
    const peer = ensure({ log: (line: string) => console.error(`demo-cluster: ${line}`) });
    if ("missing" in peer) {
      console.error(`demo-cluster: --ta real: ${peer.missing}`);
      process.exit(1);
    }
    realTa = { binary: peer.path, version: peer.version };
  }
  const kube = values.kube ?? "demo";
  if (kube !== "demo" && kube !== "real") fail(`--kube must be demo or real, got "${kube}"`);
  let kubeReal: { etcd: string; kubeApiserver: string; crds: string[] } | undefined;
  if (kube === "real") {
    const peer = ensureKubeReal({ log: (line: string) => console.error(`demo-cluster: ${line}`) });
    if ("missing" in peer) {
      console.error(`demo-cluster: --kube real: ${peer.missing}`);
      process.exit(1);
    }
    kubeReal = { etcd: peer.etcd.path, kubeApiserver: peer.kubeApiserver.path, crds: peer.crds.files };
  }
  const demo = await startDemoCluster({
    kube,
    kubeReal,
    log: (line) => console.error(`demo-cluster: ${line}`),
    ta,
    realTa,
    strategy,
    fallback: fallback === "none" ? null : fallback,
    graceSeconds: int("grace-seconds", values["grace-seconds"], 0, 3600),
    https: values.https,
    annotationKey,
    nodes: int("nodes", values.nodes, 1, 5000) ?? DEFAULT_DEMO.nodes,
    flavor,
    tracking,
    seed: int("seed", values.seed, 0, 2 ** 31 - 1) ?? DEFAULT_DEMO.seed,
    scenario,
    host: values.host ?? DEFAULT_DEMO.host,
    pollInterval: int("poll-interval", values["poll-interval"], 1, 3600) ?? DEFAULT_DEMO.pollInterval,
    dir: values.dir,
    ports: {
      kube: int("kube-port", values["kube-port"], 0, 65535),
      control: int("control-port", values["control-port"], 0, 65535),
      "per-node": int("per-node-port", values["per-node-port"], 0, 65535),
      "cluster-scraper": int("cluster-scraper-port", values["cluster-scraper-port"], 0, 65535),
    },
  });
  process.stdout.write(`${JSON.stringify(demo.info)}\n`);
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    void demo.close().finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // started by launchDemo: its stdin is a pipe from the launcher, which ends when the launcher is gone however it died
  if (process.env[EXIT_WITH_PARENT_ENV] === "1") {
    process.stdin.on("end", stop);
    process.stdin.on("error", stop);
    process.stdin.resume();
  }
}

main().catch((e) => {
  console.error(`demo-cluster: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
