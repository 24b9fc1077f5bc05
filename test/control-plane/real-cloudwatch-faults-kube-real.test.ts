import { kubeRealSuite } from "@allocation-lens/test-support/real-ta";
import { realCloudwatchFaults } from "@/test/real-peers/real-cloudwatch-faults";

// the fork's fault suite with every fault written to a real kube-apiserver, which the fork's informers and the dashboard
// watch; the partitioned-watch case is skipped there (it needs a watch stall the real server cannot make)
kubeRealSuite(
  "the dashboard on a real kube-apiserver and the CloudWatch fork's real Target Allocators, under faults",
  (kube, ta) => realCloudwatchFaults(ta, { kube: "real", kubeReal: kube }),
  "cloudwatch",
);
