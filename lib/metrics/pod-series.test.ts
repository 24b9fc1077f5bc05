import { describe, expect, it } from "vitest";
import { PodSeriesLifetimes } from "./pod-series";

describe("PodSeriesLifetimes", () => {
  it("creates a series once, at 0, counts flips, and keeps a pod's unscheduled and scheduled series apart", () => {
    const s = new PodSeriesLifetimes(1000);
    expect(s.ensure("per-node", "a", null)).toBe(true);
    expect(s.ensure("per-node", "a", null)).toBe(false);
    expect(s.ensure("per-node", "a", "n1")).toBe(true);
    expect(s.flip("per-node", "a", "n1")).toEqual({ role: "per-node", pod: "a", node: "n1" });
    s.flip("per-node", "a", "n1");
    expect(s.entries()).toEqual([
      { labels: { role: "per-node", pod: "a", node: "" }, count: 0 },
      { labels: { role: "per-node", pod: "a", node: "n1" }, count: 2 },
    ]);
  });

  it("removes a pod's series only ttl after it is gone, and forgets the removal when it comes back", () => {
    const s = new PodSeriesLifetimes(1000);
    s.ensure("per-node", "a", "n1");
    s.ensure("per-node", "b", "n2");
    s.ensure("cluster-scraper", "a", "n3");
    s.gone("per-node", "a", 100);
    expect(s.expire(1099)).toEqual([]);
    expect(s.expire(1100)).toEqual([{ role: "per-node", pod: "a", node: "n1" }]);
    expect(s.size).toBe(2);
    s.retain("per-node", new Set(), 2000);
    s.ensure("per-node", "b", "n2"); // seen again before expiry
    expect(s.expire(5000)).toEqual([]);
    s.gone("per-node", "b", 6000);
    s.gone("per-node", "b", 6500); // the first time counts
    expect(s.expire(7000)).toEqual([{ role: "per-node", pod: "b", node: "n2" }]);
    expect(s.entries().map((e) => e.labels)).toEqual([{ role: "cluster-scraper", pod: "a", node: "n3" }]);
  });

  it("stays bounded under a rolling replacement of every pod", () => {
    const s = new PodSeriesLifetimes(1000);
    for (let round = 0; round < 50; round++) {
      const now = round * 500;
      const present = new Set(Array.from({ length: 100 }, (_, i) => `agent-${round}-${i}`));
      for (const p of present) s.ensure("per-node", p, `n${p.length}`);
      s.retain("per-node", present, now);
      s.expire(now);
    }
    expect(s.size).toBeLessThanOrEqual(300);
  });
});
