import { describe, expect, it } from "vitest";
import type { Collector, StrategyName, Target } from "./model";
import { HashRing, RingCapacityError } from "./hashring";
import { allocate, buildsRing, expectedCollectorByNode, type AllocationOptions } from "./strategies";

const t = (key: string, node: string | null, address = `${key}.addr:9100`): Target => ({
  key,
  job: "job",
  address,
  labels: node === null ? { __address__: address } : { __address__: address, __meta_kubernetes_pod_node_name: node },
});
const c = (id: string, node: string): Collector => ({ id, node });
const opts = (o: Partial<AllocationOptions>): AllocationOptions => ({ strategy: "per-node", flavor: "cloudwatch", fallback: "consistent-hashing", ...o });
const COLLECTORS = [c("agent-b", "n2"), c("agent-a", "n1")];

describe("expectedCollectorByNode", () => {
  it("picks the lexicographically smaller pod on a shared node and skips unscheduled", () => {
    const m = expectedCollectorByNode([c("agent-z", "n1"), c("agent-b", "n1"), c("agent-c", "n2"), c("agent-0", "")]);
    expect([...m]).toEqual([["n1", "agent-b"], ["n2", "agent-c"]]);
  });
});

describe("consistent-hashing", () => {
  it("follows the ring keyed by address only", () => {
    const targets = [t("k1", "n1", "10.0.0.1:9100"), t("k2", null, "10.0.0.2:9100")];
    const r = allocate({ targets, collectors: COLLECTORS }, opts({ strategy: "consistent-hashing" }));
    const ring = new HashRing(["agent-a", "agent-b"]);
    expect(r.assignment.get("k1")).toBe(ring.locate("10.0.0.1:9100"));
    expect(r.assignment.get("k2")).toBe(ring.locate("10.0.0.2:9100"));
    expect(r.fallbackUsed.size).toBe(0);
  });
  it("label changes never move a target", () => {
    const a = allocate({ targets: [t("k1", "n1", "10.0.0.9:80")], collectors: COLLECTORS }, opts({ strategy: "consistent-hashing" }));
    const b = allocate({ targets: [t("k1", "n7", "10.0.0.9:80")], collectors: COLLECTORS }, opts({ strategy: "consistent-hashing" }));
    expect(a.assignment.get("k1")).toBe(b.assignment.get("k1"));
  });
});

describe("least-weighted", () => {
  const o = opts({ strategy: "least-weighted" });
  it("spreads new targets evenly, ties to the smallest id", () => {
    const r = allocate({ targets: [t("k1", null), t("k2", null), t("k3", null)], collectors: COLLECTORS }, o);
    expect([...r.assignment]).toEqual([["k1", "agent-a"], ["k2", "agent-b"], ["k3", "agent-a"]]);
  });
  it("keeps previous assignments whose collector is present", () => {
    const previous = new Map([["k1", "agent-b"], ["k2", "agent-b"], ["k3", "gone"]]);
    const r = allocate({ targets: [t("k1", null), t("k2", null), t("k3", null), t("k4", null)], collectors: COLLECTORS, previous }, o);
    expect(r.assignment.get("k1")).toBe("agent-b");
    expect(r.assignment.get("k2")).toBe("agent-b");
    expect(r.assignment.get("k3")).toBe("agent-a");
    expect(r.assignment.get("k4")).toBe("agent-a");
  });
  it("does not depend on input order", () => {
    const ts = Array.from({ length: 50 }, (_, i) => t(`k${i}`, null));
    const a = allocate({ targets: ts, collectors: COLLECTORS }, o);
    const b = allocate({ targets: [...ts].reverse(), collectors: [...COLLECTORS].reverse() }, o);
    for (const x of ts) expect(b.assignment.get(x.key)).toBe(a.assignment.get(x.key));
  });
});

