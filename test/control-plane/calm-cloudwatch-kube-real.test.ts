import { calmSuite } from "@/test/acceptance/calm";
import { kubeRealSuite } from "@allocation-lens/test-support/real-ta";

// the CloudWatch flavor end to end on a real kube-apiserver: the fork's two allocators (per-node and cluster-scraper) list
// and watch their pods, monitors and endpoints there, and the dashboard reads the same server under its RBAC
kubeRealSuite(
  "the calm suite on a real kube-apiserver, with the CloudWatch fork's real Target Allocators",
  (kube, ta) => calmSuite("cloudwatch", { demo: { ta: "real", realTa: ta, tracking: "legacy", kube: "real", kubeReal: kube } }),
  "cloudwatch",
);
