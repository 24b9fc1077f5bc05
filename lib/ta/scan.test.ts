/**
 * The scanner is a fast path: whenever it answers, its answer must be the general path's (JSON.parse, then
 * extractJobTargets), byte for byte; whenever the general path fails, it must not answer. Checked on generated answers in
 * the TAs' compact shape (with hostile strings, Go's HTML escapes, repeated labels and keys, non-ASCII), on the same
 * answers corrupted byte by byte, and with collector lists carried from one answer to the next as a poll does. Every
 * answer is also fed to the streaming scanner in chunks (random cuts, one byte at a time, and one cut at each position
 * inside an escape, a multi-byte UTF-8 character, a number or a keyword), which must answer as the whole-buffer scan does.
 */
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { extractJobTargets, type AssignedTarget, type ExtractResult } from "./extract";
import { JobTargetsScanner, scanJobTargets, type KeptValues } from "./scan";

const general = (bytes: Uint8Array): ExtractResult | null => {
  try {
    return extractJobTargets(JSON.parse(Buffer.from(bytes).toString("utf8")));
  } catch {
    return null;
  }
};

/**
 * The streaming scanner fed `bytes` cut at `cuts` (positions, in any order), and the most bytes it held meanwhile. With
 * `reused`, every piece is fed as a view of one Buffer that is overwritten after each feed, as a connection reading into
 * one buffer does (server/net/fast-http.ts): the scanner must keep nothing of a chunk but copies.
 */
function streamed(bytes: Uint8Array, cuts: Iterable<number>, previous: readonly string[] = [], reused = false) {
  const scanner = new JobTargetsScanner(previous);
  const scratch = Buffer.alloc(reused ? bytes.length : 0);
  let from = 0;
  let retained = 0;
  for (const cut of [...cuts, bytes.length].map((c) => Math.min(c, bytes.length)).sort((a, b) => a - b)) {
    if (reused) {
      scratch.set(bytes.subarray(from, cut));
      scanner.feed(scratch.subarray(0, cut - from));
      scratch.fill(0x22);
    } else scanner.feed(bytes.subarray(from, cut));
    retained = Math.max(retained, scanner.retainedBytes);
    from = cut;
  }
  return { result: scanner.end(), retained };
}

const DIGIT_OR_KEYWORD = new Set(Buffer.from("0123456789-+.eEnultrfas"));
/** Positions just after a byte that starts or continues an escape, a UTF-8 sequence, a number or a keyword. */
function insideTokens(bytes: Uint8Array): number[] {
  const at: number[] = [];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x5c || bytes[i] >= 0x80 || DIGIT_OR_KEYWORD.has(bytes[i])) at.push(i + 1);
  // at most 12 of them, spread over the answer (the property tests' thousands of answers cover the rest)
  return at.length <= 12 ? at : Array.from({ length: 12 }, (_, k) => at[Math.floor(((k + 0.5) * at.length) / 12)]);
}

const everyByte = (bytes: Uint8Array) => Array.from({ length: bytes.length }, (_, i) => i);

/**
 * The scanner's answer agrees with the general path's, and fed in chunks (`cuts`, one byte at a time, one cut inside
 * each kind of token) it answers as it does fed whole; returns the scanner's answer.
 */
