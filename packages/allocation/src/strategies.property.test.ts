/** Property-based checks of the allocation, routing and tracking rules (docs/target-allocator.md). */
import fc from "fast-check";
import { describe, it } from "vitest";
import type { Collector, Flavor, PodView, Role, StrategyName, Target } from "./model";
import { DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION, expectedRoute, keepsMonitor, monitorRole } from "./routing";
import { targetNode } from "./node";
import { allocate, expectedCollectorByNode } from "./strategies";
import { trackReduce, type TrackEvent } from "./tracking";

const nodeName = fc.constantFrom("n1", "n2", "n3", "n4", "n5");
const collectorsArb = fc
  .uniqueArray(fc.record({ id: fc.stringMatching(/^agent-[a-e]{1,2}$/), node: fc.oneof(nodeName, fc.constant("")) }), {
    selector: (c) => c.id,
    maxLength: 8,
  })
  .map((cs): Collector[] => cs);
const labelsArb = fc.oneof(
  fc.constant({}),
  nodeName.map((n) => ({ __meta_kubernetes_pod_node_name: n })),
  nodeName.map((n) => ({ __meta_kubernetes_node_name: n })),
  fc.tuple(nodeName, fc.constantFrom("Node", "Pod")).map(([n, k]) => ({
    __meta_kubernetes_endpointslice_address_target_name: n,
    __meta_kubernetes_endpointslice_address_target_kind: k,
  })),
);
const targetsArb = fc
  .uniqueArray(fc.record({ key: fc.stringMatching(/^[0-9a-f]{1,6}$/), address: fc.ipV4(), labels: labelsArb }), {
    selector: (t) => t.key,
    maxLength: 40,
  })
  .map((ts): Target[] => ts.map((t) => ({ ...t, job: "j", address: `${t.address}:9100` })));
const optionsArb = fc.record({
  strategy: fc.constantFrom<StrategyName>("consistent-hashing", "least-weighted", "per-node"),
  flavor: fc.constantFrom<Flavor>("upstream", "cloudwatch"),
  fallback: fc.constantFrom<"consistent-hashing" | null>("consistent-hashing", null),
});

describe("allocation properties", () => {
  it("every target gets at most one collector, only from the input set", () => {
    fc.assert(
      fc.property(targetsArb, collectorsArb, optionsArb, (targets, collectors, options) => {
        const { assignment, fallbackUsed } = allocate({ targets, collectors }, options);
        const ids = new Set(collectors.map((c) => c.id));
        if (assignment.size !== targets.length) return false;
        for (const t of targets) {
          const id = assignment.get(t.key);
          if (id === undefined || (id !== null && !ids.has(id))) return false;
        }
        return [...fallbackUsed].every((k) => assignment.get(k) != null);
      }),
    );
  });

  it("per-node keeps a target on its node's collector while that node has one (both flavors)", () => {
    fc.assert(
      fc.property(targetsArb, collectorsArb, optionsArb, (targets, collectors, options) => {
        const { assignment } = allocate({ targets, collectors }, { ...options, strategy: "per-node" });
        const byNode = expectedCollectorByNode(collectors);
        return targets.every((t) => {
          const node = targetNode(t.labels);
          return node === null || !byNode.has(node) || assignment.get(t.key) === byNode.get(node);
        });
      }),
    );
  });

  it("the fallback is used only where the flavor says", () => {
    fc.assert(
      fc.property(targetsArb, collectorsArb, optionsArb, (targets, collectors, options) => {
        const o = { ...options, strategy: "per-node" as const };
        const { assignment, fallbackUsed } = allocate({ targets, collectors }, o);
        const byNode = expectedCollectorByNode(collectors);
        return targets.every((t) => {
          const node = targetNode(t.labels);
          const eligible =
            o.fallback !== null && collectors.length > 0 && (node === null || (o.flavor === "cloudwatch" && !byNode.has(node)));
          if (fallbackUsed.has(t.key) !== eligible) return false;
          if (eligible || (node !== null && byNode.has(node))) return true;
          return assignment.get(t.key) === null; // no node collector and no fallback here: unassigned
        });
      }),
    );
  });

  it("non per-node strategies assign every target when there are collectors", () => {
    fc.assert(
      fc.property(targetsArb, collectorsArb, optionsArb, (targets, collectors, options) => {
        if (options.strategy === "per-node" || collectors.length === 0) return true;
        const { assignment } = allocate({ targets, collectors }, options);
        return [...assignment.values()].every((v) => v !== null);
      }),
    );
  });
});

