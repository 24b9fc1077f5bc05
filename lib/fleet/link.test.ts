import { describe, expect, it } from "vitest";
import { dashboardLink, isHttpLink, templateProblem } from "@/lib/fleet/link";

describe("dashboard links", () => {
  it("puts the cluster's name in the template, in the host or the query", () => {
    expect(dashboardLink("https://lens.{cluster}.example.com/", "prod-eu-1")).toBe("https://lens.prod-eu-1.example.com/");
    expect(dashboardLink("https://lens.example.com/?cluster={cluster}&x={cluster}", "b")).toBe("https://lens.example.com/?cluster=b&x=b");
    expect(dashboardLink(undefined, "prod")).toBeNull();
  });

  it("gives no link for a name that is not a DNS label: it comes from the backend, it may be anything", () => {
    for (const hostile of ['"><script>alert(1)</script>', "evil.com/", "a@b", "x/../../admin", "Prod", "-a", "a".repeat(64), "", "a b", "javascript:alert(1)"]) {
      expect(dashboardLink("https://lens.{cluster}.example.com/", hostile), hostile).toBeNull();
      expect(dashboardLink("https://lens.example.com/?c={cluster}", hostile), hostile).toBeNull();
    }
  });

  it("never yields anything but http(s)", () => {
    expect(dashboardLink("javascript:alert('{cluster}')", "a")).toBeNull();
    expect(dashboardLink("data:text/html,{cluster}", "a")).toBeNull();
    expect(isHttpLink("https://x.example/")).toBe(true);
    expect(isHttpLink("javascript:alert(1)")).toBe(false);
    expect(isHttpLink("//evil.example/")).toBe(false);
    expect(isHttpLink(null)).toBe(false);
  });

  it("validates templates", () => {
    expect(templateProblem("https://lens.{cluster}.example.com/")).toBeNull();
    expect(templateProblem("https://lens.example.com/")).toMatch(/containing \{cluster\}/);
    expect(templateProblem("https://{cluster}.x/{other}")).toMatch(/only \{cluster\}/);
    expect(templateProblem("ftp://{cluster}.x/")).toMatch(/http:\/\/ or https:\/\//);
    expect(templateProblem("https://u:p@{cluster}.x/")).toMatch(/no user or password/);
  });
});
