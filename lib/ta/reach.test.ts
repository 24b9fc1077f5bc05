import { describe, expect, it } from "vitest";
import { channelErrorText, choosePod, forbiddenMessage, parseSecretRef, podIsReachable, podPort, selectorString, servicePort, serviceProxyPrefix, type PodLike } from "./reach";

const pod = (name: string, extra: { ready?: boolean; phase?: string; deleting?: boolean; created?: string } = {}): PodLike => ({
  metadata: { name, creationTimestamp: extra.created ?? "2026-01-01T00:00:00Z", ...(extra.deleting ? { deletionTimestamp: "2026-01-02T00:00:00Z" } : {}) },
  spec: { containers: [{ ports: [{ name: "https", containerPort: 8443 }] }] },
  status: { phase: extra.phase ?? "Running", conditions: [{ type: "Ready", status: extra.ready === false ? "False" : "True" }] },
});

describe("choosePod", () => {
  it("takes only Ready, Running pods that are not terminating", () => {
    expect(podIsReachable(pod("a"))).toBe(true);
    expect(podIsReachable(pod("a", { ready: false }))).toBe(false);
    expect(podIsReachable(pod("a", { phase: "Pending" }))).toBe(false);
    expect(podIsReachable(pod("a", { deleting: true }))).toBe(false);
    expect(choosePod([pod("a", { deleting: true }), pod("b", { ready: false })])).toBeNull();
    expect(choosePod([pod("a", { deleting: true }), pod("b")])).toBe("b");
  });

  it("prefers the newest pod, then the name, and avoids the one a connection just failed to unless it is the only one", () => {
    const old = pod("ta-old", { created: "2026-01-01T00:00:00Z" });
    const fresh = pod("ta-new", { created: "2026-01-01T00:05:00Z" });
    expect(choosePod([old, fresh])).toBe("ta-new");
    expect(choosePod([old, fresh], "ta-new")).toBe("ta-old");
    expect(choosePod([old], "ta-old")).toBe("ta-old");
    expect(choosePod([pod("b"), pod("a")])).toBe("a");
  });
});

describe("ports", () => {
  const svc = { spec: { ports: [{ name: "targetallocation", port: 80, targetPort: "http" }, { port: 9090, targetPort: 9091 }] } };

  it("finds the Service port by number or name and names what it has when it is not there", () => {
    expect(servicePort(svc, "ta", 80)).toEqual({ ok: true, servicePort: 80, targetPort: "http" });
    expect(servicePort(svc, "ta", "targetallocation")).toEqual({ ok: true, servicePort: 80, targetPort: "http" });
    expect(servicePort(svc, "ta", 9090)).toEqual({ ok: true, servicePort: 9090, targetPort: 9091 });
    expect(servicePort(svc, "ta", 81)).toEqual({ ok: false, message: "the Service ta has no port 81 (it has 80 (targetallocation), 9090)" });
    expect(servicePort(svc, "ta")).toMatchObject({ ok: false, message: "the Service ta has 2 ports (80 (targetallocation), 9090): name one in reach port" });
    expect(servicePort({ spec: { ports: [{ port: 80 }] } }, "ta")).toEqual({ ok: true, servicePort: 80, targetPort: 80 });
  });

  it("resolves a named target port through the pod's containers", () => {
    expect(podPort(pod("a"), "https")).toBe(8443);
    expect(podPort(pod("a"), 8080)).toBe(8080);
    expect(podPort(pod("a"), "8080")).toBe(8080);
    expect(podPort(pod("a"), "metrics")).toBeNull();
  });
});

describe("paths and messages", () => {
  it("builds the service proxy's prefix", () => {
    expect(serviceProxyPrefix("opentelemetry", "otel-agent-targetallocator", "targetallocation")).toBe(
      "/api/v1/namespaces/opentelemetry/services/otel-agent-targetallocator:targetallocation/proxy",
    );
    expect(serviceProxyPrefix("ns", "ta", 80)).toBe("/api/v1/namespaces/ns/services/ta:80/proxy");
    expect(serviceProxyPrefix("ns", "ta")).toBe("/api/v1/namespaces/ns/services/ta/proxy");
  });

  it("names the missing permission exactly", () => {
    expect(forbiddenMessage("create", "pods/portforward", "amazon-cloudwatch")).toBe(
      "forbidden: the Kubernetes user may not create pods/portforward in namespace amazon-cloudwatch (grant: create on pods/portforward)",
    );
  });

  it("keeps one printable line of the error channel, and a label selector sorted", () => {
    expect(channelErrorText(Buffer.from("error forwarding port 8443:\r\n connection refused\u0000"))).toBe("error forwarding port 8443: connection refused");
    expect(channelErrorText(Buffer.from("x".repeat(500)))).toHaveLength(300);
    expect(selectorString({ b: "2", a: "1" })).toBe("a=1,b=2");
  });

  it("parses a Secret's namespace/name", () => {
    expect(parseSecretRef("amazon-cloudwatch/agent-client-cert")).toEqual({ namespace: "amazon-cloudwatch", name: "agent-client-cert" });
    expect(parseSecretRef("agent-client-cert")).toBeNull();
    expect(parseSecretRef("a/b/c")).toBeNull();
    expect(parseSecretRef("NS/x")).toBeNull();
  });
});
