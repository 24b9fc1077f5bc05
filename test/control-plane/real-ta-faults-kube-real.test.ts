import { kubeRealSuite } from "@allocation-lens/test-support/real-ta";
import { realTaFaults } from "@/test/real-peers/real-ta-faults";

// the fault suite with every fault written to a real kube-apiserver: the allocator and the dashboard see it through their
// watches there. A watch stall cannot be made on the real server, so the collector deleted "unseen" is a plain deletion.
kubeRealSuite("the dashboard on a real kube-apiserver and upstream's real Target Allocator (consistent-hashing), under faults", (kube, ta) =>
  realTaFaults(ta, { kube: "real", kubeReal: kube }),
);
