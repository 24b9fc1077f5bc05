import { describe, expect, it } from "vitest";
import { FAULT_NAMES, parseFault } from "./faults";

describe("parseFault", () => {
  it("knows every fault of the contract", () => {
    for (const f of ["collector-not-ready", "collector-crashloop", "collector-deleted-unseen", "node-add", "node-remove", "rollout", "annotate-monitor", "routing-off", "ta-outage", "ta-slow", "ta-malformed", "crd-missing", "hostile-target"]) {
      expect(FAULT_NAMES).toContain(f);
    }
  });
  it("accepts valid parameters and fills defaults", () => {
    expect(parseFault({ fault: "ta-outage", role: "per-node" })).toEqual({ ok: true, fault: { fault: "ta-outage", role: "per-node", seconds: 60 } });
    expect(parseFault({ fault: "annotate-monitor", namespace: "shop", name: "cart", value: null }).ok).toBe(true);
  });
  it("names an unknown fault, an unknown parameter and a bad value", () => {
    const a = parseFault({ fault: "meteor" });
    expect(a.ok).toBe(false);
    if (!a.ok) expect(a.error).toMatch(/unknown fault "meteor"; known faults: collector-not-ready/);
    const b = parseFault({ fault: "collector-not-ready", node: "n1", colour: "red" });
    if (!b.ok) expect(b.error).toBe("fault collector-not-ready: unknown parameter colour");
    else expect.unreachable();
    const c = parseFault({ fault: "rollout", role: "everyone" });
    if (!c.ok) expect(c.error).toMatch(/fault rollout: role: expected "per-node" or "cluster-scraper"/);
    else expect.unreachable();
    const d = parseFault({ fault: "collector-not-ready" });
    if (!d.ok) expect(d.error).toMatch(/node/);
    else expect.unreachable();
  });
});
