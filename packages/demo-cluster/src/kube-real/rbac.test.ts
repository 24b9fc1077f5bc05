import { describe, expect, it } from "vitest";
import { BOOTSTRAP_USER, DIALING_SUBRESOURCES, IDENTITIES, grants, rbacObjects, ruleProblems, type PolicyRule } from "./rbac";

describe("the demo control plane's RBAC", () => {
  it("grants no identity a subresource that makes the API server dial a pod, a Service or a node", () => {
    for (const [name, { rules }] of Object.entries(IDENTITIES)) {
      for (const d of DIALING_SUBRESOURCES) expect(grants(rules, d.group, d.resource, d.verb), `${name}: ${d.verb} ${d.resource}`).toBe(false);
    }
  });

  it("names no wildcard (a * resource would grant every subresource)", () => {
    for (const [name, { rules }] of Object.entries(IDENTITIES)) {
      for (const r of rules) {
        expect([...(r.apiGroups ?? []), ...(r.resources ?? []), ...r.verbs], name).not.toContain("*");
        expect((r.resources ?? []).filter((x) => x.includes("*")), name).toEqual([]);
      }
    }
  });

  it("matches as RBAC does, so that the checks above can fail", () => {
    const wide: PolicyRule[] = [{ apiGroups: [""], resources: ["*"], verbs: ["get"] }];
    expect(grants(wide, "", "pods/log", "get")).toBe(true);
    expect(grants([{ apiGroups: [""], resources: ["*/exec"], verbs: ["create"] }], "", "pods/exec", "create")).toBe(true);
    // RBAC has no "pods/*": only "*" and "*/<subresource>" are wildcards
    expect(grants([{ apiGroups: [""], resources: ["pods/*"], verbs: ["create"] }], "", "pods/exec", "create")).toBe(false);
    expect(grants([{ apiGroups: [""], resources: ["pods"], verbs: ["*"] }], "", "pods", "delete")).toBe(true);
    expect(grants([{ apiGroups: ["apps"], resources: ["pods"], verbs: ["get"] }], "", "pods", "get")).toBe(false);
  });

  it("refuses an extra identity's rules that name a wildcard or grant a dialing subresource, and nothing else", () => {
    for (const { rules } of Object.values(IDENTITIES)) expect(ruleProblems(rules)).toEqual([]);
    expect(ruleProblems([{ apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "list"] }, { nonResourceURLs: ["/version"], verbs: ["get"] }])).toEqual([]);
    expect(ruleProblems([{ apiGroups: [""], resources: ["pods", "pods/exec"], verbs: ["create"] }])).toEqual(["create pods/exec"]);
    expect(ruleProblems([{ apiGroups: [""], resources: ["services/proxy"], verbs: ["get"] }])).toEqual(["get services/proxy"]);
    const wide = ruleProblems([{ apiGroups: ["*"], resources: ["configmaps"], verbs: ["get"] }]);
    expect(wide).toEqual(["a wildcard (*)"]);
    expect(ruleProblems([{ nonResourceURLs: ["/metrics*"], verbs: ["get"] }])).toEqual(["a wildcard (/metrics*)"]);
    // a wildcard resource is also every dialing subresource
    expect(ruleProblems([{ apiGroups: [""], resources: ["*"], verbs: ["get"] }])).toContain("get pods/log");
  });

  it("gives an extra identity its own ClusterRole and binding beside the demo's", () => {
    const objs = rbacObjects([{ user: "an-operator", rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] }]) as { kind: string; metadata: { name: string }; rules?: PolicyRule[] }[];
    expect(objs.filter((o) => o.metadata.name === "an-operator").map((o) => o.kind).sort()).toEqual(["ClusterRole", "ClusterRoleBinding"]);
    expect(objs.find((o) => o.kind === "ClusterRole" && o.metadata.name === "an-operator")!.rules).toEqual([{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }]);
    expect(objs.length).toBe(rbacObjects().length + 2);
    // bound to a ServiceAccount instead of a user, when it runs as in a pod
    const sa = rbacObjects([{ user: "an-operator", rules: [], serviceAccount: { namespace: "ops", name: "op" } }]) as { kind: string; metadata: { name: string }; subjects?: unknown[] }[];
    expect(sa.find((o) => o.kind === "ClusterRoleBinding" && o.metadata.name === "an-operator")!.subjects).toEqual([{ kind: "ServiceAccount", name: "op", namespace: "ops" }]);
  });

  it("binds each identity to its own ClusterRole, none to system:masters", () => {
    const objs = rbacObjects() as { kind: string; metadata: { name: string }; subjects?: { kind: string; name: string }[]; roleRef?: { name: string } }[];
    for (const { user } of Object.values(IDENTITIES)) {
      expect(objs.find((o) => o.kind === "ClusterRole" && o.metadata.name === user)).toBeDefined();
      const b = objs.find((o) => o.kind === "ClusterRoleBinding" && o.metadata.name === user)!;
      expect(b.roleRef!.name).toBe(user);
      expect(b.subjects).toEqual([{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }]);
    }
    expect(objs.flatMap((o) => o.subjects ?? []).map((s) => s.name)).not.toContain("system:masters");
    expect(Object.values(IDENTITIES).map((i) => i.user)).not.toContain(BOOTSTRAP_USER.name);
  });
});
