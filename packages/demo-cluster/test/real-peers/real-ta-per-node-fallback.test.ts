import { differentialSuite } from "./real-ta-differential";

differentialSuite({ strategy: "per-node", fallback: "consistent-hashing", label: "per-node with the consistent-hashing fallback" });
