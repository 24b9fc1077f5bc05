import { describe, expect, it } from "vitest";
import { alertCounts, countsSentence, splitAlerts, viewName, withTheme } from "@/lib/views/alerts-view";
import type { AlertRow } from "@/lib/api/schemas";

const row = (alert: string, state: AlertRow["state"]): AlertRow => ({ alert, severity: "warning", state, expr: "x > 0", forMs: 0, runbookUrl: "https://x", instances: [], unknown: null });

describe("alerts view reshaping", () => {
  it("counts and splits by state", () => {
    const v = { alerts: [row("A", "firing"), row("B", "pending"), row("C", "inactive"), row("D", "inactive")] };
    expect(alertCounts(v)).toEqual({ firing: 1, pending: 1, inactive: 2 });
    expect(countsSentence(alertCounts(v))).toBe("1 firing, 1 pending, 2 quiet");
    expect(splitAlerts(v).active.map((a) => a.alert)).toEqual(["A", "B"]);
    expect(splitAlerts(v).quiet.map((a) => a.alert)).toEqual(["C", "D"]);
  });

  it("keeps the theme on a view link and names the view", () => {
    expect(withTheme("/targets?cluster=a&class=ghost", "dark")).toBe("/targets?cluster=a&class=ghost&theme=dark");
    expect(withTheme("/?cluster=a", null)).toBe("/?cluster=a");
    expect(viewName("/?cluster=a")).toBe("Overview");
    expect(viewName("/ownership?cluster=a&ownership=double")).toBe("Ownership");
  });
});
