import { describe, expect, it } from "vitest";
import { parseTaMetrics } from "./metrics";

const upstream = `# HELP opentelemetry_allocator_targets_per_collector The number of targets for each collector.
# TYPE opentelemetry_allocator_targets_per_collector gauge
opentelemetry_allocator_targets_per_collector{collector_name="agent-a",strategy="per-node",otel_scope_name="github.com/open-telemetry/opentelemetry-operator/cmd/otel-allocator",otel_scope_version=""} 10
opentelemetry_allocator_targets_per_collector{collector_name="agent-b",strategy="per-node",otel_scope_name="x",otel_scope_version=""} 7
# TYPE opentelemetry_allocator_targets_remaining gauge
opentelemetry_allocator_targets_remaining{otel_scope_name="x"} 20
# TYPE opentelemetry_allocator_targets_unassigned gauge
opentelemetry_allocator_targets_unassigned{otel_scope_name="x"} 9
# TYPE opentelemetry_allocator_targets gauge
opentelemetry_allocator_targets{job_name="serviceMonitor/obs/app/0",otel_scope_name="x"} 12
opentelemetry_allocator_targets{job_name="kubelet",otel_scope_name="x"} 8
# TYPE opentelemetry_allocator_collectors_allocatable gauge
opentelemetry_allocator_collectors_allocatable{strategy="per-node",otel_scope_name="x"} 2
`;

const cloudwatch = `# TYPE cloudwatch_agent_allocator_targets_per_collector gauge
cloudwatch_agent_allocator_targets_per_collector{collector_name="cwagent-a",strategy="per-node"} 4
# TYPE cloudwatch_agent_allocator_targets_remaining counter
cloudwatch_agent_allocator_targets_remaining 4000
# TYPE cloudwatch_agent_allocator_targets_unassigned gauge
cloudwatch_agent_allocator_targets_unassigned 0
# TYPE amazon_cloudwatch_agent_allocator_collectors_discovered gauge
amazon_cloudwatch_agent_allocator_collectors_discovered 1
`;

describe("parseTaMetrics", () => {
  it("computes upstream's live unassigned count instead of trusting the sticky gauge", () => {
    const m = parseTaMetrics(upstream, "upstream");
    expect(m.targetsPerCollector).toEqual({ "agent-a": 10, "agent-b": 7 });
    expect(m.unassignedReported).toBe(9);
    expect(m.unassignedLive).toBe(3);
    expect(m.strategy).toBe("per-node");
    expect(m.targetsByJob["serviceMonitor/obs/app/0"]).toBe(12);
    expect(m.collectorsAllocatable).toBe(2);
  });

  it("reads the cloudwatch gauge as live and ignores its running-sum counter", () => {
    const m = parseTaMetrics(cloudwatch, "cloudwatch");
    expect(m.unassignedLive).toBe(0);
    expect(m.targetsPerCollector).toEqual({ "cwagent-a": 4 });
    expect(m.collectorsDiscovered).toBe(1);
  });

  it("reads the strategy from the allocatable gauge when no collector has targets yet", () => {
    const idle = `# TYPE cloudwatch_agent_allocator_collectors_allocatable gauge
cloudwatch_agent_allocator_collectors_allocatable{strategy="consistent-hashing"} 3
`;
    expect(parseTaMetrics(idle, "cloudwatch").strategy).toBe("consistent-hashing");
    expect(parseTaMetrics(upstream.replace('strategy="per-node",otel_scope_name="x"} 2', 'strategy="least-weighted",otel_scope_name="x"} 2'), "upstream").strategy).toBe("per-node");
    expect(parseTaMetrics("# nothing here\n", "cloudwatch").strategy).toBeNull();
  });

  it("reports unknown when the families it needs are absent", () => {
    const m = parseTaMetrics("# nothing here\n", "upstream");
    expect(m.unassignedLive).toBeNull();
    expect(m.targetsPerCollector).toEqual({});
  });
});
