import { describe, expect, it } from "vitest";
import { acceptsGzip, pushedRequest } from "@/lib/inbound/pushed";

const ROUTES = ["summary", "nodes"] as const;

describe("pushedRequest", () => {
  it("takes exactly <base>/api/v1/<route>, with or without one cluster", () => {
    expect(pushedRequest("/api/v1/summary", "", ROUTES)).toEqual({ route: "summary", cluster: undefined, search: "" });
    expect(pushedRequest("/lens/api/v1/nodes?cluster=prod%20a", "/lens", ROUTES)).toEqual({ route: "nodes", cluster: "prod a", search: "?cluster=prod%20a" });
  });

  it("leaves every other spelling and query to Next.js", () => {
    for (const url of [
      "/api/v1/summary/",
      "/api/v1/Summary",
      "/api/v1/%73ummary",
      "/api/v1/targets",
      "/api/v1/nodes/n1",
      "/api/v1/summary?cluster=a&cluster=b",
      "/api/v1/summary?cluster=",
      "/api/v1/summary?x=1",
      "/api/v1/summary?cluster=a&x=1",
      "/lens/api/v1/summary",
    ]) {
      expect(pushedRequest(url, "", ROUTES), url).toBeNull();
    }
    expect(pushedRequest("/api/v1/summary", "/lens", ROUTES)).toBeNull();
  });
});

describe("acceptsGzip", () => {
  it("reads the codings and their q-values", () => {
    expect(acceptsGzip("gzip, deflate, br")).toBe(true);
    expect(acceptsGzip("br;q=1.0, gzip;q=0.8")).toBe(true);
    expect(acceptsGzip("GZIP")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip;q=0.000")).toBe(false);
    expect(acceptsGzip("*;q=0")).toBe(false);
    expect(acceptsGzip("br, identity")).toBe(false);
    expect(acceptsGzip("identity, *;q=0.5, gzip;q=0")).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
