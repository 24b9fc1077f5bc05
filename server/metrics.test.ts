import { describe, expect, it } from "vitest";
import { registerLeaseMetrics, renderMetrics } from "@/server/metrics";
import type { ShardView } from "@/server/lease/shards";

async function scrape(): Promise<string> {
  const { parts } = await renderMetrics(null);
  return Buffer.concat(parts).toString("utf8");
}

const value = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe("the lease series", () => {
  it("say which clusters this replica holds, the live replicas and its share, as of each scrape", async () => {
    let view: ShardView = { members: ["lens-a", "lens-b", "lens-c"], share: 2, held: ["c1", "c3"], settled: true, unshared: false };
    registerLeaseMetrics(() => view, ["c1", "c2", "c3", "c4"]);
    let text = await scrape();
    expect(["c1", "c2", "c3", "c4"].map((c) => value(text, `allocation_lens_lease_held{cluster="${c}"}`))).toEqual([1, 0, 1, 0]);
    expect(value(text, "allocation_lens_lease_replicas")).toBe(3);
    expect(value(text, "allocation_lens_lease_share")).toBe(2);
    expect(text).toContain("# TYPE allocation_lens_lease_held gauge");

    // a replica died: the share grows and a cluster comes over
    view = { members: ["lens-a", "lens-b"], share: 2, held: ["c1", "c2"], settled: true, unshared: false };
    text = await scrape();
    expect(["c1", "c2", "c3", "c4"].map((c) => value(text, `allocation_lens_lease_held{cluster="${c}"}`))).toEqual([1, 1, 0, 0]);
    expect(value(text, "allocation_lens_lease_replicas")).toBe(2);
  });

  it("of a runtime made again replace the earlier ones (no duplicate registration, no stale reader)", async () => {
    registerLeaseMetrics(() => ({ members: ["a"], share: 1, held: ["x"], settled: true, unshared: false }), ["x"]);
    registerLeaseMetrics(() => ({ members: ["a", "b"], share: 1, held: [], settled: true, unshared: false }), ["x", "y"]);
    const text = await scrape();
    expect(value(text, 'allocation_lens_lease_held{cluster="x"}')).toBe(0);
    expect(value(text, 'allocation_lens_lease_held{cluster="y"}')).toBe(0);
    expect(value(text, "allocation_lens_lease_replicas")).toBe(2);
    expect(text.match(/^# TYPE allocation_lens_lease_replicas /gm)).toHaveLength(1);
  });
});
