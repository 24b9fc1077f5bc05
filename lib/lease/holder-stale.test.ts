import { describe, expect, it } from "vitest";
import { freshnessSchema, summaryViewSchema, type SourceView } from "@/lib/api/schemas";
import { holderSource, withHolderStale } from "@/lib/lease/holder-stale";

const problem = { cluster: "prod", kind: "network" as const, message: "connect ECONNREFUSED 10.0.0.2:3000", lastSuccess: 1000 };

describe("withHolderStale", () => {
  it("adds the holder to stale, once, keeping the other stale sources", () => {
    const ta = { source: "prod/ta/per-node", state: "stale", lastSuccess: 1, latencyMs: 3, error: null };
    const body = { at: 5, pollIntervalMs: 15_000, stale: [ta] };
    const once = withHolderStale(body, problem);
    const twice = withHolderStale(once, { ...problem, message: "timeout" });
    expect(twice.stale.map((s) => s.source)).toEqual(["prod/ta/per-node", holderSource("prod")]);
    expect(twice.stale[1]).toMatchObject({ state: "stale", lastSuccess: 1000, error: { kind: "network", message: "timeout" } });
    expect(freshnessSchema.parse(twice)).toBeTruthy();
    expect(body.stale).toHaveLength(1); // not changed in place
  });

  it("says error when no answer ever came from the holder, and adds it to a summary's sources", () => {
    const out = withHolderStale<{ stale: SourceView[]; sources: SourceView[] }>({ stale: [], sources: [] }, { ...problem, lastSuccess: null });
    expect(out.sources).toEqual(out.stale);
    expect(out.stale[0].state).toBe("error");
    expect(summaryViewSchema.shape.sources.parse(out.sources)).toHaveLength(1);
  });

  it("leaves a body that is not a view alone", () => {
    expect(withHolderStale([1], problem)).toEqual([1]);
    expect(withHolderStale(null, problem)).toBeNull();
  });
});
