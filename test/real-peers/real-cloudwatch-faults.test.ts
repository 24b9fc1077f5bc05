import { cloudwatchTaSuite } from "@allocation-lens/test-support/real-ta";
import { realCloudwatchFaults } from "@/test/real-peers/real-cloudwatch-faults";

cloudwatchTaSuite("the dashboard on the CloudWatch fork's real Target Allocators, under faults", (ta) => realCloudwatchFaults(ta));
