import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { extractJobTargets } from "./extract";
import { jobTargetsSchema } from "./schemas";

const item = (addr: string, labels: Record<string, string>) => ({ targets: [addr], labels });

describe("extractJobTargets", () => {
  it("keeps address, node and collector of every target, and every collector", () => {
    const r = extractJobTargets({
      a: { _link: "/jobs/x/targets?collector_id=a", targets: [item("10.0.0.1:9100", { __meta_kubernetes_pod_node_name: "n1" })] },
      b: { _link: "/jobs/x/targets?collector_id=b", targets: [] },
      c: { targets: null },
      d: { targets: [item("1.2.3.4:443", {}), { targets: ["5.6.7.8:80"] }] },
    });
    expect(r).toEqual({
      ok: true,
      value: {
        collectors: ["a", "b", "c", "d"],
        targets: [
          { address: "10.0.0.1:9100", node: "n1", collector: "a" },
          { address: "1.2.3.4:443", node: null, collector: "d" },
          { address: "5.6.7.8:80", node: null, collector: "d" },
        ],
      },
    });
  });

  it("names the path of the first problem", () => {
    expect(extractJobTargets([])).toMatchObject({ ok: false, path: "(root)" });
    expect(extractJobTargets({ a: { targets: [{ targets: [] }] } })).toMatchObject({ ok: false, path: "a.targets.0.targets" });
    expect(extractJobTargets({ a: { targets: [{ targets: ["x"], labels: { k: 1 } }] } })).toMatchObject({ ok: false, path: "a.targets.0.labels.k" });
    expect(extractJobTargets({ a: "<html>" })).toMatchObject({ ok: false, path: "a" });
  });

  it("accepts exactly what the zod schema accepts, and extracts the same targets", () => {
    const scalar = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null), fc.boolean());
    const labels = fc.oneof(fc.dictionary(fc.constantFrom("__meta_kubernetes_pod_node_name", "__address__", "x"), fc.oneof(fc.string({ maxLength: 4 }), scalar)), scalar);
    const sdItem = fc.oneof(
      fc.record({ targets: fc.oneof(fc.array(fc.oneof(fc.string({ maxLength: 8 }), scalar), { maxLength: 2 }), scalar), labels }, { requiredKeys: ["targets"] }),
      scalar,
    );
    const entry = fc.oneof(
      fc.record({ _link: fc.oneof(fc.string({ maxLength: 5 }), scalar), targets: fc.oneof(fc.array(sdItem, { maxLength: 3 }), scalar) }, { requiredKeys: ["targets"] }),
      scalar,
    );
    const payload = fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), entry, { maxKeys: 4 }), scalar, fc.array(scalar));
    fc.assert(
      fc.property(payload, (p) => {
        const z = jobTargetsSchema.safeParse(p);
        const f = extractJobTargets(p);
        expect(f.ok).toBe(z.success);
        if (f.ok && z.success) {
          const fromZod = Object.entries(z.data).flatMap(([collector, e]) => e.targets.map((t) => ({ address: t.targets[0], collector })));
          expect(f.value.targets.map(({ address, collector }) => ({ address, collector }))).toEqual(fromZod);
          expect(f.value.collectors).toEqual(Object.keys(z.data));
        }
      }),
      { numRuns: 3000 },
    );
  });
});
