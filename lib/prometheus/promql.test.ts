import { describe, expect, it } from "vitest";
import { churnQueries, counterIncrease, duration, escapeLabelValue, escapeRegex, flappingBucketsQuery, parseMatcher, selector } from "./promql";

describe("escaping", () => {
  it("escapes backslashes, quotes and newlines in label values", () => {
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    expect(selector("m", 'x"} or vector(1) #')).toBe('m{cluster="x\\"} or vector(1) #"}');
  });

  it("escapes regex metacharacters of pod names before the string escape", () => {
    expect(escapeRegex("agent-1.a+b")).toBe("agent-1\\.a\\+b");
    expect(flappingBucketsQuery("c", [], ["p.1", "p2"], 60_000)).toContain('pod=~"p\\\\.1|p2"');
  });
});

describe("parseMatcher", () => {
  it("accepts the four operators and unescapes the value", () => {
    expect(parseMatcher('job="allocation-lens"')).toEqual({ ok: true, matcher: { name: "job", op: "=", value: "allocation-lens" } });
    expect(parseMatcher(' namespace =~ "lens-.*" ')).toEqual({ ok: true, matcher: { name: "namespace", op: "=~", value: "lens-.*" } });
    expect(parseMatcher('env!="a\\"b"')).toEqual({ ok: true, matcher: { name: "env", op: "!=", value: 'a"b' } });
    expect(parseMatcher('x!~"y"')).toMatchObject({ ok: true, matcher: { op: "!~" } });
  });

  it("rejects what is not one matcher, and the labels the dashboard sets itself", () => {
    for (const bad of ["job=allocation-lens", 'job="a",env="b"', '1job="a"', 'job=="a"', 'job="a" or vector(1)', "", 'job="a\nb"']) {
      expect(parseMatcher(bad), bad).toMatchObject({ ok: false, message: expect.stringMatching(/label matcher/) });
    }
    expect(parseMatcher('cluster="x"')).toMatchObject({ ok: false, message: expect.stringMatching(/cluster label/) });
    expect(parseMatcher('__name__="x"')).toMatchObject({ ok: false });
  });

  it("round-trips through selector", () => {
    const m = parseMatcher('job="a\\\\b\\"c"');
    if (!m.ok) throw new Error(m.message);
    expect(selector("m", "c", [], [m.matcher])).toBe('m{cluster="c",job="a\\\\b\\"c"}');
  });
});

describe("queries", () => {
  it("formats durations in seconds when exact", () => {
    expect(duration(60_000)).toBe("60s");
    expect(duration(1500)).toBe("1500ms");
    expect(duration(0)).toBe("1ms");
  });

  it("asks per-replica counter steps for the timeline, max over replicas for gauges and the flapping ranking", () => {
    const job = parseMatcher('job="lens"');
    if (!job.ok) throw new Error();
    const q = churnQueries("prod", [job.matcher], 60_000, 3_600_000);
    const sel = 'allocation_lens_readiness_transitions_total{cluster="prod",job="lens"}';
    const reset = `resets(${sel}[60s]) > 0`;
    expect(q.readiness).toBe(`((${sel} - ${sel} offset 60s) >= 0 unless ${reset}) or ((${sel} - min_over_time(${sel}[60s])) unless ${sel} offset 60s unless ${reset}) or increase(${sel}[60s])`);
    expect(q.reassignments).toContain("allocation_lens_target_reassignments_total{");
    expect(q.locality).toBe('max by (role) (avg_over_time(allocation_lens_locality_ratio{cluster="prod",job="lens"}[60s]))');
    expect(q.ghosts).toContain('allocation_lens_targets{cluster="prod",class="ghost",job="lens"}[60s]');
    expect(q.unassigned).toContain("max_over_time(allocation_lens_unassigned_targets{");
    expect(q.flapping).toMatch(/^topk\(20, max by \(role, pod, node\) \(.*offset 3600s.*\[3600s\]\)\) > 0\)$/);
    expect(counterIncrease("x", 1000)).toBe("((x - x offset 1s) >= 0 unless resets(x[1s]) > 0) or ((x - min_over_time(x[1s])) unless x offset 1s unless resets(x[1s]) > 0) or increase(x[1s])");
  });
});
