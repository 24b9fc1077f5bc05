import { calmSuite } from "@/test/acceptance/calm";
import { kubeRealSuite } from "@allocation-lens/test-support/real-ta";

// the dashboard's informers, discovery and polls against a real kube-apiserver, under the demo dashboard identity's RBAC
kubeRealSuite("the calm suite on a real kube-apiserver, with upstream's real Target Allocator", (kube, ta) =>
  calmSuite("upstream", { demo: { ta: "real", realTa: ta, kube: "real", kubeReal: kube } }),
);
