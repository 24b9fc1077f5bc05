/**
 * Two dashboard replicas on the demo's own Kubernetes API, one poller through a Lease (the suite: replicas-suite.ts).
 * Needs the build (skipped with a warning without it): `npm run build && npx vitest run test/built/replicas.test.ts`.
 */
import { startDemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";
import { replicasSuite, type LeaseSeen } from "./replicas-suite";

replicasSuite("two replicas with one poller per cluster through a Lease", {
  start: () => startDemoCluster({ pollInterval: 3, nodes: 6, seed: 11 }),
  lease: async (demo, namespace, name) => demo.kube.leases.get(namespace, name) as LeaseSeen | undefined,
});
