/**
 * The embedded demo cluster: a seeded world in an object store, served over the real Kubernetes API protocol, one Target
 * Allocator per role over HTTP (upstream) or HTTPS with required client certificates (cloudwatch), a fault engine, a
 * scenario player and a control API. Writes a kubeconfig, TLS files and a dashboard configuration for itself.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import type { Flavor, Role, Tracking } from "@allocation-lens/allocation/model";
import { ROLES } from "@allocation-lens/allocation/model";
import { targetNode } from "@allocation-lens/allocation/node";
import { isEligible } from "@allocation-lens/allocation/eligibility";
import { podViewFromObject } from "@allocation-lens/allocation/eligibility";
import { DEFAULT_SCRAPER_ANNOTATION } from "@allocation-lens/allocation/routing";
import { WorldBuilder, type World } from "./world/generate";
import { Store, type KubeObject, type Resource } from "./store";
import { startKubeApi, type KubeApiServer } from "./kube/server";
import { startTaServer, type TaServer } from "./ta/server";
import { generateDemoPki, writePki } from "./certs";
import { DemoAllocator } from "./allocator";
import { FaultEngine } from "./faults";
import { startControl } from "./control";
import { SCENARIOS, ScenarioPlayer, type ScenarioName } from "./scenario";
import type { DemoInfo, Truth } from "./contract/info";
import { TaPods } from "./ta-pods";
import { clientCertSecret, serviceDnsNames, taNames, taObjects } from "./world/target-allocators";

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
  dir?: string;
  ports?: { kube?: number; control?: number; "per-node"?: number; "cluster-scraper"?: number };
  /** ms between TA reconciles; default 1000 (cloudwatch) or 5000 (upstream applies collector changes at most every 5 s) */
  reconcileMs?: number;
  annotationKey?: string;
}

export interface DemoCluster {
  info: DemoInfo;
  store: Store;
  world: World;
  allocators: Partial<Record<Role, DemoAllocator>>;
  taServers: Partial<Record<Role, TaServer>>;
  taPods: TaPods;
  kube: KubeApiServer;
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
  const dir = o.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-demo-"));
  fs.mkdirSync(dir, { recursive: true });
  const annotationKey = o.annotationKey ?? DEFAULT_SCRAPER_ANNOTATION;
  const builder = new WorldBuilder({ nodes: o.nodes, seed: o.seed, flavor: o.flavor, nowMs: Date.now() });
  const world = builder.generate();
  const store = new Store();
  // The upstream flavor has no scraper roles: one plain TA, per-node strategy. The cloudwatch flavor runs both agents.
  const roles: Role[] = o.flavor === "upstream" ? ["per-node"] : [...ROLES];
  // The TA server certificate also names each TA Service as the cluster's DNS would (a client tunnelling through
  // port-forward verifies it with servername <svc>.<ns>.svc).
  const pki = await generateDemoPki(roles.flatMap((role) => serviceDnsNames(taNames(o.flavor, role).service, taNames(o.flavor, role).namespace)));
  const operatorObjects = roles.map((role) => taObjects(o.flavor, role, world, Date.now() - 86_400_000));
  const baseline: Partial<Record<Resource, KubeObject[]>> = {
    nodes: world.nodes,
    pods: world.pods,
    servicemonitors: world.serviceMonitors,
    podmonitors: world.podMonitors,
    configmaps: operatorObjects.map((x) => x.configMap),
    services: [...world.services, ...operatorObjects.map((x) => x.service)],
    deployments: operatorObjects.map((x) => x.deployment),
    secrets: [...world.secrets, ...(o.flavor === "cloudwatch" ? [clientCertSecret({ caPem: pki.caPem, certPem: pki.clientCertPem, keyPem: pki.clientKeyPem }, Date.now() - 86_400_000)] : [])],
  };
  for (const [resource, objects] of Object.entries(baseline) as [Resource, KubeObject[]][]) for (const obj of objects) store.upsert(resource, obj);
  // TA pods are not part of the baseline: heal leaves them as they are (their replacement is a one-shot)
  const taPods = new TaPods(store, o.flavor, roles);
  taPods.createAll();

