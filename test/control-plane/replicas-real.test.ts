/**
 * Two dashboard replicas electing one poller through real `coordination.k8s.io` Leases: the replicas suite
 * (test/built/replicas-suite.ts) on the demo's `--kube real`, so that the Lease is created, renewed and taken over by
 * kube-apiserver's rules (its validation, its resourceVersion preconditions), under the RBAC the demo's dashboard
 * identity holds, and `kill -9` of the holder is followed by the other replica's takeover. Needs the build.
 */
import { startDemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";
import { kubeRealSuite } from "@allocation-lens/test-support/real-ta";
import { LEASE_NAMESPACE, replicasSuite, type LeaseSeen } from "@/test/built/replicas-suite";

kubeRealSuite("two replicas on a real kube-apiserver", (kube) => {
  replicasSuite("one poller per cluster through a real Lease; kill -9 of the holder and the other takes over", {
    start: async () => {
      const demo = await startDemoCluster({ kube: "real", kubeReal: kube, pollInterval: 3, nodes: 6, seed: 11 });
      // nothing else creates the Lease's namespace on a real cluster: the deployment's manifests do
      const a = await demo.controlPlane!.client("allocation-lens-demo").request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: LEASE_NAMESPACE } });
      if (a.status !== 201) throw new Error(`could not create the namespace ${LEASE_NAMESPACE}: ${a.status} ${a.text.slice(0, 200)}`);
      return demo;
    },
    lease: async (demo, namespace, name) => {
      const a = await demo.controlPlane!.client("allocation-lens-demo").request("GET", `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`);
      if (a.status === 404) return undefined;
      if (a.status !== 200) throw new Error(`reading the Lease: ${a.status} ${a.text.slice(0, 200)}`);
      return a.body as LeaseSeen;
    },
  });
});