describe("per-node (fallback and tie-break per flavor)", () => {
  const targets = [t("on-n1", "n1"), t("on-n2", "n2"), t("on-n9", "n9"), t("nodeless", null)];
  const ring = new HashRing(["agent-a", "agent-b"]);

  it("places targets on their node's collector", () => {
    for (const flavor of ["upstream", "cloudwatch"] as const) {
      const r = allocate({ targets, collectors: COLLECTORS }, opts({ flavor }));
      expect(r.assignment.get("on-n1")).toBe("agent-a");
      expect(r.assignment.get("on-n2")).toBe("agent-b");
    }
  });
  it("upstream: fallback only for nodeless; a node without collector stays unassigned", () => {
    const r = allocate({ targets, collectors: COLLECTORS }, opts({ flavor: "upstream" }));
    expect(r.assignment.get("on-n9")).toBeNull();
    expect(r.assignment.get("nodeless")).toBe(ring.locate("nodeless.addr:9100"));
    expect([...r.fallbackUsed]).toEqual(["nodeless"]);
  });
  it("cloudwatch: fallback also for a node without collector", () => {
    const r = allocate({ targets, collectors: COLLECTORS }, opts({ flavor: "cloudwatch" }));
    expect(r.assignment.get("on-n9")).toBe(ring.locate("on-n9.addr:9100"));
    expect(r.assignment.get("nodeless")).toBe(ring.locate("nodeless.addr:9100"));
    expect([...r.fallbackUsed].sort()).toEqual(["nodeless", "on-n9"]);
  });
  it("no fallback: those targets stay unassigned", () => {
    for (const flavor of ["upstream", "cloudwatch"] as const) {
      const r = allocate({ targets, collectors: COLLECTORS }, opts({ flavor, fallback: null }));
      expect(r.assignment.get("on-n9")).toBeNull();
      expect(r.assignment.get("nodeless")).toBeNull();
      expect(r.assignment.get("on-n1")).toBe("agent-a");
      expect(r.fallbackUsed.size).toBe(0);
    }
  });
  it("two collectors on one node: the smaller pod name wins", () => {
    const r = allocate({ targets, collectors: [c("agent-z", "n1"), c("agent-m", "n1")] }, opts({}));
    expect(r.assignment.get("on-n1")).toBe("agent-m");
  });
  it("an unscheduled collector owns no node but can take fallback targets", () => {
    const r = allocate({ targets: [t("x", "n1"), t("y", null)], collectors: [c("agent-u", "")] }, opts({}));
    expect(r.assignment.get("x")).toBe("agent-u"); // cloudwatch fallback over all collectors
    expect(r.fallbackUsed.has("x")).toBe(true);
    const up = allocate({ targets: [t("x", "n1")], collectors: [c("agent-u", "")] }, opts({ flavor: "upstream" }));
    expect(up.assignment.get("x")).toBeNull();
  });
});

describe("no collectors", () => {
  const previous = new Map([["k1", "agent-a"]]);
  const targets = [t("k1", "n1"), t("k2", "n2")];
  it("cloudwatch keeps the previous mapping", () => {
    for (const strategy of ["per-node", "consistent-hashing", "least-weighted"] as const) {
      const r = allocate({ targets, collectors: [], previous }, opts({ strategy }));
      expect([...r.assignment]).toEqual([["k1", "agent-a"], ["k2", null]]);
    }
  });
  it("upstream (or no previous) unassigns everything", () => {
    const r = allocate({ targets, collectors: [], previous }, opts({ flavor: "upstream" }));
    expect([...r.assignment.values()]).toEqual([null, null]);
    const r2 = allocate({ targets, collectors: [] }, opts({}));
    expect([...r2.assignment.values()]).toEqual([null, null]);
  });
});

describe("the ring's limit: a real allocator panics building a ring of more than 1,061 collectors", () => {
  const collectors = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `agent-${String(i).padStart(5, "0")}`, node: `node-${i}` }));
  const targets = [{ key: "k", job: "probe", address: "status.example.com:443", labels: { __address__: "status.example.com:443" } }];
  const options = (strategy: StrategyName, fallback: "consistent-hashing" | null) => ({ strategy, fallback, flavor: "upstream" as const });

  it("consistent-hashing and per-node with its fallback: 1,061 collectors allocate, 1,062 throw the allocators' panic", () => {
    for (const o of [options("consistent-hashing", null), options("per-node", "consistent-hashing")]) {
      expect(allocate({ targets, collectors: collectors(1061) }, o).assignment.get("k"), o.strategy).not.toBeUndefined();
      expect(() => allocate({ targets, collectors: collectors(1062) }, o), o.strategy).toThrow(RingCapacityError);
      expect(() => allocate({ targets: [], collectors: collectors(1062) }, o), `${o.strategy} without targets`).toThrow(/not enough room to distribute partitions/);
    }
  });

  it("per-node without fallback and least-weighted build no ring: 1,062 collectors allocate", () => {
    for (const o of [options("per-node", null), options("least-weighted", null)]) {
      expect(() => allocate({ targets, collectors: collectors(1062) }, o), o.strategy).not.toThrow();
    }
    expect(buildsRing(options("per-node", null))).toBe(false);
    expect(buildsRing(options("per-node", "consistent-hashing"))).toBe(true);
  });
});
