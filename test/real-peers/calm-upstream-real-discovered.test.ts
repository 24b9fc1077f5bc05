import { calmSuite } from "@/test/acceptance/calm";
import { realTaSuite } from "@allocation-lens/test-support/real-ta";

// one runtime per test file (getRuntime is a process-wide singleton): the discovered variant has its own file
realTaSuite("the calm suite on upstream's real Target Allocator, found from its ConfigMap", (ta) => calmSuite("upstream", { discovered: true, demo: { ta: "real", realTa: ta } }));
