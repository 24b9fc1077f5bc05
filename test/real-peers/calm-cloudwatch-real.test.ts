import { calmSuite } from "@/test/acceptance/calm";
import { cloudwatchTaSuite } from "@allocation-lens/test-support/real-ta";

cloudwatchTaSuite("the calm suite on the CloudWatch fork's real Target Allocators", (ta) => calmSuite("cloudwatch", { demo: { ta: "real", realTa: ta, tracking: "legacy" } }));
