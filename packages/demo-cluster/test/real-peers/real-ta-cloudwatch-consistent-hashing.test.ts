import { differentialSuite } from "./real-ta-differential";

differentialSuite({ flavor: "cloudwatch", strategy: "consistent-hashing", fallback: null, label: "consistent-hashing" });
