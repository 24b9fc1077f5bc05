import { describe, expect, it } from "vitest";
import { classify, imbalance, localityRatio } from "./classify";

const c = (eligible: boolean, node: string | null, zone: string | null) => ({ eligible, node, zone });

describe("classify", () => {
  it("checks ghost before everything else", () => {
    expect(classify("n1", "a", undefined)).toBe("ghost");
    expect(classify("n1", "a", c(false, "n1", "a"))).toBe("ghost");
    expect(classify(null, null, c(false, "n1", "a"))).toBe("ghost");
  });
  it("then nodeless, local, cross_zone, cross_node", () => {
    expect(classify(null, null, c(true, "n1", "a"))).toBe("nodeless");
    expect(classify("n1", "a", c(true, "n1", "a"))).toBe("local");
    expect(classify("n1", "a", c(true, "n2", "b"))).toBe("cross_zone");
    expect(classify("n1", "a", c(true, "n2", "a"))).toBe("cross_node");
    expect(classify("n1", null, c(true, "n2", "b"))).toBe("cross_node");
  });
});

describe("localityRatio and imbalance", () => {
  it("ignores nodeless targets and is null with nothing node-bound", () => {
    expect(localityRatio({ local: 3, cross_node: 1, cross_zone: 0 })).toBe(0.75);
    expect(localityRatio({ local: 0, cross_node: 0, cross_zone: 0 })).toBeNull();
  });
  it("computes max/mean and the coefficient of variation", () => {
    expect(imbalance([10, 10, 10])).toEqual({ maxOverMean: 1, cv: 0 });
    const r = imbalance([0, 20]);
    expect(r.maxOverMean).toBe(2);
    expect(r.cv).toBe(1);
    expect(imbalance([])).toEqual({ maxOverMean: null, cv: null });
  });
});
