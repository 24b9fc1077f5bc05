/**
 * The embedded demo cluster: a seeded world in an object store, served over the real Kubernetes API protocol, one Target
 * Allocator per role over HTTP (upstream) or HTTPS with required client certificates (cloudwatch), a fault engine, a
 * scenario player and a control API. Writes a kubeconfig, TLS files and a dashboard configuration for itself.
 * With `ta: "real"` each TA is a real allocator process (real-ta.ts) against this API: upstream's otel-allocator (upstream
 * flavor) or the CloudWatch fork's, one per role (cloudwatch flavor). The simulated allocator still runs beside it on
 * the same store, unserved, so that the two can be compared.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import type { Flavor, Labels, Role, StrategyName, Tracking } from "@allocation-lens/allocation/model";
import { ROLES } from "@allocation-lens/allocation/model";
import { targetNode } from "@allocation-lens/allocation/node";
import { isEligible } from "@allocation-lens/allocation/eligibility";
import { podViewFromObject } from "@allocation-lens/allocation/eligibility";
import { DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION } from "@allocation-lens/allocation/routing";
import { WorldBuilder, type World } from "./world/generate";
import { Store, type KubeObject, type Resource } from "./store";
import { startKubeApi, type KubeApiServer } from "./kube/server";
import { startTaServer, type TaServer } from "./ta/server";
import { generateDemoPki, writePki } from "./certs";
import { DemoAllocator } from "./allocator";
import { FaultEngine } from "./faults";
import { startControl } from "./control";
import { SCENARIOS, ScenarioPlayer, type ScenarioName } from "./scenario";
import type { DemoInfo, RealTaStartup, Truth } from "./contract/info";
import { TaPods } from "./ta-pods";
import { clientCertSecret, serviceDnsNames, taNames, taObjects } from "./world/target-allocators";
import { RealTa, withStrategy, type RealAssignments } from "./real-ta";
import { ControlPlane } from "./kube-real/control-plane";
import { workloadStatus } from "./world/workload-status";
import type { ExtraIdentity } from "./kube-real/rbac";
import { StoreMirror } from "./kube-real/mirror";

/** The routing annotation's key the CloudWatch fork's allocator at the pinned commit reads (the merged change renamed it). */
export const FORK_SCRAPER_ANNOTATION = EARLIER_SCRAPER_ANNOTATION;

export type { DemoInfo };

export interface DemoOptions {
  nodes: number;
  flavor: Flavor;
  tracking: Tracking;
  seed: number;
  scenario: ScenarioName;
  host: string;
  /** seconds between the dashboard's polls, written into the generated dashboard configuration */
  pollInterval: number;
  /** where the generated files go (configuration, TLS, tokens, history); default a new temporary directory, removed at close() */
  dir?: string;
  ports?: { kube?: number; control?: number; "per-node"?: number; "cluster-scraper"?: number };
  /** ms between TA reconciles; default 1000 (cloudwatch) or 5000 (upstream applies collector changes at most every 5 s) */
  reconcileMs?: number;
  annotationKey?: string;
  /** which Target Allocator serves: the simulated one (default) or the flavor's real binary */
  ta?: "simulated" | "real";
  /** the real allocator's binary and version (scripts/peers.mjs: ensureRealTa for upstream, ensureCloudwatchTa for cloudwatch) */
  realTa?: { binary: string; version: string };
  /** the per-node role's strategy: per-node (default), consistent-hashing or least-weighted */
  strategy?: StrategyName;
  /** per-node only: the fallback for targets without a node; default consistent-hashing, null = none */
  fallback?: "consistent-hashing" | null;
  /** collector_not_ready_grace_period of both allocators, in seconds; default 30 */
  graceSeconds?: number;
  /** upstream flavor: serve the TA over HTTPS with a required client certificate (its `https` block) */
  https?: boolean;
  /** the first back-off before a crash-looping simulated TA is started again (default 10 s, the kubelet's) */
  restartBackoffMs?: number;
  /** progress while starting (the real allocators' jobs listed); the CLI writes it to stderr; default none */
  log?: (line: string) => void;
  /**
   * which Kubernetes API its clients (kubectl, the TAs, the dashboard) are given: the demo's own (default) or a real
   * kube-apiserver with etcd, the world written to it (kube-real/)
   */
  kube?: "demo" | "real";
  /** `kube: "real"`: the binaries and CRD files (scripts/peers.mjs: ensureKubeReal builds them) */
  kubeReal?: { etcd: string; kubeApiserver: string; crds: readonly string[]; identities?: readonly ExtraIdentity[] };
}

