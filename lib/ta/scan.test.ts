/**
 * The scanner is a fast path: whenever it answers, its answer must be the general path's (JSON.parse, then
 * extractJobTargets), byte for byte; whenever the general path fails, it must not answer. Checked on generated answers in
 * the TAs' compact shape (with hostile strings, Go's HTML escapes, repeated labels and keys, non-ASCII), on the same
 * answers corrupted byte by byte, and with collector lists carried from one answer to the next as a poll does.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { extractJobTargets, type ExtractResult } from "./extract";
import { scanJobTargets } from "./scan";

const general = (bytes: Uint8Array): ExtractResult | null => {
  try {
    return extractJobTargets(JSON.parse(Buffer.from(bytes).toString("utf8")));
  } catch {
    return null;
  }
};

/** The scanner's answer agrees with the general path's; returns the scanner's answer. */
function agrees(bytes: Uint8Array, previous: readonly string[] = []) {
  const fast = scanJobTargets(bytes, previous);
  const slow = general(bytes);
  if (fast) {
    expect(slow, Buffer.from(bytes).toString("utf8").slice(0, 400)).not.toBeNull();
    expect(slow!.ok).toBe(true);
    if (slow!.ok) {
      expect(fast.targets).toEqual(slow!.value.targets);
      expect([...fast.collectors]).toEqual(slow!.value.collectors);
    }
  }
  return fast;
}

type Pairs = [string, string][];
type Entry = { name: string; items: readonly { address: string; labels: Pairs }[] };
const s = (x: string) => JSON.stringify(x);
/** Compact serialisation, as a TA writes it; pairs may repeat a key (JSON allows it, JSON.parse keeps the last). */
function serialise(entries: Entry[], prefix: string, goEscapes: boolean): string {
  const text =
    "{" +
    entries
      .map(
        (e) =>
          `${s(e.name)}:{"_link":${s(prefix + e.name)},"targets":[` +
          e.items.map((it) => `{"targets":[${s(it.address)}],"labels":{${it.labels.map(([k, v]) => `${s(k)}:${s(v)}`).join(",")}}}`).join(",") +
          "]}",
      )
      .join(",") +
    "}\n";
  // Go's encoding/json escapes <, > and & inside strings (they appear nowhere else in this JSON)
  return goEscapes ? text.replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026") : text;
}

const hostile = fc.constantFrom('"', "\\", "<script>alert(1)</script>", "\u2028", "\u0000", "\t", "é", "日本", "\ud800", "]},\"", '"targets":[', "\\u0041", "/", "%2F");
const text = fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 10 }) }, { weight: 2, arbitrary: hostile }, { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 4 }) });
const podName = fc.oneof(
  { weight: 8, arbitrary: fc.stringMatching(/^cloudwatch-agent-[a-z0-9]{5}$/) },
  { weight: 1, arbitrary: fc.constantFrom("12", "0", "a_b", "-x", "x y", "ü-pod", "__proto__", "a\"b", "") },
);
const labelKey = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("__address__", "__meta_kubernetes_namespace", "__meta_kubernetes_pod_name") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "__meta_kubernetes_pod_node_name",
      "__meta_kubernetes_node_name",
      "__meta_kubernetes_endpoint_node_name",
      "__meta_kubernetes_endpointslice_address_target_kind",
      "__meta_kubernetes_endpointslice_address_target_name",
    ),
  },
  { weight: 1, arbitrary: text },
);
const labelValue = fc.oneof({ weight: 3, arbitrary: fc.constantFrom("", "Node", "Pod", "ip-10-0-1-2.ec2.internal") }, { weight: 2, arbitrary: text });
const item = fc.record({ address: fc.oneof(fc.constant("10.0.0.1:9100"), text), labels: fc.array(fc.tuple(labelKey, labelValue), { maxLength: 6 }) });
const entry = fc.record({ name: podName, items: fc.oneof({ weight: 3, arbitrary: fc.constant([] as { address: string; labels: Pairs }[]) }, { weight: 2, arbitrary: fc.array(item, { maxLength: 3 }) }) });
const prefix = fc.oneof({ weight: 4, arbitrary: fc.constant("/jobs/serviceMonitor%2Fobs%2Fnode-exporter%2F0/targets?collector_id=") }, { weight: 1, arbitrary: text });
const answer = fc.record({ entries: fc.array(entry, { maxLength: 6 }), prefix, go: fc.boolean() });

