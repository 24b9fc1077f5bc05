import { differentialSuite } from "./real-ta-differential";

differentialSuite({ flavor: "cloudwatch", strategy: "per-node", fallback: null, label: "per-node without fallback" });