/**
 * How long the demo waits for a real allocator to list its jobs. Most of that wait is not the demo's: before upstream's
 * allocator starts discovering the monitors' targets it reads the Secret each monitor references (every monitor of the
 * demo's world has a bearer-token Secret), one GET after another through client-go's default rate limit (5 a second,
 * bursts of 10): at 5,000 nodes 391 reads, about 78 s with no new job listed. Then its discovery starts informers per
 * job's namespace, every change reaches its answers through two 5 s throttles, and each reallocation takes seconds
 * (about 8 s at 5,000 nodes). So the demo gives up only when no new job
 * has appeared for a while (half a second per expected job, at least 2 minutes) or after a cap that grows with the
 * nodes (at least 10 minutes; 25 at 5,000 nodes). docs/performance.md, "The bench on the real allocator".
 */
export function jobsWaitBounds(nodes: number, jobs: number): { idleMs: number; capMs: number } {
  return { idleMs: Math.max(120_000, jobs * 500), capMs: Math.max(600_000, nodes * 300) };
}

export interface DemoCluster {
  info: DemoInfo;
  store: Store;
  world: World;
  allocators: Partial<Record<Role, DemoAllocator>>;
  taServers: Partial<Record<Role, TaServer>>;
  taPods: TaPods;
  /** the real allocators (`ta: "real"`) */
  realTas: Partial<Record<Role, RealTa>>;
  /** the demo's own Kubernetes API (with `kube: "real"` it still serves, for the port-forward and proxy tests, but no kubeconfig names it) */
  kube: KubeApiServer;
  /** `kube: "real"`: etcd and kube-apiserver, and the writer that keeps the world on it */
  controlPlane?: ControlPlane;
  mirror?: StoreMirror;
  faults: FaultEngine;
  scenario: ScenarioPlayer;
  close(): Promise<void>;
}

export const DEFAULT_DEMO: DemoOptions = {
  nodes: 12,
  flavor: "cloudwatch",
  tracking: "ready-only",
  seed: 1,
  scenario: "calm",
  host: "127.0.0.1",
  pollInterval: 5,
};

