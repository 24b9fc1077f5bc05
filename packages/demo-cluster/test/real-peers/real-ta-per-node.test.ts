import { differentialSuite } from "./real-ta-differential";

differentialSuite({ strategy: "per-node", fallback: null, label: "per-node without fallback" });