describe("scanJobTargets", () => {
  it("reads a TA's answer as the general path does, and gives back the previous collector list when it is repeated", () => {
    const entries: Entry[] = [
      { name: "cloudwatch-agent-a1b2c", items: [{ address: "10.0.1.5:9100", labels: [["__address__", "10.0.1.5:9100"], ["__meta_kubernetes_namespace", 'a"b\\c<script>'], ["__meta_kubernetes_pod_node_name", "ip-10-0-1-5"]] }] },
      { name: "cloudwatch-agent-d3e4f", items: [] },
      {
        name: "cloudwatch-agent-g5h6i",
        items: [
          { address: "10.0.2.7:8080", labels: [["__meta_kubernetes_endpointslice_address_target_kind", "Node"], ["__meta_kubernetes_endpointslice_address_target_name", "ip-10-0-2-7"]] },
          { address: "static.example:443", labels: [] },
        ],
      },
    ];
    const first = agrees(Buffer.from(serialise(entries, "/jobs/kubelet/targets?collector_id=", true)));
    expect(first).toEqual({
      collectors: ["cloudwatch-agent-a1b2c", "cloudwatch-agent-d3e4f", "cloudwatch-agent-g5h6i"],
      targets: [
        { address: "10.0.1.5:9100", node: "ip-10-0-1-5", collector: "cloudwatch-agent-a1b2c" },
        { address: "10.0.2.7:8080", node: "ip-10-0-2-7", collector: "cloudwatch-agent-g5h6i" },
        { address: "static.example:443", node: null, collector: "cloudwatch-agent-g5h6i" },
      ],
    });
    // the next job: same collectors, another link prefix, other targets
    const moved = entries.map((e, i) => ({ ...e, items: i === 1 ? entries[0].items : [] }));
    const second = agrees(Buffer.from(serialise(moved, "/jobs/podMonitor%2Fobs%2Fx%2F0/targets?collector_id=", false)), first!.collectors);
    expect(second!.collectors).toBe(first!.collectors);
    expect(second!.targets).toEqual([{ address: "10.0.1.5:9100", node: "ip-10-0-1-5", collector: "cloudwatch-agent-d3e4f" }]);
    // a collector gone: a new list
    const third = agrees(Buffer.from(serialise(entries.slice(1), "/x?collector_id=", false)), first!.collectors);
    expect(third!.collectors).toEqual(["cloudwatch-agent-d3e4f", "cloudwatch-agent-g5h6i"]);
    expect(agrees(Buffer.from("{}\n"))).toEqual({ collectors: [], targets: [] });
  });

  it("leaves every other shape to the general path", () => {
    const ok = serialise([{ name: "pod-a", items: [{ address: "1.2.3.4:80", labels: [["k", "v"]] }] }], "/l?c=", false);
    expect(agrees(Buffer.from(ok))).not.toBeNull();
    const others = [
      JSON.stringify(JSON.parse(ok), null, 2), // whitespace
      ok.replace('{"_link":"/l?c=pod-a",', "{").replace('"]}}]}', '"]}}],"_link":"/l?c=pod-a"}'), // key order
      ok.replace('"_link":"/l?c=pod-a",', ""), // no link
      '{"pod-a":{"_link":"/l?c=pod-a","targets":null}}', // null targets
      ok.replace('["1.2.3.4:80"]', '["1.2.3.4:80","5.6.7.8:80"]'), // two addresses
      ok.replace(',"labels":{"k":"v"}', ""), // no labels
      ok.replace('"v"', "1"), // a number
      '{"12":{"_link":"/l?c=12","targets":[]}}', // an array-index key (JSON.parse would order it first)
      '{"a":{"_link":"/l?c=a","targets":[]},"a":{"_link":"/l?c=a","targets":[]}}', // a duplicate collector
      ok.slice(0, -5), // truncated
      `<html>${ok}`,
      "[]",
    ];
    for (const other of others) expect(agrees(Buffer.from(other)), other).toBeNull();
  });

  it("answers as JSON.parse + extractJobTargets would, or not at all, on generated answers", () => {
    let answered = 0;
    fc.assert(
      fc.property(answer, ({ entries, prefix, go }) => {
        if (agrees(Buffer.from(serialise(entries, prefix, go)))) answered++;
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(1000); // the fast path is exercised, not just declined
  });

  it("never answers differently on corrupted answers (a byte removed, inserted or replaced)", () => {
    const mutation = fc.record({ at: fc.nat(), kind: fc.constantFrom("remove", "insert", "replace"), byte: fc.oneof(fc.constantFrom(...Buffer.from('"\\{}[],: \n\t0a')), fc.integer({ min: 0, max: 255 })) });
    fc.assert(
      fc.property(answer, fc.array(mutation, { minLength: 1, maxLength: 3 }), ({ entries, prefix, go }, mutations) => {
        let bytes = Buffer.from(serialise(entries, prefix, go));
        for (const m of mutations) {
          const i = m.at % (bytes.length + 1);
          if (m.kind === "remove") bytes = Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)]);
          else if (m.kind === "insert") bytes = Buffer.concat([bytes.subarray(0, i), Buffer.from([m.byte]), bytes.subarray(i)]);
          else if (i < bytes.length) bytes[i] = m.byte;
        }
        agrees(bytes);
      }),
      { numRuns: 5000 },
    );
  });

  it("carries a collector list from answer to answer as a poll does, answering as the general path would", () => {
    const names = fc.uniqueArray(fc.stringMatching(/^agent-[a-z0-9]{1,3}$/), { minLength: 1, maxLength: 6 });
    const job = (pool: string[]) =>
      fc.record({
        pick: fc.subarray(pool),
        shuffle: fc.boolean(),
        items: fc.array(item, { maxLength: 2 }),
        extra: fc.option(fc.constantFrom("agent-new", "12", pool[0]), { nil: undefined }),
        prefix,
      });
    fc.assert(
      fc.property(
        names.chain((pool) => fc.tuple(fc.constant(pool), fc.array(job(pool), { minLength: 1, maxLength: 5 }))),
        ([pool, jobs]) => {
          let previous: readonly string[] = [];
          for (const j of [{ pick: pool, shuffle: false, items: [], extra: undefined, prefix: "/p?c=" }, ...jobs]) {
            const list = j.shuffle ? [...j.pick].reverse() : [...j.pick];
            if (j.extra !== undefined) list.push(j.extra);
            const entries: Entry[] = list.map((name, i) => ({ name, items: i === 0 ? j.items : [] }));
            const r = agrees(Buffer.from(serialise(entries, j.prefix, false)), previous);
            if (r) previous = r.collectors;
          }
        },
      ),
      { numRuns: 1500 },
    );
  });
});
