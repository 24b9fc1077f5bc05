import { describe, expect, it } from "vitest";
import { forbidden, NO_PORTFORWARD_TOKEN, secretsAccess, userOf, writeAccess } from "./auth";
import { kubeconfigYaml, NO_PORTFORWARD_CONTEXT } from "./kubeconfig";
import YAML from "yaml";

describe("the demo API's users", () => {
  it("knows the restricted user by its token only", () => {
    expect(userOf(`Bearer ${NO_PORTFORWARD_TOKEN}`)).toBe("demo-viewer");
    expect(userOf("Bearer allocation-lens-demo-token")).toBeUndefined();
    expect(userOf(undefined)).toBeUndefined();
  });

  it("refuses port-forward and secrets to demo-viewer with the API server's Status, nothing else", () => {
    expect(forbidden("demo-viewer", { verb: "create", resource: "pods/portforward", namespace: "ns", name: "p" })).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'pods "p" is forbidden: User "demo-viewer" cannot create resource "pods/portforward" in API group "" in the namespace "ns"',
      reason: "Forbidden",
      details: { name: "p", kind: "pods" },
      code: 403,
    });
    expect(forbidden("demo-viewer", { verb: "get", resource: "secrets", namespace: "ns", name: "s" })?.message).toBe(
      'secrets "s" is forbidden: User "demo-viewer" cannot get resource "secrets" in API group "" in the namespace "ns"',
    );
    expect(forbidden("demo-viewer", { verb: "list", resource: "secrets" })?.message).toBe('secrets is forbidden: User "demo-viewer" cannot list resource "secrets" in API group "" at the cluster scope');
    expect(forbidden("demo-viewer", { verb: "list", resource: "pods", namespace: "ns" })).toBeUndefined();
    expect(forbidden(undefined, { verb: "create", resource: "pods/portforward", namespace: "ns", name: "p" })).toBeUndefined();
  });

  it("refuses every write to demo-viewer (a reader, as its ClusterRole on a real server), but a self-review", () => {
    const lease = writeAccess("POST", ["apis", "coordination.k8s.io", "v1", "namespaces", "ns", "leases"]);
    expect(lease).toEqual({ verb: "create", resource: "leases", group: "coordination.k8s.io", namespace: "ns", name: undefined });
    expect(forbidden("demo-viewer", lease!)).toMatchObject({
      code: 403,
      message: 'leases.coordination.k8s.io is forbidden: User "demo-viewer" cannot create resource "leases" in API group "coordination.k8s.io" in the namespace "ns"',
      details: { group: "coordination.k8s.io", kind: "leases" },
    });
    expect(writeAccess("PUT", ["apis", "coordination.k8s.io", "v1", "namespaces", "ns", "leases", "l"])).toMatchObject({ verb: "update", name: "l" });
    expect(writeAccess("DELETE", ["api", "v1", "namespaces", "ns", "pods"])).toMatchObject({ verb: "deletecollection", resource: "pods", group: "" });
    expect(writeAccess("PATCH", ["api", "v1", "namespaces", "ns", "pods", "p", "status"])).toMatchObject({ verb: "patch", resource: "pods/status" });
    expect(writeAccess("GET", ["api", "v1", "pods"])).toBeUndefined();
    const review = writeAccess("POST", ["apis", "authorization.k8s.io", "v1", "selfsubjectaccessreviews"])!;
    expect(forbidden("demo-viewer", review)).toBeUndefined();
    expect(forbidden(undefined, lease!)).toBeUndefined();
  });

  it("reads the secrets access a path asks for", () => {
    expect(secretsAccess(["api", "v1", "namespaces", "ns", "secrets"], false)).toEqual({ verb: "list", resource: "secrets", namespace: "ns", name: undefined });
    expect(secretsAccess(["api", "v1", "namespaces", "ns", "secrets", "x"], false)).toMatchObject({ verb: "get", name: "x" });
    expect(secretsAccess(["api", "v1", "secrets"], true)).toMatchObject({ verb: "watch", namespace: undefined });
    expect(secretsAccess(["api", "v1", "watch", "namespaces", "ns", "secrets"], false)).toMatchObject({ verb: "watch", namespace: "ns" });
    expect(secretsAccess(["api", "v1", "namespaces", "ns", "pods"], false)).toBeUndefined();
  });

  it("writes both contexts; the current one stays the demo's, the restricted one names the TLS listener when given", () => {
    const plain = YAML.parse(kubeconfigYaml("http://127.0.0.1:1", "demo"));
    expect(plain["current-context"]).toBe("allocation-lens-demo");
    expect(plain.contexts.map((c: { name: string }) => c.name)).toEqual(["allocation-lens-demo", NO_PORTFORWARD_CONTEXT]);
    expect(plain.users[1]).toEqual({ name: NO_PORTFORWARD_CONTEXT, user: { token: NO_PORTFORWARD_TOKEN } });
    expect(plain.contexts[1].context.cluster).toBe("demo");
    const tls = YAML.parse(kubeconfigYaml("http://127.0.0.1:1", "demo", { server: "https://127.0.0.1:2", caPem: "CA" }));
    expect(tls.contexts[1].context.cluster).toBe("demo-tls");
    expect(tls.clusters[1]).toEqual({ name: "demo-tls", cluster: { server: "https://127.0.0.1:2", "certificate-authority-data": Buffer.from("CA").toString("base64") } });
  });
});
