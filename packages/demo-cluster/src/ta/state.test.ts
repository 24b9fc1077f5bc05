import { describe, expect, it } from "vitest";
import { buildTaState, jobItems, OTEL_DEFAULT_BUCKETS, PROM_DEFAULT_BUCKETS, sdItem } from "./state";
import { COLLECTORS, EMPTY_JOB, fixtureJobs, fixtureScrapeConfigs, fixtureState, KUBELET, NODE_EXPORTER } from "../../test/fixtures/ta-state";
import { ginRoutingPath, goJson, goQueryEscape, goUnescape } from "./encode";

describe("buildTaState", () => {
  it("sorts collectors, drops jobs without targets, counts per collector and the live unassigned", () => {
    const s = fixtureState("upstream");
    expect(s.collectors).toEqual(COLLECTORS);
    expect([...s.jobs.keys()]).not.toContain(EMPTY_JOB);
    expect(Object.keys(s.scrapeConfigs)).toContain(EMPTY_JOB);
    expect(Object.fromEntries(s.metrics.targetsPerCollector)).toEqual({ "agent-a": 2, "agent-b": 2, "agent-c": 2 });
    expect(s.metrics.targetsRemaining).toBe(7);
    expect(s.metrics.unassignedLive).toBe(1);
    expect(s.metrics.unassigned).toBe(1);
    expect(s.metrics.targetsPerJob.get(NODE_EXPORTER)).toBe(6);
    expect(s.metrics.collectorsAllocatable).toBe(3);
    expect(s.metrics.events.get("EventSourcePrometheusCR")).toBe(2);
    const h = s.metrics.timeToAllocate.get("SetTargets")!;
    expect(h.bounds).toBe(OTEL_DEFAULT_BUCKETS);
    expect(h.count).toBe(1);
    expect(h.counts[1]).toBe(1); // 0.004 in (0, 5]
  });

  it("upstream keeps the last non-zero unassigned (sticky); cloudwatch reports it live", () => {
    for (const flavor of ["upstream", "cloudwatch"] as const) {
      const first = fixtureState(flavor);
      const healedJobs = fixtureJobs();
      const ne = healedJobs.get(NODE_EXPORTER)!;
      healedJobs.set(NODE_EXPORTER, { ...ne, assignment: new Map([...ne.assignment].map(([k, v]) => [k, v ?? "agent-a"])) });
      const healed = buildTaState({
        role: "per-node", flavor, strategy: "per-node", collectors: COLLECTORS, jobs: healedJobs,
        scrapeConfigs: fixtureScrapeConfigs(), previous: first, allocation: { seconds: 0.02, method: "SetCollectors" },
        events: { EventSourcePrometheusCR: 1 },
      });
      expect(healed.metrics.unassignedLive).toBe(0);
      expect(healed.metrics.unassigned).toBe(flavor === "upstream" ? 1 : 0);
      expect(healed.metrics.targetsRemainingTotal).toBe(14); // running sum of two passes
      expect(healed.metrics.events.get("EventSourcePrometheusCR")).toBe(3);
      expect([...healed.metrics.timeToAllocate.keys()].sort()).toEqual(["SetCollectors", "SetTargets"]);
      if (flavor === "cloudwatch") expect(healed.metrics.timeToAllocate.get("SetCollectors")!.bounds).toBe(PROM_DEFAULT_BUCKETS);
    }
  });

  it("keeps a removed collector's series at 0 and does not count targets of unregistered collectors", () => {
    const first = fixtureState("upstream");
    const next = buildTaState({
      role: "per-node", flavor: "upstream", strategy: "per-node", collectors: ["agent-a", "agent-b"], jobs: fixtureJobs(),
      scrapeConfigs: {}, previous: first.metrics,
    });
    expect(next.metrics.targetsPerCollector.get("agent-c")).toBe(0);
    expect(next.metrics.unassignedLive).toBe(3);
    expect(next.metrics.unassigned).toBe(1); // no allocation pass: nothing written
    expect(next.metrics.targetsRemainingTotal).toBe(first.metrics.targetsRemainingTotal);
  });

  it("indexes items per job and collector lazily, once per state", () => {
    const s = fixtureState("cloudwatch");
    const idx = jobItems(s, KUBELET);
    expect(jobItems(s, KUBELET)).toBe(idx);
    expect(idx.get("agent-a")).toEqual([
      { targets: ["10.0.1.10:10250"], labels: { __address__: "10.0.1.10:10250", __meta_kubernetes_namespace: "obs", __meta_kubernetes_pod_node_name: "node-1" } },
    ]);
    expect(idx.has("agent-b")).toBe(false);
    expect(jobItems(s, "nope").size).toBe(0);
    expect(Object.keys(sdItem({ key: "k", job: "j", address: "1.2.3.4:80", labels: { b: "1", a: "2" } }).labels)).toEqual(["__address__", "a", "b"]);
  });
});

describe("Go encoding quirks", () => {
  it("query-escapes like url.QueryEscape", () => {
    expect(goQueryEscape(NODE_EXPORTER)).toBe("serviceMonitor%2Fobs%2Fnode-exporter%2F0");
    expect(goQueryEscape("a b!*'()~é")).toBe("a+b%21%2A%27%28%29~%C3%A9");
    expect(goUnescape("a+b%2Fc", "query")).toBe("a b/c");
    expect(() => goUnescape("%zz", "query")).toThrow(/invalid URL escape/);
  });
  it("routes on the raw path only when Go would keep RawPath", () => {
    expect(ginRoutingPath("/jobs/a%2Fb/targets")).toBe("/jobs/a%2Fb/targets");
    expect(ginRoutingPath("/jobs/a%20b/targets")).toBe("/jobs/a b/targets");
    expect(ginRoutingPath("/jobs/a+b/targets")).toBe("/jobs/a+b/targets");
  });
  it("escapes HTML characters in upstream JSON only", () => {
    expect(goJson({ a: "<&>" }, "upstream")).toBe('{"a":"\\u003c\\u0026\\u003e"}\n');
    expect(goJson({ a: "<&>" }, "cloudwatch")).toBe('{"a":"<&>"}\n');
  });
});
