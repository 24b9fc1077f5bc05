import { describe, expect, it } from "vitest";
import {
  ROLE_SHORT,
  ROLE_TITLE,
  axisTick,
  clockTime,
  compactNumber,
  cssPercent,
  formatAgo,
  formatBytes,
  formatCount,
  formatDecimal,
  formatDuration,
  formatElapsed,
  formatPercent,
  formatShare,
  isoTime,
  percentValue,
  plural,
  rolesPhrase,
  spansDays,
  utcDate,
  utcMinute,
  utcStamp,
  utcTime,
} from "@/lib/format";

const T = Date.parse("2026-03-01T12:03:07Z");

describe("numbers", () => {
  it("group thousands the same way in every locale, and say n/a for nothing", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(150_000)).toBe("150,000");
    expect(formatCount(-1234)).toBe("-1,234");
    expect(formatCount(null)).toBe("n/a");
    expect(formatCount(undefined, "–")).toBe("–");
  });
  it("fix decimals", () => {
    expect(formatDecimal(1.256, 2)).toBe("1.26");
    expect(formatDecimal(12, 1)).toBe("12.0");
    expect(formatDecimal(null, 2)).toBe("n/a");
  });
  it("pluralize with the count", () => {
    expect(plural(1, "target")).toBe("1 target");
    expect(plural(2_000, "target")).toBe("2,000 targets");
    expect(plural(0, "check")).toBe("0 checks");
    expect(plural(3, "repository", "repositories")).toBe("3 repositories");
  });
  it("fit an axis", () => {
    expect([0, 950, 9500, 10_000, 160_000, 1_250_000].map(compactNumber)).toEqual(["0", "950", "9.5k", "10k", "160k", "1.3M"]);
  });
});

describe("percentages", () => {
  it("show one decimal, exact ends, and never round a part to 0% or 100%", () => {
    expect(formatPercent(0)).toBe("0%");
    expect(formatPercent(1)).toBe("100%");
    expect(formatPercent(0.25)).toBe("25.0%");
    expect(formatPercent(0.98765)).toBe("98.8%");
    expect(formatPercent(0.0004)).toBe("<0.1%");
    expect(formatPercent(0.99996)).toBe(">99.9%");
    expect(formatPercent(null)).toBe("n/a");
    expect(formatPercent(Number.NaN)).toBe("n/a");
  });
  it("show whole percents on request, with the same guard", () => {
    expect(formatPercent(0.5, 0)).toBe("50%");
    expect(formatPercent(0.004, 0)).toBe("<1%");
    expect(formatPercent(0.996, 0)).toBe(">99%");
    expect(formatPercent(0.125, 0)).toBe("13%");
  });
  it("divide safely", () => {
    expect(formatShare(3, 4)).toBe("75.0%");
    expect(formatShare(4, 4)).toBe("100%");
    expect(formatShare(0, 0)).toBe("n/a");
  });
  it("give chart values and CSS lengths", () => {
    expect(percentValue(0.98765)).toBe(98.8);
    expect(percentValue(null)).toBeNull();
    expect(cssPercent(0.375)).toBe("37.5%");
    expect(cssPercent(1, 4)).toBe("25%");
    expect(cssPercent(1, 0)).toBe("0%");
  });
});

describe("bytes", () => {
  it("use binary units", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(1024)).toBe("1 KiB");
    expect(formatBytes(1.8 * 1024 * 1024)).toBe("1.8 MiB");
    expect(formatBytes(12 * 1024 ** 3)).toBe("12 GiB");
    expect(formatBytes(Number.NaN)).toBe("n/a");
  });
});

describe("durations", () => {
  it("are precise", () => {
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(1500)).toBe("1.5 s");
    expect(formatDuration(2000)).toBe("2 s");
    expect(formatDuration(12_400)).toBe("12 s");
    expect(formatDuration(250_000)).toBe("4 min 10 s");
    expect(formatDuration(240_000)).toBe("4 min");
    expect(formatDuration(2 * 3_600_000 + 5 * 60_000)).toBe("2 h 5 min");
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000)).toBe("3 d 4 h");
    expect(formatDuration(-5)).toBe("0 ms");
  });
  it("read as ages in whole units", () => {
    expect(formatElapsed(4_400)).toBe("4 s");
    expect(formatElapsed(59_000)).toBe("59 s");
    expect(formatElapsed(60_000)).toBe("1 min");
    expect(formatElapsed(3_599_000)).toBe("59 min");
    expect(formatElapsed(3 * 3_600_000)).toBe("3 h");
    expect(formatElapsed(3 * 86_400_000)).toBe("3 d");
    expect(formatElapsed(-1000)).toBe("0 s");
    expect(formatAgo(T - 12_000, T)).toBe("12 s ago");
  });
});

describe("times", () => {
  it("are UTC whatever the locale", () => {
    expect(utcTime(T)).toBe("12:03:07");
    expect(utcDate(T)).toBe("2026-03-01");
    expect(utcMinute(T)).toBe("2026-03-01 12:03");
    expect(axisTick(T, false)).toBe("12:03");
    expect(axisTick(T, true)).toBe("03-01 12:03");
    expect(utcStamp(T, false)).toBe("12:03:07");
    expect(utcStamp(T, true)).toBe("03-01 12:03:07");
    expect(clockTime(T)).toBe("12:03:07 UTC");
    expect(isoTime(T)).toBe("2026-03-01T12:03:07.000Z");
    expect(spansDays(T - 3_600_000, T)).toBe(false);
    expect(spansDays(T - 24 * 3_600_000, T)).toBe(true);
  });
});

describe("role titles", () => {
  it("name both roles, in titles, labels and sentences", () => {
    expect(ROLE_TITLE["per-node"]).toBe("Per-node agent");
    expect(ROLE_TITLE["cluster-scraper"]).toBe("Cluster-scraper agent");
    expect(ROLE_SHORT["cluster-scraper"]).toBe("Cluster-scraper");
    expect(rolesPhrase(["per-node", "cluster-scraper"])).toBe("per-node and cluster-scraper agents");
    expect(rolesPhrase(["cluster-scraper"])).toBe("cluster-scraper agent");
    expect(rolesPhrase([])).toBe("no agent");
  });
});
