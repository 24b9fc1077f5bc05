import { describe, expect, it } from "vitest";
import { appliedObject, appliedStatus, objectPath } from "./mirror";
import type { KubeObject } from "../store";

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "agent-1", namespace: "amazon-cloudwatch", uid: "u-1", resourceVersion: "42", creationTimestamp: "2026-01-01T00:00:00Z", labels: { app: "agent" } },
  spec: { nodeName: "node-1", containers: [{ name: "agent", image: "agent:1" }] },
  status: { phase: "Running", podIP: "10.0.0.5" },
} as unknown as KubeObject;

describe("what the demo writes to a real API server", () => {
  it("leaves out what the server sets, and a pod's status (it goes through the status subresource)", () => {
    const o = appliedObject("pods", pod);
    expect(o.metadata).toEqual({ name: "agent-1", namespace: "amazon-cloudwatch", labels: { app: "agent" } });
    expect(o).not.toHaveProperty("status");
    expect(o.spec).toEqual(pod.spec);
    expect(appliedStatus("pods", pod)).toEqual({ apiVersion: "v1", kind: "Pod", metadata: { name: "agent-1", namespace: "amazon-cloudwatch" }, status: { phase: "Running", podIP: "10.0.0.5" } });
  });

  it("keeps the status of a kind without a status subresource, and drops a Service's address only when asked", () => {
    const svc = { apiVersion: "v1", kind: "Service", metadata: { name: "s", namespace: "n" }, spec: { clusterIP: "172.20.1.2", clusterIPs: ["172.20.1.2"], ports: [] }, status: { loadBalancer: {} } } as unknown as KubeObject;
    expect(appliedObject("services", svc).status).toEqual({ loadBalancer: {} });
    expect(appliedStatus("services", svc)).toBeUndefined();
    expect((appliedObject("services", svc).spec as Record<string, unknown>).clusterIP).toBe("172.20.1.2");
    expect(appliedObject("services", svc, { withClusterIp: false }).spec).toEqual({ ports: [] });
  });

  it("names each object's path by its group, version and scope", () => {
    expect(objectPath("nodes", undefined, "ip-10-0-0-1")).toBe("/api/v1/nodes/ip-10-0-0-1");
    expect(objectPath("deployments", "ns", "d")).toBe("/apis/apps/v1/namespaces/ns/deployments/d");
    expect(objectPath("servicemonitors", "a b", "m")).toBe("/apis/monitoring.coreos.com/v1/namespaces/a%20b/servicemonitors/m");
    expect(objectPath("endpointslices", "ns", "e")).toBe("/apis/discovery.k8s.io/v1/namespaces/ns/endpointslices/e");
  });
});
