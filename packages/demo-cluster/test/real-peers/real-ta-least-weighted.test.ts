import { differentialSuite } from "./real-ta-differential";

differentialSuite({ strategy: "least-weighted", fallback: null, label: "least-weighted" });
