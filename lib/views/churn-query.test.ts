import { describe, expect, it } from "vitest";
import { parseChurnQuery, toChurnView } from "@/lib/views/churn";
import { aggregateChurn } from "@/lib/views/churn-aggregate";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const q = (s: string) => parseChurnQuery(new URLSearchParams(s), NOW);

describe("parseChurnQuery", () => {
  it("defaults to the last hour in 60 buckets", () => {
    expect(q("")).toEqual({ ok: true, query: { cluster: undefined, from: NOW - 3_600_000, to: NOW, buckets: 60 } });
  });

  it("takes milliseconds or ISO times", () => {
    expect(q(`cluster=prod&from=${NOW - 5000}&to=2026-03-01T12:00:00Z&buckets=10`)).toEqual({ ok: true, query: { cluster: "prod", from: NOW - 5000, to: NOW, buckets: 10 } });
  });

  it("names the bad parameter", () => {
    expect(q("from=yesterday")).toMatchObject({ ok: false, param: "from", message: expect.stringMatching(/^from: expected milliseconds since the epoch or an ISO 8601 time/) });
    expect(q("to=2026-13-45")).toMatchObject({ ok: false, param: "to" });
    expect(q("buckets=0")).toMatchObject({ ok: false, param: "buckets" });
    expect(q("buckets=abc")).toMatchObject({ ok: false, param: "buckets" });
    expect(q(`from=${NOW}&to=${NOW - 1}`)).toMatchObject({ ok: false, param: "from", message: expect.stringMatching(/before/) });
  });
});

describe("toChurnView", () => {
  it("composes timeline, flapping, latest events, reassignments and series", () => {
    const events = Array.from({ length: 250 }, (_, i) => ({
      at: NOW - i * 1000,
      role: "per-node" as const,
      pod: `agent-${i % 3}`,
      node: "n1",
      ready: i % 2 === 0,
      kind: i % 2 === 0 ? ("became_ready" as const) : ("became_not_ready" as const),
      reason: null,
    }));
    const range = { from: NOW - 3_600_000, to: NOW, buckets: 6 };
    const v = toChurnView({ at: NOW, pollIntervalMs: 15_000, stale: [] }, "c1", range, { backend: "memory", error: "cannot use /x: boom", path: "/x" }, aggregateChurn({ readiness: events, reassignments: [], polls: [] }, range));
    expect(v.backend).toEqual({ backend: "memory", error: "cannot use /x: boom", path: "/x" });
    expect(v.events).toHaveLength(200);
    expect(v.events[0].at).toBe(NOW);
    expect(v.eventsInRange).toBe(250);
    expect(v.timeline).toHaveLength(6);
    expect(v.timeline.reduce((s, b) => s + b.readiness, 0)).toBe(250);
    expect(v.flapping.map((f) => f.pod)).toEqual(["agent-0", "agent-1", "agent-2"]);
    expect(v.reassignments).toEqual({ total: 0, byNode: [], byCollector: [], sample: [] });
    expect(v.series).toHaveLength(6);
  });
});
