import { describe, expect, it } from "vitest";
import { chooseSource, churnSourceSchema, redactEndpoint } from "./churn-source";

describe("redactEndpoint", () => {
  it("keeps scheme, host and path only", () => {
    expect(redactEndpoint("https://user:secret@mimir.example.com:8443/prometheus/?token=x#f")).toBe("https://mimir.example.com:8443/prometheus");
    expect(redactEndpoint("http://127.0.0.1:9090")).toBe("http://127.0.0.1:9090");
    expect(redactEndpoint("not a url")).toBe("(invalid URL)");
  });
});

describe("chooseSource", () => {
  const base = { configured: true, from: 1000, localOldest: 500, filtered: false };
  it("auto: Prometheus when configured and the range starts before local history, local otherwise", () => {
    expect(chooseSource("auto", base)).toEqual({ ok: true, source: "local" });
    expect(chooseSource("auto", { ...base, from: 499 })).toEqual({ ok: true, source: "prometheus" });
    expect(chooseSource("auto", { ...base, localOldest: null })).toEqual({ ok: true, source: "prometheus" });
    expect(chooseSource("auto", { ...base, from: 0, configured: false })).toEqual({ ok: true, source: "local" });
    expect(chooseSource("auto", { ...base, from: 0, filtered: true })).toEqual({ ok: true, source: "local" });
  });

  it("honours an explicit source, and says why it cannot", () => {
    expect(chooseSource("local", { ...base, from: 0 })).toEqual({ ok: true, source: "local" });
    expect(chooseSource("prometheus", base)).toEqual({ ok: true, source: "prometheus" });
    expect(chooseSource("prometheus", { ...base, configured: false })).toMatchObject({ ok: false, message: expect.stringMatching(/^source: prometheus is not configured/) });
    expect(chooseSource("prometheus", { ...base, filtered: true })).toMatchObject({ ok: false, message: expect.stringMatching(/filters read the local history/) });
  });

  it("parses the parameter", () => {
    expect(churnSourceSchema.safeParse("prometheus").success).toBe(true);
    expect(churnSourceSchema.safeParse("thanos").error?.issues[0].message).toBe('expected "auto", "local" or "prometheus"');
  });
});
