import { calmSuite } from "@/test/acceptance/calm";
import { realTaSuite } from "@allocation-lens/test-support/real-ta";

realTaSuite("the calm suite on upstream's real Target Allocator", (ta) => calmSuite("upstream", { demo: { ta: "real", realTa: ta } }));
