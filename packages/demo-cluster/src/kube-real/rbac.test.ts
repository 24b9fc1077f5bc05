import { describe, expect, it } from "vitest";
import { BOOTSTRAP_USER, DIALING_SUBRESOURCES, IDENTITIES, grants, rbacObjects, type PolicyRule } from "./rbac";

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