export async function startDemoCluster(partial: Partial<DemoOptions> = {}): Promise<DemoCluster> {
  const o: DemoOptions = { ...DEFAULT_DEMO, ...partial };
  const real = o.ta === "real";
  const kubeReal = o.kube === "real";
  if (kubeReal && !o.kubeReal) throw new Error("--kube real needs etcd, kube-apiserver and the monitoring CRDs (scripts/peers.mjs ensureKubeReal builds them)");
  if (real && !o.realTa) throw new Error(`--ta real needs the ${o.flavor === "upstream" ? "otel-allocator binary (scripts/peers.mjs ensureRealTa" : "CloudWatch fork's allocator binary (scripts/peers.mjs ensureCloudwatchTa"} builds it)`);
  if (o.https && o.flavor !== "upstream") throw new Error("--https is for the upstream flavor (the cloudwatch flavor always serves HTTPS)");
  const perNodeStrategy: StrategyName = o.strategy ?? "per-node";
  const perNodeFallback = perNodeStrategy === "per-node" ? (o.fallback === undefined ? "consistent-hashing" : o.fallback) : null;
  const graceSeconds = o.graceSeconds ?? 30;
  // a directory of its own (keys, tokens, the dashboard's history) is removed at close(); one given is the caller's
  const ownDir = o.dir === undefined;
  const dir = o.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-demo-"));
  fs.mkdirSync(dir, { recursive: true });
  // the monitors carry the key the TAs read: the fork's build reads its earlier spelling
  const annotationKey = o.annotationKey ?? (real && o.flavor === "cloudwatch" ? FORK_SCRAPER_ANNOTATION : DEFAULT_SCRAPER_ANNOTATION);
  const builder = new WorldBuilder({ nodes: o.nodes, seed: o.seed, flavor: o.flavor, nowMs: Date.now(), annotationKey });
  const world = builder.generate();
  const store = new Store();
  // The upstream flavor has no scraper roles: one plain TA, per-node strategy. The cloudwatch flavor runs both agents.
  const roles: Role[] = o.flavor === "upstream" ? ["per-node"] : [...ROLES];
  // The TA server certificate also names each TA Service as the cluster's DNS would (a client tunnelling through
  // port-forward verifies it with servername <svc>.<ns>.svc).
  const pki = await generateDemoPki(roles.flatMap((role) => serviceDnsNames(taNames(o.flavor, role).service, taNames(o.flavor, role).namespace)));
  const operatorObjects = roles.map((role) => taObjects(o.flavor, role, world, Date.now() - 86_400_000));
  // the ConfigMap says what the TA runs: the chosen strategy for the per-node role (and the https block, below)
  for (const [i, role] of roles.entries()) {
    if (role !== "per-node") continue;
    const cm = operatorObjects[i].configMap;
    cm.data = { ...(cm.data as Record<string, string>), "targetallocator.yaml": withStrategy((cm.data as Record<string, string>)["targetallocator.yaml"], perNodeStrategy, perNodeFallback) };
  }
  const baseline: Partial<Record<Resource, KubeObject[]>> = {
    nodes: world.nodes,
    pods: world.pods,
    servicemonitors: world.serviceMonitors,
    podmonitors: world.podMonitors,
    configmaps: operatorObjects.map((x) => x.configMap),
    services: [...world.services, ...operatorObjects.map((x) => x.service)],
    secrets: [...world.secrets, ...(o.flavor === "cloudwatch" ? [clientCertSecret({ caPem: pki.caPem, certPem: pki.clientCertPem, keyPem: pki.clientKeyPem }, Date.now() - 86_400_000)] : [])],
  };
  for (const [resource, objects] of Object.entries(baseline) as [Resource, KubeObject[]][]) for (const obj of objects) store.upsert(resource, obj);
  // TA pods are not part of the baseline: heal leaves them as they are (their replacement is a one-shot)
  const taPods = new TaPods(store, o.flavor, roles);
  taPods.createAll();
  // the workloads (the TAs' Deployments, the agents' DaemonSet and Deployment) with the status their controllers write;
  // kube/workload-status-controller.ts keeps it so from here on
  const nodeNames = world.nodes.map((n) => n.metadata.name);
  const withStatus = (w: KubeObject): KubeObject => ({ ...w, status: workloadStatus(w, store.list("pods", w.metadata.namespace), nodeNames) });
  const agentWorkloads = builder.agentWorkloads();
  baseline.deployments = [...operatorObjects.map((x) => x.deployment), ...agentWorkloads.filter((w) => w.kind === "Deployment")].map(withStatus);
  baseline.daemonsets = agentWorkloads.filter((w) => w.kind === "DaemonSet").map(withStatus);
  for (const r of ["deployments", "daemonsets"] as const) for (const w of baseline[r]!) store.upsert(r, w);

  const allocators: Partial<Record<Role, DemoAllocator>> = {};
  for (const role of roles) {
    allocators[role] = new DemoAllocator(store, {
      role,
      flavor: o.flavor,
      tracking: o.tracking,
      strategy: role === "per-node" ? perNodeStrategy : "consistent-hashing",
      fallback: role === "per-node" ? perNodeFallback : null,
      annotationKey,
      namespace: world.namespace,
      selector: world.agents[role].selector,
      staticJobs: world.staticJobs[role],
      reconcileMs: o.reconcileMs ?? (o.flavor === "upstream" ? 5000 : 1000),
      graceMs: graceSeconds * 1000,
      // the simulated TA's process crash-loops like a real one: its pod shows it (a real TA is supervised by RealTa)
      onCrash: real ? undefined : (crash) => taPods.showCrash(role, crash),
      restartBackoffMs: o.restartBackoffMs,
    });
  }

  const kube = await startKubeApi(store, {
    host: o.host,
    port: o.ports?.kube ?? 0,
    dir,
    clusterName: "allocation-lens-demo",
    backendFor: (namespace, pod, port) => taPods.backendFor(namespace, pod, port),
    tls: { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem, caPem: pki.caPem },
  });
  const pkiPaths = await writePki(path.join(dir, "tls"), pki);
  let controlPlane: ControlPlane | undefined;
  let mirror: StoreMirror | undefined;
  if (kubeReal) {
    try {
      controlPlane = await ControlPlane.start({ ...o.kubeReal!, dir: path.join(dir, "control-plane"), host: o.host, port: o.ports?.kube, log: o.log });
      mirror = new StoreMirror(store, controlPlane.client("allocation-lens-demo"), { log: o.log });
      const t0 = Date.now();
      await mirror.start();
      o.log?.(`the world written to kube-apiserver: ${mirror.stats.applied} objects in ${((Date.now() - t0) / 1000).toFixed(1)} s${mirror.stats.refused ? `, ${mirror.stats.refused} refused (last: ${mirror.stats.lastRefusal})` : ""}`);
    } catch (e) {
      mirror?.stop();
      await Promise.all([kube.close(), controlPlane?.close()]);
      if (ownDir) fs.rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }
  // the kubeconfig each client is given: the demo's own API, or the real one's (one identity per client)
  const kubeconfigs = controlPlane
    ? { demo: controlPlane.kubeconfigs.demo, ta: controlPlane.kubeconfigs.targetAllocator, dashboard: controlPlane.kubeconfigs.dashboard, url: controlPlane.url }
    : { demo: kube.kubeconfigPath, ta: kube.kubeconfigPath, dashboard: kube.kubeconfigPath, url: kube.url };
  const taServers: Partial<Record<Role, TaServer>> = {};
  const realTas: Partial<Record<Role, RealTa>> = {};
  const targetAllocators: DemoInfo["targetAllocators"] = {};
  const startup: Partial<Record<Role, RealTaStartup>> = {};
  const closeStarted = async () => {
    await Promise.all([kube.close(), ...Object.values(taServers).map((s) => s!.close()), ...Object.values(realTas).map((t) => t!.close())]);
    for (const a of Object.values(allocators)) a?.stop();
    mirror?.stop();
    await controlPlane?.close();
  };
  const bare = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, "");
  try {
    for (const [i, role] of roles.entries()) {
      const a = allocators[role]!;
      a.start();
      const tls = o.flavor === "cloudwatch" || o.https ? { caPem: pki.caPem, certPem: pki.serverCertPem, keyPem: pki.serverKeyPem } : undefined;
      let url: string;
      if (real) {
        const t0 = performance.now();
        const demoCpu0 = process.cpuUsage();
        const kubeRequests0 = kube.stats();
        const kubeServeMs0 = kube.serveMs();
        const ta = await RealTa.start({
          flavor: o.flavor,
          binary: o.realTa!.binary,
          version: o.realTa!.version,
          configText: (operatorObjects[i].configMap.data as Record<string, string>)["targetallocator.yaml"],
          strategy: role === "per-node" ? perNodeStrategy : "consistent-hashing",
          fallback: role === "per-node" ? perNodeFallback : null,
          graceSeconds,
          kubeconfig: kubeconfigs.ta,
          dir: path.join(dir, "real-ta", role),
          host: o.host,
          port: o.ports?.[role] ?? 0,
          https: tls ? { ca: pkiPaths.ca, cert: pkiPaths.serverCert, key: pkiPaths.serverKey } : undefined,
          client: tls ? { ca: pkiPaths.ca, cert: pkiPaths.clientCert, key: pkiPaths.clientKey } : undefined,
          collectorNamespace: world.namespace,
          // it dies on its own (a panic): restarted with the kubelet's back-off, its pod in CrashLoopBackOff meanwhile
          onCrash: (crash) => {
            taPods.showCrash(role, crash);
            o.log?.(crash ? `${role} TA (real) crashed: ${crash.reason}; started again in ${Math.round(crash.backoffMs / 1000)} s (restart ${crash.restarts + 1})` : `${role} TA (real) runs again`);
          },
          restartBackoffMs: o.restartBackoffMs,
        });
        realTas[role] = ta;
        const readyMs = performance.now() - t0;
        // ready when it lists the jobs the same world gives the simulated allocator (which reconciled at start)
        const jobs = [...new Set(a.allTargets().map((t) => t.job))];
        const listed = await ta.waitForJobs(jobs, {
          ...jobsWaitBounds(o.nodes, jobs.length),
          onProgress: (p) => o.log?.(`${ta.program} (${role}): ${p.listed}/${p.expected} jobs listed, ${(p.elapsedMs / 1000).toFixed(0)} s after it was ready`),
        });
        const usage = ta.usage();
        const cpu = process.cpuUsage(demoCpu0);
        startup[role] = {
          readyMs: Math.round(readyMs),
          jobsListedMs: listed.ms,
          jobs: listed.expected,
          progress: listed.progress.map((p) => [p.ms, p.listed]),
          allocatorCpuMs: usage?.cpuMs ?? null,
          allocatorRssBytes: usage?.rssBytes ?? null,
          demoCpuMs: Math.round((cpu.user + cpu.system) / 1000),
          kubeRequests: delta(kube.stats(), kubeRequests0),
          kubeServeMs: delta(kube.serveMs(), kubeServeMs0, 1),
        };
        url = ta.url;
        // the TA pod's container port is the listener the demo reads (upstream: plain HTTP; the fork: its HTTPS one),
        // for port-forward and the service proxy
        taPods.setBackend(role, { host: bare(ta.readUrl), port: Number(new URL(ta.readUrl).port), tls: ta.readUrl.startsWith("https:") });
      } else {
        const server = await startTaServer({ getState: () => a.state, getFaults: () => a.faults, isDown: () => a.crashed !== null, flavor: o.flavor, host: o.host, port: o.ports?.[role] ?? 0, tls });
        taServers[role] = server;
        url = server.url;
        taPods.setBackend(role, { host: bare(server.url), port: Number(new URL(server.url).port), tls: !!tls });
      }
      const n = taNames(o.flavor, role);
      const where = { namespace: n.namespace, service: n.service, servicePort: n.servicePort, pod: taPods.podName(role)!, containerPort: n.containerPort };
      targetAllocators[role] = tls
        ? { url, flavor: o.flavor, ca: pkiPaths.ca, cert: pkiPaths.clientCert, key: pkiPaths.clientKey, ...where }
        : { url, flavor: o.flavor, ...where };
    }
  } catch (e) {
    await closeStarted();
    if (ownDir) fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }

  // on a real API server a watch disconnect is what its restart does to every watch; a stall cannot be made there
  const dropWatches = controlPlane
    ? () => void controlPlane.restartApiserver().catch((e) => o.log?.(`kube-apiserver did not come back: ${(e as Error).message}`))
    : () => kube.dropWatches("end");
  const stallWatches = controlPlane ? undefined : (r: "pods", ob: KubeObject, ms: number) => kube.stallWatches(r, ob, ms);
  const faults = new FaultEngine({ store, builder, world, baseline, allocators, taPods, realTas, dropWatches, stallWatches, now: Date.now });
  const scenario = new ScenarioPlayer(faults, () => ({
    nodes: store.list("nodes").map((n) => n.metadata.name).sort(),
    monitor: world.serviceMonitors.find((m) => !m.metadata.annotations?.[annotationKey]) ? { namespace: world.serviceMonitors.find((m) => !m.metadata.annotations?.[annotationKey])!.metadata.namespace!, name: world.serviceMonitors.find((m) => !m.metadata.annotations?.[annotationKey])!.metadata.name } : null,
    twoRoles: roles.length === 2,
  }));
  const truth = async () =>
    real ? realGroundTruth(store, world, realTas, o.flavor, taPods.names()) : groundTruth(store, world, allocators, o.flavor, taPods.names());
  const control = await startControl({ faults, truth, scenarios: SCENARIOS, scenario: (name) => (scenario.play(name as ScenarioName), name) }, o.host, o.ports?.control ?? 0);
  scenario.play(o.scenario);
  const controlTokenFile = path.join(dir, "control-token");
  fs.writeFileSync(controlTokenFile, `${control.token}\n`, { mode: 0o600 });

  const cluster = {
    name: "demo",
    kubernetes: { kubeconfig: kubeconfigs.dashboard },
    scraperAnnotation: annotationKey,
    pollIntervalSeconds: o.pollInterval,
  };
  const explicitTas = Object.fromEntries(
    roles.map((role) => {
      const t = targetAllocators[role]!;
      return [
        role,
        {
          url: t.url,
          flavor: o.flavor,
          ...(t.ca ? { tls: { ca: t.ca, cert: t.cert, key: t.key } } : {}),
          timeoutSeconds: 5,
          // what the TA runs, as an operator states it: the dashboard reads it when the TA cannot say (its ring's limit)
          ...(role === "per-node" ? { strategy: perNodeStrategy, ...(perNodeStrategy === "per-node" ? { fallbackStrategy: perNodeFallback ?? "none" } : {}) } : { strategy: "consistent-hashing" }),
          collectors: { namespace: world.namespace, selector: world.agents[role].selector },
        },
      ];
    }),
  );
  const dashboardFile = (targetAllocators: unknown, history: string) =>
    YAML.stringify({
      clusters: [{ ...cluster, targetAllocators }],
      history: { path: path.join(dir, history) },
      demo: { control: control.url, controlTokenFile },
    });
  const dashboardConfig = path.join(dir, "allocation-lens.yaml");
  fs.writeFileSync(dashboardConfig, dashboardFile(explicitTas, "history.sqlite"));
  // the same cluster with its TAs found through the Kubernetes API (the dashboard's `targetAllocators: auto`)
  const discoverConfig = path.join(dir, "allocation-lens-discover.yaml");
  fs.writeFileSync(discoverConfig, dashboardFile("auto", "history-discover.sqlite"));

  const info: DemoInfo = {
    kubeconfig: kubeconfigs.demo,
    kubeApi: kubeconfigs.url,
    ...(controlPlane ? { etcd: controlPlane.etcdUrl } : {}),
    targetAllocators,
    dashboardConfig,
    discoverConfig,
    control: control.url,
    controlToken: control.token,
    controlTokenFile,
    nodes: o.nodes,
    flavor: o.flavor,
    tracking: o.tracking,
    seed: o.seed,
    scenario: o.scenario,
    ta: real ? "real" : "simulated",
    ...(real ? { taVersion: o.realTa!.version } : {}),
    strategy: perNodeStrategy,
    fallback: perNodeFallback,
    ...(real ? { realTaStartup: startup } : {}),
  };
  return {
    info,
    store,
    world,
    allocators,
    taServers,
    taPods,
    realTas,
    kube,
    controlPlane,
    mirror,
    faults,
    scenario,
    async close() {
      scenario.stop();
      faults.stop();
      await Promise.all([control.close(), closeStarted()]);
      if (ownDir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `after` less `before`, key by key (rounded to `digits`), the keys that did not change left out. */
function delta(after: Record<string, number>, before: Record<string, number>, digits = 0): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d) out[k] = Number(d.toFixed(digits));
  }
  return out;
}

/** The agent pods of each role with their eligibility, and whether `registered(role)` lists them. */
function collectorsTruth(store: Store, world: World, roles: Role[], flavor: Flavor, registered: (role: Role) => string[]): Truth["collectors"] {
  const now = Date.now();
  const collectors: Truth["collectors"] = [];
  for (const role of roles) {
    const sel = world.agents[role].selector;
    const listed = new Set(registered(role));
    for (const p of store.list("pods", world.namespace)) {
      if (!Object.entries(sel).every(([k, v]) => p.metadata.labels?.[k] === v)) continue;
      const view = podViewFromObject(p);
      collectors.push({ role, id: p.metadata.name, node: view.nodeName, eligible: isEligible(view, flavor, now), registered: listed.has(p.metadata.name) });
    }
  }
  return collectors;
}

/**
 * Ground truth of a demo on the real allocator: what it assigned, read from its own answers. It lists no unassigned
 * target: their number is its `targets_remaining` gauge less the assigned ones, as the allocator counts them.
 */
export async function realGroundTruth(store: Store, world: World, realTas: Partial<Record<Role, RealTa>>, flavor: Flavor, taPods: Partial<Record<Role, string>> = {}): Promise<Truth> {
  const read = new Map<Role, RealAssignments>();
  for (const [role, ta] of Object.entries(realTas) as [Role, RealTa][]) read.set(role, await ta.assignments());
  const targets: Truth["targets"] = [];
  const unassigned: Partial<Record<Role, number>> = {};
  for (const [role, r] of read) {
    for (const t of r.targets) targets.push({ role, job: t.job, address: t.address, node: targetNode(t.labels as Labels), collector: t.collector });
    unassigned[role] = Math.max(0, (r.gauges.opentelemetry_allocator_targets_remaining ?? r.targets.length) - r.targets.length);
  }
  const roles = [...read.keys()];
  return {
    at: Date.now(),
    targets,
    unassigned,
    collectors: collectorsTruth(store, world, roles, flavor, (role) => read.get(role)?.collectors ?? []),
    registered: Object.fromEntries(roles.map((r) => [r, read.get(r)!.collectors])),
    taPods,
  };
}

/** Ground truth for tests: every target with the collector each TA assigned, every agent pod with its eligibility. */
export function groundTruth(store: Store, world: World, allocators: Partial<Record<Role, DemoAllocator>>, flavor: Flavor, taPods: Partial<Record<Role, string>> = {}): Truth {
  const now = Date.now();
  const targets: Truth["targets"] = [];
  const unassigned: Partial<Record<Role, number>> = {};
  for (const [role, a] of Object.entries(allocators) as [Role, DemoAllocator][]) {
    let n = 0;
    for (const t of a.allTargets()) {
      const collector = a.assignmentOf(t.key);
      if (!collector) n++;
      targets.push({ role, job: t.job, address: t.address, node: targetNode(t.labels), collector });
    }
    unassigned[role] = n;
  }
  const collectors = collectorsTruth(store, world, Object.keys(allocators) as Role[], flavor, (role) => allocators[role]!.registeredCollectors());
  return { at: now, targets, unassigned, collectors, registered: Object.fromEntries(Object.entries(allocators).map(([r, a]) => [r, a!.registeredCollectors()])), taPods };
}