describe("routing properties (one owner per monitor)", () => {
  const annotationsArb = fc.dictionary(
    fc.oneof(fc.constant(DEFAULT_SCRAPER_ANNOTATION), fc.constant(EARLIER_SCRAPER_ANNOTATION), fc.string()),
    fc.oneof(fc.constant("cluster-scraper"), fc.constant(""), fc.string()),
  );
  it("each monitor is kept by exactly one TA when routing is on", () => {
    fc.assert(
      fc.property(annotationsArb, fc.constantFrom(DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION), (annotations, key) => {
        const m = { kind: "ServiceMonitor" as const, namespace: "ns", name: "m", annotations, endpoints: 1 };
        const roles: Role[] = ["per-node", "cluster-scraper"];
        return roles.filter((r) => keepsMonitor(r, m, key, true)).length === 1;
      }),
    );
  });
  it("the dashboard's expected role with one key is the role a TA reading that key routes to", () => {
    fc.assert(
      fc.property(annotationsArb, fc.constantFrom(DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION), (annotations, key) => {
        return expectedRoute(annotations, [key]).role === monitorRole(annotations, key);
      }),
    );
  });
  it("with both keys, a known expected role is the role of every key the monitor carries", () => {
    fc.assert(
      fc.property(annotationsArb, (annotations) => {
        const { role, carried } = expectedRoute(annotations, [DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION]);
        const roles = carried.map((a) => monitorRole(annotations, a.key));
        return role === null ? new Set(roles).size === 2 : roles.every((r) => r === role);
      }),
    );
  });
});

describe("tracking properties (watch sessions)", () => {
  const podArb = fc.record({
    name: fc.constantFrom("a", "b", "c", "d", "e"),
    namespace: fc.constant("obs"),
    nodeName: fc.oneof(nodeName, fc.constant("")),
    terminating: fc.boolean(),
    phase: fc.constantFrom("Running", "Pending", "Failed", ""),
    ready: fc.boolean(),
  });
  const eventArb: fc.Arbitrary<TrackEvent> = fc.oneof(
    fc.record({ type: fc.constantFrom("ADDED" as const, "MODIFIED" as const, "DELETED" as const), pod: podArb }),
    fc.record({ type: fc.constant("session" as const), pods: fc.uniqueArray(podArb, { selector: (p) => p.name }) }),
  );
  const run = (events: TrackEvent[], mode: "ready-only" | "legacy") =>
    events.reduce<ReadonlyMap<string, PodView>>((s, e) => trackReduce(s, e, mode), new Map());

  it("ready-only: after a session the registered set equals the listed pods", () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 20 }), fc.uniqueArray(podArb, { selector: (p) => p.name }), (events, listed) => {
        const s = trackReduce(run(events, "ready-only"), { type: "session", pods: listed }, "ready-only");
        return s.size === listed.length && listed.every((p) => s.get(p.name) === p);
      }),
    );
  });

  it("legacy: a registered pod deleted between sessions stays registered", () => {
    const registrable = (p: PodView) => !!p.nodeName && !p.terminating;
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 20 }), podArb, fc.uniqueArray(podArb, { selector: (p) => p.name }), (events, gone, later) => {
        const relisted = later.filter((p) => p.name !== gone.name);
        const s0 = trackReduce(run(events, "legacy"), { type: "session", pods: [gone] }, "legacy");
        const s = trackReduce(s0, { type: "session", pods: relisted }, "legacy");
        return (s.has(gone.name) || !registrable(gone)) && relisted.filter(registrable).every((p) => s.has(p.name)) && [...s.values()].every((p) => p.nodeName !== "");
      }),
    );
  });
});
