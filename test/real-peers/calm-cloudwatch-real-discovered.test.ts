import { calmSuite } from "@/test/acceptance/calm";
import { cloudwatchTaSuite } from "@allocation-lens/test-support/real-ta";

// one runtime per test file (getRuntime is a process-wide singleton): the discovered variant has its own file
cloudwatchTaSuite("the calm suite on the CloudWatch fork's real Target Allocators, found from their ConfigMaps", (ta) =>
  calmSuite("cloudwatch", { discovered: true, demo: { ta: "real", realTa: ta, tracking: "legacy" } }),
);
