import { realTaSuite } from "@allocation-lens/test-support/real-ta";
import { realTaFaults } from "@/test/real-peers/real-ta-faults";

realTaSuite("the dashboard on upstream's real Target Allocator (consistent-hashing), under faults", (ta) => realTaFaults(ta));
