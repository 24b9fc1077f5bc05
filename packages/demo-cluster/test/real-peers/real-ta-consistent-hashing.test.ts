import { differentialSuite } from "./real-ta-differential";

differentialSuite({ strategy: "consistent-hashing", fallback: null, label: "consistent-hashing" });
