import { describe, expect, it } from "vitest";
import { forbidden, NO_PORTFORWARD_TOKEN, secretsAccess, userOf } from "./auth";
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