function agrees(bytes: Uint8Array, previous: readonly string[] = [], cuts: readonly number[] = []) {
  const fast = scanJobTargets(bytes, previous);
  const splits = [cuts, everyByte(bytes), ...insideTokens(bytes).map((c) => [c])];
  for (const [k, split] of splits.entries()) {
    const { result } = streamed(bytes, split, previous, k === 0);
    // compared cheaply first: the failure message is only built for a failure
    if (!isDeepStrictEqual(result, fast) || (result?.collectors === previous) !== (fast?.collectors === previous)) {
      const message = `cut at ${split.slice(0, 20).join(",")}: ${Buffer.from(bytes).toString("utf8").slice(0, 200)}`;
      expect(result, message).toEqual(fast);
      expect(result?.collectors === previous, message).toBe(fast?.collectors === previous);
    }
  }
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
/** where a streamed answer is cut into chunks (positions past its end are its end) */
const cuts = fc.array(fc.nat({ max: 2000 }), { maxLength: 8 });

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
      fc.property(answer, cuts, ({ entries, prefix, go }, at) => {
        if (agrees(Buffer.from(serialise(entries, prefix, go)), [], at)) answered++;
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(1000); // the fast path is exercised, not just declined
  });

  it("never answers differently on corrupted answers (a byte removed, inserted or replaced)", () => {
    const mutation = fc.record({ at: fc.nat(), kind: fc.constantFrom("remove", "insert", "replace"), byte: fc.oneof(fc.constantFrom(...Buffer.from('"\\{}[],: \n\t0a')), fc.integer({ min: 0, max: 255 })) });
    fc.assert(
      fc.property(answer, fc.array(mutation, { minLength: 1, maxLength: 3 }), cuts, ({ entries, prefix, go }, mutations, at) => {
        let bytes = Buffer.from(serialise(entries, prefix, go));
        for (const m of mutations) {
          const i = m.at % (bytes.length + 1);
          if (m.kind === "remove") bytes = Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)]);
          else if (m.kind === "insert") bytes = Buffer.concat([bytes.subarray(0, i), Buffer.from([m.byte]), bytes.subarray(i)]);
          else if (i < bytes.length) bytes[i] = m.byte;
        }
        agrees(bytes, [], at);
      }),
      { numRuns: 5000 },
    );
  });

  it("reads the items of one job, which share their label keys, as the general path does, whole and corrupted", () => {
    // one key list per answer, as a real TA's job gives; each item may drop, change or lengthen a key, or cut the list
    const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom("drop", "change", "lengthen", "shorten", "cut"), key: labelKey });
    const jobItem = fc.record({ address: fc.constantFrom("10.0.0.1:9100", "10.0.0.2:9100"), values: fc.array(labelValue, { minLength: 8, maxLength: 8 }), edits: fc.array(edit, { maxLength: 2 }) });
    const jobAnswer = fc.record({
      keys: fc.array(labelKey, { minLength: 1, maxLength: 8 }),
      items: fc.array(jobItem, { minLength: 2, maxLength: 6 }),
      go: fc.boolean(),
      mutation: fc.option(fc.record({ at: fc.nat(), byte: fc.constantFrom(...Buffer.from('"\\{}[],:a\n')) }), { nil: undefined }),
    });
    let answered = 0;
    fc.assert(
      fc.property(jobAnswer, cuts, ({ keys, items, go, mutation }, at) => {
        const entries: Entry[] = [
          {
            name: "agent-a",
            items: items.map((it) => {
              let ks = [...keys];
              for (const e of it.edits) {
                const i = e.at % ks.length;
                if (e.kind === "drop") ks.splice(i, 1);
                else if (e.kind === "change") ks[i] = e.key;
                else if (e.kind === "lengthen") ks[i] = `${ks[i]}x`;
                else if (e.kind === "shorten") ks[i] = ks[i].slice(0, -1);
                else ks = ks.slice(0, i);
                if (!ks.length) break;
              }
              return { address: it.address, labels: ks.map((k, i) => [k, it.values[i % it.values.length]] as [string, string]) };
            }),
          },
        ];
        const bytes = Buffer.from(serialise(entries, "/p?c=", go));
        if (mutation) bytes[mutation.at % bytes.length] = mutation.byte;
        if (agrees(bytes, [], at)) answered++;
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(1000);
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
        cuts,
        ([pool, jobs], at) => {
          let previous: readonly string[] = [];
          for (const j of [{ pick: pool, shuffle: false, items: [], extra: undefined, prefix: "/p?c=" }, ...jobs]) {
            const list = j.shuffle ? [...j.pick].reverse() : [...j.pick];
            if (j.extra !== undefined) list.push(j.extra);
            const entries: Entry[] = list.map((name, i) => ({ name, items: i === 0 ? j.items : [] }));
            const r = agrees(Buffer.from(serialise(entries, j.prefix, false)), previous, at);
            if (r) previous = r.collectors;
          }
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe("kept label values shared by the answers of a reading", () => {
  const NODE_KEYS = ["__meta_kubernetes_pod_node_name", "__meta_kubernetes_node_name", "__meta_kubernetes_endpointslice_address_target_kind", "__meta_kubernetes_endpointslice_address_target_name"];
  // values of one length that differ in one byte, longer and shorter ones, empty, non-ASCII, and one Go escapes ("<")
  const value = fc.constantFrom("ip-10-0-1-1", "ip-10-0-1-2", "ip-10-0-1-22", "ip-1", "", "ü-node", "Node", "Pod", "ip<10");
  const target = fc.record({ collector: fc.constantFrom("agent-a", "agent-b", "agent-c"), labels: fc.array(fc.tuple(fc.constantFrom(...NODE_KEYS), value), { minLength: 1, maxLength: 3 }) });
  const job = fc.record({ targets: fc.array(target, { maxLength: 5 }), go: fc.boolean() });

  it("reads every answer of a reading as the general path does, whole and cut, when a collector's values repeat or change", () => {
    fc.assert(
      fc.property(fc.array(job, { minLength: 1, maxLength: 6 }), cuts, (jobs, at) => {
        const whole: KeptValues = new Map();
        const cut: KeptValues = new Map();
        for (const j of jobs) {
          const entries: Entry[] = ["agent-a", "agent-b", "agent-c"].map((name) => ({
            name,
            items: j.targets.filter((t) => t.collector === name).map((t, i) => ({ address: `10.0.0.${i}:9100`, labels: t.labels as Pairs })),
          }));
          const bytes = Buffer.from(serialise(entries, "/jobs/j/targets?collector_id=", j.go));
          const slow = general(bytes);
          expect(slow?.ok).toBe(true);
          const fast = scanJobTargets(bytes, [], whole);
          expect(fast?.targets).toEqual(slow?.ok && slow.value.targets);
          const scanner = new JobTargetsScanner([], cut);
          let from = 0;
          for (const c of [...at, bytes.length].map((x) => Math.min(x, bytes.length)).sort((a, b) => a - b)) {
            scanner.feed(bytes.subarray(from, c));
            from = c;
          }
          expect(scanner.end()?.targets).toEqual(slow?.ok && slow.value.targets);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it("remembers each collector's last value of each kept label, never an escaped one", () => {
    const kept: KeptValues = new Map();
    const answer = (node: string, go = false) =>
      Buffer.from(serialise([{ name: "agent-a", items: [{ address: "10.0.0.1:9100", labels: [["__meta_kubernetes_pod_node_name", node], ["__meta_kubernetes_namespace", "obs"]] }] }], "/p?c=", go));
    expect(scanJobTargets(answer("ip-10-0-1-1"), [], kept)?.targets[0].node).toBe("ip-10-0-1-1");
    expect(kept.get("agent-a")?.get("__meta_kubernetes_pod_node_name")).toBe("ip-10-0-1-1");
    expect(scanJobTargets(answer("ip-10-0-1-2"), [], kept)?.targets[0].node).toBe("ip-10-0-1-2");
    expect(kept.get("agent-a")?.get("__meta_kubernetes_pod_node_name")).toBe("ip-10-0-1-2");
    expect(scanJobTargets(answer("ip<1", true), [], kept)?.targets[0].node).toBe("ip<1");
    expect(kept.get("agent-a")?.get("__meta_kubernetes_pod_node_name")).toBe("ip-10-0-1-2");
    expect(kept.get("agent-a")?.has("__meta_kubernetes_namespace")).toBe(false);
  });
});

describe("JobTargetsScanner", () => {
  /** A job's answer at the dashboard's scale: 5,000 collectors, a target on every third, ten labels each. */
  const large = (collectors: readonly string[]) =>
    Buffer.from(
      serialise(
        collectors.map((name, i) => ({
          name,
          items:
            i % 3 === 0
              ? [
                  {
                    address: `10.0.${i >> 8}.${i & 255}:9100`,
                    labels: [
                      ["__address__", `10.0.${i >> 8}.${i & 255}:9100`],
                      ["__meta_kubernetes_namespace", "observability"],
                      ["__meta_kubernetes_pod_name", `node-exporter-${i}`],
                      ["__meta_kubernetes_pod_node_name", `ip-10-0-${i >> 8}-${i & 255}.ec2.internal`],
                      ["__meta_kubernetes_pod_label_app_kubernetes_io_name", "node-exporter"],
                      ["__meta_kubernetes_pod_ip", `10.0.${i >> 8}.${i & 255}`],
                      ["__meta_kubernetes_pod_container_port_number", "9100"],
                      ["__meta_kubernetes_pod_ready", "true"],
                      ["__meta_kubernetes_pod_phase", "Running"],
                      ["__meta_kubernetes_pod_uid", `4f8c2a7e-0000-4000-8000-${String(i).padStart(12, "0")}`],
                    ] as Pairs,
                  },
                ]
              : [],
        })),
        "/jobs/serviceMonitor%2Fobs%2Fnode-exporter%2F0/targets?collector_id=",
        true,
      ),
    );
  const names = Array.from({ length: 5000 }, (_, i) => `cloudwatch-agent-${i.toString(36).padStart(5, "0")}`);

  it("holds one unit's bytes of a large answer, never the answer, however it is cut", () => {
    const bytes = large(names);
    expect(bytes.length).toBeGreaterThan(1_000_000);
    const whole = scanJobTargets(bytes);
    expect(whole!.collectors).toHaveLength(5000);
    expect(whole!.targets).toHaveLength(1667);
    for (const size of [65536, 16384, 1000, 7, 1]) {
      const at = Array.from({ length: Math.ceil(bytes.length / size) }, (_, k) => k * size);
      const { result, retained } = streamed(bytes, at, whole!.collectors);
      expect(result!.collectors, `chunks of ${size}`).toBe(whole!.collectors);
      expect(result!.targets).toEqual(whole!.targets);
      // an item is about 600 bytes: the carry holds at most about twice the longest unit that crossed a chunk's end
      expect(retained, `chunks of ${size}`).toBeLessThan(4096);
    }
  });

  it("refuses as soon as the shape is not the TAs', and tells when the shape has been seen", () => {
    const pretty = new JobTargetsScanner();
    pretty.feed(Buffer.from('{\n  "a'));
    expect(pretty.refused).toBe(true);
    expect(pretty.shapeSeen).toBe(false);
    const compact = new JobTargetsScanner();
    compact.feed(Buffer.from('{"pod-a":{"_link":"/l?c=pod-a","targ'));
    expect(compact.shapeSeen).toBe(false);
    compact.feed(Buffer.from('ets":[{"targets":["1.2.3.4:80"],"labels":{"k":"v"}},{"targets":["1.2.3.6:80"],"labels":{"k":"v"}},{"targets":["1.2.3.5:80"],"labels":{"k":'));
    expect(compact.shapeSeen).toBe(true);
    expect(compact.refused).toBe(false);
    compact.feed(Buffer.from('1}}]}}'));
    expect(compact.end()).toBeNull();
    expect(compact.refused).toBe(true);
    // cut off: a whole-buffer scan of the same bytes refuses them too
    const cut = new JobTargetsScanner();
    cut.feed(Buffer.from('{"pod-a":{"_link":"/l?c=pod-a","targets":[]}'));
    expect(cut.refused).toBe(false);
    expect(cut.end()).toBeNull();
  });
});

describe("a job's targets from the TA's last reading", () => {
  const AGENTS = ["agent-a", "agent-b", "agent-c", "agent-d"];
  const target = fc.record({
    collector: fc.constantFrom(...AGENTS),
    address: fc.constantFrom("10.0.0.1:9100", "10.0.0.2:9100", "10.0.0.1:10250", "10.0.0.1:910", "é:1", 'a"b', "<x>"),
    node: fc.constantFrom("ip-1", "ip-2", "ip-22", "", "ü", "Node"),
  });
  type T = { collector: string; address: string; node: string };
  const targets = fc.uniqueArray(target, { maxLength: 8, selector: (t) => `${t.collector} ${t.address}` });
  /** the answer listing `ts` in this order within each collector (collectors in the TA's sorted order) */
  const answer = (ts: T[], go: boolean) =>
    Buffer.from(
      serialise(
        AGENTS.map((name) => ({ name, items: ts.filter((t) => t.collector === name).map((t) => ({ address: t.address, labels: [["__meta_kubernetes_pod_node_name", t.node]] as Pairs })) })),
        "/jobs/j/targets?collector_id=",
        go,
      ),
    );
  const scanCut = (bytes: Uint8Array, at: number[], earlier: readonly AssignedTarget[]) => {
    const scanner = new JobTargetsScanner([], null, earlier);
    let from = 0;
    for (const c of [...at, bytes.length].map((x) => Math.min(x, bytes.length)).sort((a, b) => a - b)) {
      scanner.feed(bytes.subarray(from, c));
      from = c;
    }
    return scanner.end();
  };

  it("reads the next answer as the general path does, whatever changed, and keeps the earlier objects of unchanged targets", () => {
    // the next answer: the same targets, the same in another order (a TA walking a Go map), or others (some equal)
    const change = fc.oneof(fc.constant("same" as const), fc.constant("reversed" as const), targets);
    fc.assert(
      fc.property(targets, change, fc.boolean(), cuts, (before, next, go, at) => {
        const earlier = scanJobTargets(answer(before, go))!.targets;
        const after = next === "same" ? before : next === "reversed" ? [...before].reverse() : next;
        const bytes = answer(after, go);
        const slow = general(bytes);
        expect(slow?.ok).toBe(true);
        for (const fast of [scanJobTargets(bytes, [], null, earlier), scanCut(bytes, at, earlier)]) {
          expect(fast?.targets).toEqual(slow?.ok && slow.value.targets);
          // unchanged targets are the earlier objects, but for an address with an escape or a non-ASCII character (decoded)
          const kept = (t: AssignedTarget) => /^[\x20-\x7e]*$/.test(t.address) && !t.address.includes('"') && !(go && /[<>]/.test(t.address));
          if (next === "same") fast!.targets.forEach((t, i) => expect(t === earlier[i]).toBe(kept(t)));
          if (next === "reversed") for (const t of fast!.targets) expect(earlier.includes(t)).toBe(kept(t));
        }
      }),
      { numRuns: 1500 },
    );
  });
});
