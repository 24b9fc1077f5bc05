import { describe, expect, it } from "vitest";
import { apiPath } from "@/lib/api/paths";

describe("apiPath", () => {
  it("keeps the parameters' order, leaves empty ones out and escapes values", () => {
    expect(apiPath("/api/v1/targets", { offset: 0, limit: 100, cluster: null })).toBe("/api/v1/targets?offset=0&limit=100");
    expect(apiPath("/api/v1/targets", { q: "a b&c", sort: undefined, role: "", cluster: "prod" })).toBe("/api/v1/targets?q=a+b%26c&cluster=prod");
    expect(apiPath("/api/v1/nodes", {})).toBe("/api/v1/nodes");
  });
});
