import { describe, expect, it } from "vitest";
import type { TargetRow } from "@/lib/analysis/types";
import { targetRow } from "@/test/fixtures/rows";
import { CACHE_PER_SNAPSHOT, matchAndSort, pageTargets, targetCacheKey, targetQuerySchema } from "./targets";

const row = targetRow;

const rows: TargetRow[] = [
  row({}),
  row({ address: "10.0.0.2:10250", node: "n2", class: "ghost", collector: "agent-2", collectorNode: "n2" }),
  row({ job: "serviceMonitor/shop/cart/0", address: "10.1.0.9:8080", node: "n2", collector: "agent-1", class: "cross_node" }),
  row({ role: "cluster-scraper", job: "kubernetes-apiservers", address: "10.0.0.100:443", node: null, class: "nodeless", collector: "cs-1", collectorNode: "n3" }),
];

const q = (params: Record<string, string>) => targetQuerySchema.parse(params);

describe("pageTargets", () => {
  it("filters by class list, node (either side), collector, job and text", () => {
    expect(pageTargets(rows, q({ class: "ghost,cross_node" })).matched).toBe(2);
    expect(pageTargets(rows, q({ node: "n1" })).matched).toBe(2); // n1's own target and n2's target scraped on n1
    expect(pageTargets(rows, q({ collector: "agent-1" })).matched).toBe(2);
    expect(pageTargets(rows, q({ q: "CART" })).rows[0].job).toBe("serviceMonitor/shop/cart/0");
    expect(pageTargets(rows, q({ role: "cluster-scraper" })).rows.map((r) => r.collector)).toEqual(["cs-1"]);
  });

  it("paginates after sorting and counts classes over the whole match", () => {
    const p = pageTargets(rows, q({ limit: "1", offset: "1", sort: "class" }));
    expect(p.total).toBe(4);
    expect(p.matched).toBe(4);
    expect(p.rows).toHaveLength(1);
    expect(p.rows[0].class).toBe("cross_node");
    expect(p.byClass).toEqual({ local: 1, ghost: 1, cross_node: 1, nodeless: 1 });
  });

  it("rejects an unknown class, a bad limit and unknown parameters", () => {
    expect(targetQuerySchema.safeParse({ class: "lost" }).success).toBe(false);
    expect(targetQuerySchema.safeParse({ limit: "5000" }).success).toBe(false);
    expect(targetQuerySchema.safeParse({ colour: "red" }).success).toBe(false);
  });
});

describe("pageTargets over pages of one snapshot", () => {
  it("returns consecutive, non-overlapping pages that cover the whole match", () => {
    const many: TargetRow[] = Array.from({ length: 1000 }, (_, i) => row({ address: `10.0.${i % 7}.${i}:9100`, job: `job-${i % 13}` }));
    const seen: string[] = [];
    for (let offset = 0; offset < 1000; offset += 300) {
      const p = pageTargets(many, q({ offset: String(offset), limit: "300" }));
      seen.push(...p.rows.map((r) => `${r.job}|${r.address}`));
    }
    expect(seen).toHaveLength(1000);
    expect(new Set(seen).size).toBe(1000);
    const sortedByJob = seen.map((s) => s.split("|")[0]);
    expect(sortedByJob).toEqual([...sortedByJob].sort());
  });
});

describe("the targets cache key", () => {
  it("is one key, hence one filter and sort per snapshot, for every spelling of one filter set", () => {
    const base = matchAndSort(rows, q({}));
    const spellings: Record<string, string>[] = [{ q: " " }, { q: "   " }, { q: "" }, { node: " " }, { class: "" }, { class: ",," }, { sort: "job" }, { cluster: "other", offset: "5", limit: "7" }];
    for (const spelling of spellings) {
      expect(matchAndSort(rows, q(spelling)), JSON.stringify(spelling)).toBe(base);
    }
    const text = matchAndSort(rows, q({ q: "cart" }));
    for (const spelling of [{ q: " cart" }, { q: "CART " }, { q: "Cart" }]) expect(matchAndSort(rows, q(spelling)), JSON.stringify(spelling)).toBe(text);
    const classes = matchAndSort(rows, q({ class: "cross_node,ghost" }));
    expect(matchAndSort(rows, q({ class: "ghost, cross_node,ghost" }))).toBe(classes);
    expect(classes.rows).toHaveLength(2);
    expect(matchAndSort(rows, q({ node: " n1 " }))).toBe(matchAndSort(rows, q({ node: "n1" })));
    expect(matchAndSort(rows, q({ q: "cart" }))).not.toBe(base);
  });

  it("normalises the parsed query and keeps a bounded number of filter sets per snapshot", () => {
    expect(q({ q: "  Cart ", class: "local,ghost,local", node: " ", job: "" })).toMatchObject({ q: "cart", class: ["ghost", "local"], node: undefined, job: undefined });
    expect(targetCacheKey(q({ q: "x", offset: "100" }))).toBe(targetCacheKey(q({ q: " X " })));
    const fresh = rows.slice();
    const first = matchAndSort(fresh, q({ q: "a" }));
    for (let i = 0; i < CACHE_PER_SNAPSHOT; i++) matchAndSort(fresh, q({ q: `x${i}` }));
    expect(matchAndSort(fresh, q({ q: "a" }))).not.toBe(first); // evicted: computed again
  });
});
