import { describe, expect, it } from "vitest";
import type { Check, CheckStatus } from "@/lib/analysis/diagnostics";
import { allPass, checkViewHref, countsSentence, filterChecks, hasFix, splitEvidence, statusPhrase } from "@/lib/views/diagnostics-view";

const check = (id: string, status: CheckStatus): Check => ({ id, title: id, status, summary: "", evidence: [], fix: "Nothing to do.", view: "/nodes" });
const checks = [check("a", "pass"), check("b", "fail"), check("c", "warn"), check("d", "unknown"), check("e", "fail")];

describe("filterChecks", () => {
  it("puts failures first and keeps everything without a filter", () => {
    expect(filterChecks(checks, []).shown.map((c) => c.id)).toEqual(["b", "e", "c", "d", "a"]);
  });

  it("counts what the filter hides", () => {
    const r = filterChecks(checks, ["warn", "fail"]);
    expect(r.shown.map((c) => c.id)).toEqual(["b", "e", "c"]);
    expect(r.hidden).toBe(2);
  });
});

describe("header words", () => {
  const counts = { pass: 19, fail: 2, warn: 1, unknown: 0 };

  it("names every status", () => {
    expect(countsSentence(counts)).toBe("2 failing, 1 warning, 19 passing, 0 unknown");
  });

  it("celebrates only when nothing is wrong or unknown", () => {
    expect(allPass(counts)).toBe(false);
    expect(allPass({ pass: 3, fail: 0, warn: 0, unknown: 0 })).toBe(true);
    expect(allPass({ pass: 3, fail: 0, warn: 0, unknown: 1 })).toBe(false);
    expect(allPass({ pass: 0, fail: 0, warn: 0, unknown: 0 })).toBe(false);
  });

  it("says what a filter asked for", () => {
    expect(statusPhrase(["warn", "fail"])).toBe("failing or warning");
    expect(statusPhrase(["pass"])).toBe("passing");
    expect(statusPhrase(["pass", "unknown", "fail"])).toBe("failing, unknown or passing");
  });
});

describe("evidence and fix", () => {
  it("folds long evidence, never a single item", () => {
    expect(splitEvidence(["1", "2", "3", "4"])).toEqual({ shown: ["1", "2", "3", "4"], folded: [] });
    expect(splitEvidence(["1", "2", "3", "4", "5"])).toEqual({ shown: ["1", "2", "3"], folded: ["4", "5"] });
  });

  it("hides 'Nothing to do.'", () => {
    expect(hasFix({ fix: "Nothing to do." })).toBe(false);
    expect(hasFix({ fix: "Restart the TA." })).toBe(true);
  });
});

describe("checkViewHref", () => {
  const keep = new URLSearchParams("cluster=prod&theme=dark");

  it("keeps cluster and theme and the view's own query", () => {
    expect(checkViewHref("/nodes", keep)).toEqual({ href: "/nodes?cluster=prod&theme=dark", label: "Nodes" });
    expect(checkViewHref("/targets?class=ghost", keep)).toEqual({ href: "/targets?class=ghost&cluster=prod&theme=dark", label: "Targets" });
    expect(checkViewHref("/churn", new URLSearchParams())).toEqual({ href: "/churn", label: "Churn" });
  });

  it("links nowhere for this page or a foreign path", () => {
    expect(checkViewHref("/diagnostics", keep)).toBeNull();
    expect(checkViewHref("//evil.example/x", keep)).toBeNull();
    expect(checkViewHref("https://evil.example", keep)).toBeNull();
    expect(checkViewHref("/unknown", keep)).toBeNull();
  });
});
