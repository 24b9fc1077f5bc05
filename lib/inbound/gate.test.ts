import { describe, expect, it } from "vitest";
import { gate, routePath, type GateRequest } from "./gate";

const r = (method: string, url: string, headers: { cl?: string; te?: string } = {}): GateRequest => ({ method, url, contentLength: headers.cl, transferEncoding: headers.te });
const demo = { demo: true, maxBodyBytes: 65536, basePath: "" };
const prod = { demo: false, maxBodyBytes: 65536, basePath: "" };

describe("routePath", () => {
  it("normalises what the router may treat alike: dot segments, escapes, repeated slashes, case, the base path", () => {
    expect(routePath("/api/v1/demo/faults?x=1", "")).toBe("/api/v1/demo/faults");
    expect(routePath("/api/v1/x/../demo/%66aults", "")).toBe("/api/v1/demo/faults");
    expect(routePath("/API//v1/Demo/scenario", "")).toBe("/api/v1/demo/scenario");
    expect(routePath("http://evil.example/api/v1/demo/faults", "")).toBe("/api/v1/demo/faults");
    expect(routePath("/lens/api/v1/demo/faults", "/lens")).toBe("/api/v1/demo/faults");
    expect(routePath("/lens", "/lens")).toBe("/");
    expect(routePath("/api/v1/demo/faults", "/lens")).toBeNull();
    expect(routePath("/lensx/api", "/lens")).toBeNull();
    expect(routePath("/%E0%A4%A", "")).toBe("/%e0%a4%a");
  });
});

describe("gate", () => {
  it("outside demo mode the demo routes are 404 for every method, with or without a body", () => {
    for (const m of ["GET", "POST", "DELETE", "PUT", "OPTIONS", "HEAD", "PATCH"]) {
      for (const h of [{}, { cl: "20" }, { te: "chunked" }, { cl: "2000000000" }]) {
        expect(gate(r(m, "/api/v1/demo/faults", h), prod), `${m} ${JSON.stringify(h)}`).toMatchObject({ action: "refuse", status: 404 });
      }
    }
    expect(gate(r("GET", "/api/v1/demo"), prod)).toMatchObject({ status: 404 });
    expect(gate(r("POST", "/api/v1/Demo/%73cenario", { cl: "5" }), prod)).toMatchObject({ status: 404 });
    expect(gate(r("GET", "/api/v1/demographics"), prod)).toEqual({ action: "pass" });
  });

  it("requests without a body pass", () => {
    expect(gate(r("GET", "/"), prod)).toEqual({ action: "pass" });
    expect(gate(r("POST", "/api/v1/summary", { cl: "0" }), prod)).toEqual({ action: "pass" });
    expect(gate(r("GET", "/api/v1/demo/faults"), demo)).toEqual({ action: "pass" });
    expect(gate(r("DELETE", "/api/v1/demo/faults"), demo)).toEqual({ action: "pass" });
  });

  it("a body is refused at once everywhere but on the demo routes' POST and DELETE in demo mode", () => {
    for (const [m, p] of [
      ["GET", "/api/healthz"],
      ["HEAD", "/"],
      ["OPTIONS", "/api/v1/demo/faults"],
      ["GET", "/api/v1/demo/faults"],
      ["POST", "/api/healthz"],
      ["POST", "/api/v1/demo/faults/"],
      ["PUT", "/api/v1/demo/faults"],
      ["POST", "/api/v1/demo/other"],
    ]) {
      expect(gate(r(m, p, { cl: "10" }), demo), `${m} ${p}`).toMatchObject({ action: "refuse", status: 413, code: "body_not_accepted" });
      expect(gate(r(m, p, { te: "chunked" }), demo), `${m} ${p} chunked`).toMatchObject({ action: "refuse", status: 413 });
    }
    expect(gate(r("POST", "/api/healthz", { cl: "2000000000" }), prod)).toMatchObject({ action: "refuse", status: 413 });
  });

  it("the demo routes read a body up to maxBodyBytes; a larger declared length is refused before reading", () => {
    expect(gate(r("POST", "/api/v1/demo/faults", { cl: "100" }), demo)).toEqual({ action: "read", limit: 65536 });
    expect(gate(r("POST", "/api/v1/demo/scenario", { te: "chunked" }), demo)).toEqual({ action: "read", limit: 65536 });
    expect(gate(r("delete", "/api/v1/demo/faults", { cl: "65536" }), demo)).toEqual({ action: "read", limit: 65536 });
    expect(gate(r("POST", "/api/v1/demo/faults", { cl: "65537" }), demo)).toMatchObject({ action: "refuse", status: 413, code: "body_too_large" });
    expect(gate(r("POST", "/lens/api/v1/demo/faults", { cl: "10" }), { ...demo, basePath: "/lens" })).toEqual({ action: "read", limit: 65536 });
  });

  it("never quotes the request in a refusal", () => {
    const v = gate(r("POST", "/<script>", { cl: "1" }), prod);
    expect(v.action === "refuse" && v.message).not.toContain("script");
  });
});
