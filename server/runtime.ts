import "server-only";
/**
 * The process-wide runtime of the serving thread: configuration, the poll worker with one handle per cluster
 * (server/poll/host.ts: the polling, the history and the answers live in a worker thread), and the demo child when there
 * is no configuration. Kept on globalThis so that route bundles and instrumentation share one instance.
 *
 * With `lease` (replicas): one Lease election per cluster (server/lease/elector.ts) decides which replica polls it; the
 * poll host follows it (local or remote handles), and the server entry serves the peer path (server/lease/peer-server.ts).
 */
import os from "node:os";
import * as k8s from "@kubernetes/client-node";
import type { Config } from "@/lib/config/schema";
import { PollHost, type ClusterHandle } from "@/server/poll/host";
import { hasSourceTree, launchDemo } from "@allocation-lens/demo-cluster/launcher";
import { configPathFromEnv, loadConfigFile, NO_CONFIGURATION, writeDiscoveryConfig } from "@/server/config";
import { replicaIdentity, type ReplicaIdentity } from "@/lib/lease/identity";
import { leaseCalls } from "@/server/lease/elector";
import { memberCalls, ShardedLeases } from "@/server/lease/shards";
import { registerLeaseMetrics } from "@/server/metrics";
import { keepAliveApiClient } from "@/server/kube/keep-alive";
import { kubeConfigFor } from "@/server/kube/informers";
import { loadPeerToken, type PeerToken } from "@/server/lease/peer";

export interface Runtime {
  config: Config;
  configFile: string;
  demo: boolean;
  /** one handle per cluster, by name */
  pollers: Map<string, ClusterHandle>;
  host: PollHost;
  /** with `lease`: this replica, the peer token, and the elections of the clusters' Leases, shared out over the replicas */
  lease?: { me: ReplicaIdentity; peer: PeerToken; shards: ShardedLeases };
  startedAt: number;
  stop(): Promise<void>;
}

const KEY = Symbol.for("allocation-lens.runtime");
type Holder = { [KEY]?: Promise<Runtime> };

async function create(): Promise<Runtime> {
  let file = configPathFromEnv();
  let demo = false;
  let stopDemo = async (): Promise<void> => {};
  const env = process.env;
  if (!file && (env.ALLOCATION_LENS_KUBECONFIG || env.ALLOCATION_LENS_CONTEXT)) {
    // one cluster from a kubeconfig context, its TAs discovered (server/discovery)
    const kc = kubeConfigFor({ inCluster: false, kubeconfig: env.ALLOCATION_LENS_KUBECONFIG, context: env.ALLOCATION_LENS_CONTEXT });
    const contextName = env.ALLOCATION_LENS_CONTEXT || kc.getCurrentContext();
    if (!kc.getContextObject(contextName)) throw new Error(`no context "${contextName}" in the kubeconfig${env.ALLOCATION_LENS_KUBECONFIG ? "" : " (KUBECONFIG or ~/.kube/config)"}: name one with --context`);
    file = writeDiscoveryConfig({ kubeconfig: env.ALLOCATION_LENS_KUBECONFIG, context: env.ALLOCATION_LENS_CONTEXT, contextName });
  }
  if (!file) {
    const args = (process.env.ALLOCATION_LENS_DEMO_ARGS ?? "").split(/\s+/).filter(Boolean);
    // The standalone output (the container image) has no source tree to run the demo from.
    if (!hasSourceTree(process.cwd())) throw new Error(NO_CONFIGURATION);
    const launched = await launchDemo(args, { onLine: (line) => process.stdout.write(`[demo] ${line}\n`) });
    // --discover: the demo's TAs are found from its Kubernetes API, as on a real cluster
    file = env.ALLOCATION_LENS_DISCOVER ? launched.info.discoverConfig : launched.info.dashboardConfig;
    demo = true;
    // awaited at stop: the demo removes its temporary directory (TLS keys, control token) as it closes, which a SIGKILL
    // at this process' exit would cut short
    stopDemo = () => launched.stop();
  }
  // validated here, before the worker starts, so that a bad file stops the server with every problem named
  const config = loadConfigFile(file);
  const peer = config.lease ? loadPeerToken(config.lease.peerTokenFile) : undefined;
  const host = new PollHost(config, file, undefined, peer);
  host.start();
  const lease = config.lease && peer ? startElections(config, host, peer) : undefined;
  return {
    config,
    configFile: file,
    demo: demo || Boolean(config.demo),
    pollers: host.clusters,
    host,
    lease,
    startedAt: Date.now(),
    async stop() {
      // a holder releases its Leases first: another replica takes them at its next read
      await lease?.shards.stop();
      await host.stop();
      await stopDemo();
    },
  };
}

function startElections(config: Config, host: PollHost, peer: PeerToken): NonNullable<Runtime["lease"]> {
  const l = config.lease!;
  const me = replicaIdentity(process.env, os.hostname());
  const kubernetes = l.kubernetes ?? config.clusters[0].kubernetes;
  // the Lease traffic (every held cluster's renewal, the membership read) over kept connections: server/kube/keep-alive.ts
  const api = keepAliveApiClient(kubeConfigFor(kubernetes), k8s.CoordinationV1Api);
  const requestTimeoutMs = Math.min(l.renewSeconds, kubernetes.requestTimeoutSeconds) * 1000;
  console.log(
    `allocation-lens: replica ${me.identity} at ${me.address}: polling the clusters whose Lease it holds (${l.namespace}/${l.name}-<cluster>), its share of ${config.clusters.length} shared out over the replicas (${l.namespace}/${l.name}-member-<replica>)`,
  );
  const shards = new ShardedLeases(
    { lease: (name) => leaseCalls(api, l.namespace, name), members: memberCalls(api, l.namespace, l.name) },
    {
      namespace: l.namespace,
      prefix: l.name,
      me: { ...me, durationSeconds: l.durationSeconds },
      renewSeconds: l.renewSeconds,
      clusters: config.clusters.map((c) => c.name),
      requestTimeoutMs,
      log: (line) => console.error(line),
    },
    (cluster, v) => host.setHolder(cluster, v),
  );
  shards.start();
  registerLeaseMetrics(() => shards.view, config.clusters.map((c) => c.name));
  return { me, peer, shards };
}

export function getRuntime(): Promise<Runtime> {
  const holder = globalThis as Holder;
  holder[KEY] ??= create();
  return holder[KEY];
}
