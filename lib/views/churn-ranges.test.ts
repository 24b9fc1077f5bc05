import { describe, expect, it } from "vitest";
import { RANGES, fromInputValue, parseInstant, rangeRequest, toInputValue, widerRange, rangeKeys } from "@/lib/views/churn-ranges";

const T = Date.parse("2026-03-01T12:03:07Z");

describe("ranges", () => {
  it("widens to the next preset, not past the largest", () => {
    expect(widerRange("15m")).toBe("1h");
    expect(widerRange("1h")).toBe("6h");
    expect(widerRange("7d")).toBeNull();
    expect(widerRange("7d", true)).toBe("30d");
    expect(widerRange("30d", true)).toBeNull();
  });

  it("offers 30 d only with a Prometheus backend", () => {
    expect(rangeKeys(false)).toEqual(["15m", "1h", "6h", "24h", "7d"]);
    expect(rangeKeys(true)).toEqual(["15m", "1h", "6h", "24h", "7d", "30d"]);
    expect(RANGES["30d"]).toMatchObject({ ms: 30 * 86_400_000, label: "30 d", buckets: 90 });
  });

  it("asks for a relative window unless a valid custom range is set", () => {
    expect(rangeRequest("6h", null, null)).toEqual({ kind: "preset", key: "6h", last: RANGES["6h"].ms, buckets: 72 });
    expect(rangeRequest("1h", "2026-03-01T10:00", "2026-03-01T11:00")).toEqual({ kind: "custom", from: Date.parse("2026-03-01T10:00Z"), to: Date.parse("2026-03-01T11:00Z"), buckets: 60 });
    expect(rangeRequest("1h", String(T - 1000), null)).toEqual({ kind: "custom", from: T - 1000, to: null, buckets: 60 });
    expect(rangeRequest("1h", null, String(T))).toMatchObject({ kind: "custom", from: T - 3_600_000, to: T });
    // from after to, or garbage: back to the preset
    expect(rangeRequest("1h", String(T), String(T - 1))).toMatchObject({ kind: "preset", key: "1h" });
    expect(rangeRequest("1h", "yesterday", null)).toMatchObject({ kind: "preset" });
  });

  it("reads times without an offset as UTC", () => {
    expect(parseInstant("2026-03-01T12:03")).toBe(Date.parse("2026-03-01T12:03:00Z"));
    expect(parseInstant("2026-03-01T12:03:00+01:00")).toBe(Date.parse("2026-03-01T11:03:00Z"));
    expect(parseInstant(String(T))).toBe(T);
    expect(parseInstant("")).toBeNull();
    expect(fromInputValue(toInputValue(T))).toBe(Date.parse("2026-03-01T12:03:00Z"));
  });
});
