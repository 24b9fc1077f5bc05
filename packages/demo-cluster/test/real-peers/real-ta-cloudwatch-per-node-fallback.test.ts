import { differentialSuite } from "./real-ta-differential";

differentialSuite({ flavor: "cloudwatch", strategy: "per-node", fallback: "consistent-hashing", label: "per-node with its consistent-hashing fallback" });
