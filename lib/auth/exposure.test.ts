import { describe, expect, it } from "vitest";
import { anonymousExposure, isLoopbackHost } from "./exposure";

describe("isLoopbackHost", () => {
  it("knows loopback from every interface", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "app.localhost", "::1", "[::1]", "::ffff:127.0.0.1"]) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "example.com", "128.0.0.1", "::2", ""]) expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe("anonymousExposure", () => {
  const base = { host: "0.0.0.0", port: 3000, configFile: "/etc/al/config.yaml", mode: "none" as const, allowAnonymous: false };

  it("refuses mode none on a non-loopback address, naming the file, the field and the fixes", () => {
    const m = anonymousExposure(base);
    expect(m).toContain("0.0.0.0:3000");
    expect(m).toContain("/etc/al/config.yaml");
    expect(m).toContain("auth.allowAnonymous: true");
    expect(m).toContain("auth.mode to proxy or token");
    expect(m).not.toContain("\n");
    expect(anonymousExposure({ ...base, host: "::" })).toContain("[::]:3000");
  });

  it("lets it start when the configuration says so, with auth, or on loopback", () => {
    expect(anonymousExposure({ ...base, allowAnonymous: true })).toBeNull();
    expect(anonymousExposure({ ...base, mode: "token" })).toBeNull();
    expect(anonymousExposure({ ...base, mode: "proxy" })).toBeNull();
    expect(anonymousExposure({ ...base, host: "127.0.0.1" })).toBeNull();
  });

  it("the embedded demo is anonymous: loopback only", () => {
    expect(anonymousExposure({ ...base, configFile: undefined, host: "127.0.0.1" })).toBeNull();
    expect(anonymousExposure({ ...base, configFile: undefined, allowAnonymous: true })).toContain("embedded demo cluster");
  });
});
