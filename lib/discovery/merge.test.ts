import { describe, expect, it } from "vitest";
import type { DiscoverConfig } from "@/lib/config/schema";
import type { DiscoveredTa } from "@/lib/discovery/operators";
import { effectiveTargetAllocators, mergeEntry, reachModeFor } from "@/lib/discovery/merge";

const cw: DiscoveredTa = {
  role: "per-node",
  flavor: "cloudwatch",
  namespace: "amazon-cloudwatch",
  configMap: "cloudwatch-agent-target-allocator",
  strategy: "per-node",
  fallbackStrategy: "consistent-hashing",
  collectors: { namespace: "amazon-cloudwatch", selector: { app: "agent" } },
  mtls: true,
  service: { name: "cloudwatch-agent-target-allocator-service", port: 80, targetPort: 8443, selector: { app: "ta" } },
  deployment: "cloudwatch-agent-target-allocator",
  url: "https://cloudwatch-agent-target-allocator-service.amazon-cloudwatch.svc:80",
};
const up: DiscoveredTa = {
  ...cw,
  role: "cluster-scraper",
  flavor: "upstream",
  namespace: "opentelemetry",
  configMap: "otel-targetallocator",
  mtls: false,
  service: { name: "otel-targetallocator", port: 80, targetPort: 8080, selector: { app: "ta" } },
  url: "http://otel-targetallocator.opentelemetry.svc:80",
};
const discover = (over: Partial<DiscoverConfig> = {}): DiscoverConfig => ({ namespaces: [], reach: "auto", intervalSeconds: 30, overrides: {}, ...over });

describe("reachModeFor", () => {
  it("auto: direct in the cluster; outside, port-forward for mTLS and the service proxy for plain HTTP; never the proxy for mTLS", () => {
    expect(reachModeFor(cw, "auto", true)).toBe("direct");
    expect(reachModeFor(cw, "auto", false)).toBe("port-forward");
    expect(reachModeFor(up, "auto", false)).toBe("service-proxy");
    expect(reachModeFor(cw, "service-proxy", false)).toBe("port-forward");
    expect(reachModeFor(up, "port-forward", false)).toBe("port-forward");
  });
});

describe("effectiveTargetAllocators", () => {
  it("gives each discovered TA a whole entry: url, flavor, collectors, reach, and for mTLS the server name and the client Secret", () => {
    const r = effectiveTargetAllocators([cw, up], discover(), false);
    expect(r.problems).toEqual([]);
    expect(r.entries["per-node"]).toMatchObject({
      url: cw.url,
      flavor: "cloudwatch",
      collectors: cw.collectors,
      tls: { serverName: "cloudwatch-agent-target-allocator-service.amazon-cloudwatch.svc" },
      tlsSecret: { secret: "amazon-cloudwatch/amazon-cloudwatch-observability-agent-client-cert" },
      reach: { portForward: { namespace: "amazon-cloudwatch", service: "cloudwatch-agent-target-allocator-service", port: 80 } },
      timeoutSeconds: 5,
    });
    expect(r.entries["cluster-scraper"]).toMatchObject({ url: up.url, flavor: "upstream", reach: { serviceProxy: { namespace: "opentelemetry", service: "otel-targetallocator", port: 80 } } });
    expect(r.entries["cluster-scraper"]?.tlsSecret).toBeUndefined();
  });

  it("configured fields win field by field; maps merge key by key; a bad override is a problem naming the field", () => {
    const r = effectiveTargetAllocators(
      [cw],
      discover({ overrides: { "per-node": { timeoutSeconds: 12, collectors: { namespace: "agents" }, tls: { ca: "/ca.pem" } } } }),
      true,
    );
    expect(r.entries["per-node"]).toMatchObject({ timeoutSeconds: 12, collectors: { namespace: "agents", selector: { app: "agent" } }, tls: { ca: "/ca.pem", serverName: expect.any(String) }, reach: "direct" });
    const bad = effectiveTargetAllocators([cw], discover({ overrides: { "per-node": { timeoutSeconds: -1 } } }), false);
    expect(bad.entries["per-node"]).toBeUndefined();
    expect(bad.problems).toEqual([{ role: "per-node", message: expect.stringMatching(/^targetAllocators\.per-node\.timeoutSeconds: /) }]);
  });

  it("an override with url, flavor and collectors stands alone; a partial one for a role nothing was found for is ignored", () => {
    const alone = { url: "http://ta:80", flavor: "upstream", collectors: { namespace: "n", selector: { a: "b" } } };
    const r = effectiveTargetAllocators([], discover({ overrides: { "per-node": alone, "cluster-scraper": { timeoutSeconds: 3 } } }), false);
    expect(r.entries["per-node"]).toMatchObject(alone);
    expect(r.entries["cluster-scraper"]).toBeUndefined();
  });

  it("client certificate files in an override replace the discovered Secret", () => {
    const merged = mergeEntry({ tls: { serverName: "s" }, tlsSecret: { secret: "ns/x" } }, { tls: { cert: "/c", key: "/k" } });
    expect(merged).toEqual({ tls: { serverName: "s", cert: "/c", key: "/k" } });
    const back = mergeEntry({ tls: { serverName: "s", cert: "/c", key: "/k" } }, { tlsSecret: { secret: "ns/y" } });
    expect(back).toEqual({ tls: { serverName: "s" }, tlsSecret: { secret: "ns/y" } });
  });
});
