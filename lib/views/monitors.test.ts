import { describe, expect, it } from "vitest";
import type { Analysis } from "@/lib/analysis/types";
import { ownershipViewSchema } from "@/lib/api/schemas";
import { toOwnershipView } from "./monitors";

const analysis = (scraperAnnotation: string | null): Analysis => ({
  cluster: "c1",
  at: 1,
  roles: {},
  collectors: [],
  targets: [],
  nodes: [],
  monitors: [],
  monitorCounts: { ok: 0, double: 0, orphaned: 0, misrouted: 0 },
  scraperAnnotation,
  duplicates: [],
  nodesWithoutCollector: [],
});
const fresh = { at: 1, pollIntervalMs: 15_000, stale: [] };

describe("toOwnershipView: the annotation keys it names", () => {
  it("both spellings when none is configured, the merged one first", () => {
    const v = toOwnershipView(analysis(null), fresh);
    expect(v.annotationKeys).toEqual(["cloudwatch.aws.amazon.com/scraper", "cloudwatch.aws/scraper"]);
    expect(v.annotationKeyConfigured).toBe(false);
    expect(ownershipViewSchema.safeParse(v).success).toBe(true);
  });
  it("the configured key alone", () => {
    const v = toOwnershipView(analysis("cloudwatch.aws/scraper"), fresh);
    expect(v.annotationKeys).toEqual(["cloudwatch.aws/scraper"]);
    expect(v.annotationKeyConfigured).toBe(true);
  });
});