  const allocators: Partial<Record<Role, DemoAllocator>> = {};
  for (const role of roles) {
    allocators[role] = new DemoAllocator(store, {
      role,
      flavor: o.flavor,
      tracking: o.tracking,
      strategy: role === "per-node" ? "per-node" : "consistent-hashing",
      fallback: role === "per-node" ? "consistent-hashing" : null,
      annotationKey,
      namespace: world.namespace,
      selector: world.agents[role].selector,
      staticJobs: world.staticJobs[role],
      reconcileMs: o.reconcileMs ?? (o.flavor === "upstream" ? 5000 : 1000),
      graceMs: 30_000,
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
  const taServers: Partial<Record<Role, TaServer>> = {};
  const targetAllocators: DemoInfo["targetAllocators"] = {};
  for (const role of roles) {
    const a = allocators[role]!;
    a.start();
    const tls = o.flavor === "cloudwatch" ? { caPem: pki.caPem, certPem: pki.serverCertPem, keyPem: pki.serverKeyPem } : undefined;
    const server = await startTaServer({ getState: () => a.state, getFaults: () => a.faults, flavor: o.flavor, host: o.host, port: o.ports?.[role] ?? 0, tls });
    taServers[role] = server;
    const address = new URL(server.url);
    taPods.setBackend(role, { host: address.hostname.replace(/^\[|\]$/g, ""), port: Number(address.port), tls: !!tls });
    const n = taNames(o.flavor, role);
    const where = { namespace: n.namespace, service: n.service, servicePort: n.servicePort, pod: taPods.podName(role)!, containerPort: n.containerPort };
    targetAllocators[role] = tls
      ? { url: server.url, flavor: o.flavor, ca: pkiPaths.ca, cert: pkiPaths.clientCert, key: pkiPaths.clientKey, ...where }
      : { url: server.url, flavor: o.flavor, ...where };
  }

  const faults = new FaultEngine({ store, builder, world, baseline, allocators, taPods, dropWatches: () => kube.dropWatches("end"), now: Date.now });
  const scenario = new ScenarioPlayer(faults, () => ({
    nodes: store.list("nodes").map((n) => n.metadata.name).sort(),
    monitor: world.serviceMonitors.find((m) => !m.metadata.annotations?.[annotationKey]) ? { namespace: world.serviceMonitors.find((m) => !m.metadata.annotations?.[annotationKey])!.metadata.namespace!, name: world.serviceMonitors.find((m) => !m.metadata.annotations?.[annotationKey])!.metadata.name } : null,
    twoRoles: roles.length === 2,
  }));
  const truth = () => groundTruth(store, world, allocators, o.flavor, taPods.names());
  const control = await startControl({ faults, truth, scenarios: SCENARIOS, scenario: (name) => (scenario.play(name as ScenarioName), name) }, o.host, o.ports?.control ?? 0);
  scenario.play(o.scenario);
  const controlTokenFile = path.join(dir, "control-token");
  fs.writeFileSync(controlTokenFile, `${control.token}\n`, { mode: 0o600 });

  const cluster = {
    name: "demo",
    kubernetes: { kubeconfig: kube.kubeconfigPath },
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
    kubeconfig: kube.kubeconfigPath,
    kubeApi: kube.url,
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
  };
  return {
    info,
    store,
    world,
    allocators,
    taServers,
    taPods,
    kube,
    faults,
    scenario,
    async close() {
      scenario.stop();
      faults.stop();
      for (const a of Object.values(allocators)) a?.stop();
      await Promise.all([control.close(), kube.close(), ...Object.values(taServers).map((s) => s!.close())]);
    },
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
  const collectors: Truth["collectors"] = [];
  for (const role of Object.keys(allocators) as Role[]) {
    const sel = world.agents[role].selector;
    for (const p of store.list("pods", world.namespace)) {
      if (!Object.entries(sel).every(([k, v]) => p.metadata.labels?.[k] === v)) continue;
      const view = podViewFromObject(p);
      collectors.push({
        role,
        id: p.metadata.name,
        node: view.nodeName,
        eligible: isEligible(view, flavor, now),
        registered: allocators[role]!.registeredCollectors().includes(p.metadata.name),
      });
    }
  }
  return { at: now, targets, unassigned, collectors, registered: Object.fromEntries(Object.entries(allocators).map(([r, a]) => [r, a!.registeredCollectors()])), taPods };
}
