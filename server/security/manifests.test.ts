/**
 * The Kubernetes manifests under deploy/, rendered by `kubectl kustomize` (the kubectl of the machine) and checked object by
 * object: known apiVersion/kind pairs, required fields, names and labels that fit together (selectors, ports, volumes,
 * ServiceAccount, ConfigMap), RBAC exactly get/list/watch on pods, nodes, servicemonitors and podmonitors, and the
 * restrictive securityContext. When the `kubernetes-models` packages are installed, every object is also validated against
 * the Kubernetes OpenAPI schemas they carry; until then that test is skipped and says so.
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { parseConfig } from "@/lib/config/schema";

const ROOT = path.resolve(import.meta.dirname, "../..");
const KUBECTL = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].find((p) => fs.existsSync(p));
if (!KUBECTL) throw new Error("kubectl is needed to render deploy/ (kubectl kustomize): install Debian's kubernetes-client package");

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [k: string]: unknown };
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function render(dir: string): Obj[] {
  const text = execFileSync(KUBECTL!, ["kustomize", path.join(ROOT, dir)], { encoding: "utf8" });
  return YAML.parseAllDocuments(text).map((d) => d.toJS() as Obj).filter(Boolean);
}

/** apiVersion/kind pairs a Kubernetes 1.25+ API server (with the Prometheus operator's CRDs) serves, and their scope. */
const KNOWN: Record<string, "cluster" | "namespaced"> = {
  "v1/Namespace": "cluster",
  "v1/ServiceAccount": "namespaced",
  "v1/ConfigMap": "namespaced",
  "v1/Service": "namespaced",
  "apps/v1/Deployment": "namespaced",
  "rbac.authorization.k8s.io/v1/ClusterRole": "cluster",
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": "cluster",
  "networking.k8s.io/v1/Ingress": "namespaced",
  "monitoring.coreos.com/v1/ServiceMonitor": "namespaced",
};

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const base = render("deploy/base");
const find = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind) as unknown as Any[];

describe("deploy/ manifests (kubectl kustomize)", () => {
  it("render to known kinds with valid names, labels and namespaces", () => {
    const ingress = render("deploy/overlays/ingress");
    for (const o of [...base, ...ingress]) {
      const key = `${o.apiVersion}/${o.kind}`;
      expect(KNOWN[key], `unknown apiVersion/kind ${key}`).toBeDefined();
      expect(o.metadata?.name, key).toMatch(DNS1123_SUBDOMAIN);
      expect(o.metadata.name.length).toBeLessThanOrEqual(253);
      if (KNOWN[key] === "namespaced") expect(o.metadata.namespace, `${key} ${o.metadata.name}`).toBe("allocation-lens");
      else expect(o.metadata.namespace, key).toBeUndefined();
      for (const [k, v] of Object.entries(o.metadata.labels ?? {})) expect(v, `${key} label ${k}`).toMatch(LABEL_VALUE);
    }
    expect(base.map((o) => o.kind).sort()).toEqual(["ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment", "Namespace", "Service", "ServiceAccount", "ServiceMonitor"]);
    expect(find(ingress, "Ingress")).toHaveLength(1);
    expect(find(base, "Ingress")).toHaveLength(0);
  });

  it("grant exactly get, list and watch on pods, nodes, servicemonitors and podmonitors: nothing more", () => {
    const [role] = find(base, "ClusterRole");
    const granted = new Set<string>();
    for (const rule of role.rules as Any[]) {
      expect([...rule.verbs].sort()).toEqual(["get", "list", "watch"]);
      expect(rule.resourceNames).toBeUndefined();
      expect(rule.nonResourceURLs).toBeUndefined();
      for (const g of rule.apiGroups) for (const r of rule.resources) granted.add(`${g || "core"}/${r}`);
    }
    expect([...granted].sort()).toEqual(["core/nodes", "core/pods", "monitoring.coreos.com/podmonitors", "monitoring.coreos.com/servicemonitors"]);
    expect(JSON.stringify(role.rules)).not.toContain("*");
    expect(role.aggregationRule).toBeUndefined();
    const [binding] = find(base, "ClusterRoleBinding");
    expect(binding.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role.metadata.name });
    const [sa] = find(base, "ServiceAccount");
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: sa.metadata.name, namespace: sa.metadata.namespace }]);
  });

  it("run the dashboard as non-root, read-only root filesystem, no capabilities, RuntimeDefault seccomp, bounded resources", () => {
    const [dep] = find(base, "Deployment");
    const pod = dep.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: "RuntimeDefault" } });
    expect(pod.hostNetwork ?? false).toBe(false);
    expect(pod.hostPID ?? false).toBe(false);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(10);
    expect(pod.serviceAccountName).toBe(find(base, "ServiceAccount")[0].metadata.name);
    expect(pod.containers).toHaveLength(1);
    const c = pod.containers[0];
    expect(c.securityContext).toMatchObject({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(c.securityContext.capabilities.add).toBeUndefined();
    expect(c.securityContext.privileged ?? false).toBe(false);
    for (const k of ["cpu", "memory"]) {
      expect(c.resources.requests[k], `requests.${k}`).toBeDefined();
    }
    expect(c.resources.limits.memory).toBeDefined();
    expect(c.livenessProbe.httpGet).toMatchObject({ path: "/api/healthz", port: "http" });
    expect(c.readinessProbe.httpGet).toMatchObject({ path: "/api/readyz", port: "http" });
    expect(c.startupProbe.httpGet.path).toBe("/api/healthz");
  });

  it("wire together: volumes, mounts, the generated ConfigMap, the TLS Secret, env, Service and ServiceMonitor", () => {
    const [dep] = find(base, "Deployment");
    const pod = dep.spec.template.spec;
    const c = pod.containers[0];
    const volumes = new Map<string, Any>((pod.volumes as Any[]).map((v) => [v.name, v]));
    const volume = (name: string): Any => volumes.get(name) ?? {};
    for (const m of c.volumeMounts as Any[]) expect(volumes.has(m.name), `volume ${m.name}`).toBe(true);
    const mount = (p: string): Any => (c.volumeMounts as Any[]).find((m) => m.mountPath === p) ?? {};
    expect(volume(mount("/data").name).emptyDir).toBeDefined();
    expect(volume(mount("/tmp").name).emptyDir).toBeDefined();
    expect(mount("/etc/allocation-lens/tls").readOnly).toBe(true);
    expect(volume(mount("/etc/allocation-lens/tls").name).secret.secretName).toBe("allocation-lens-ta-tls");
    const [cm] = find(base, "ConfigMap");
    expect(cm.metadata.name).toMatch(/^allocation-lens-config-[a-z0-9]{10}$/); // content hash: a changed config rolls the pods
    expect(volume(mount("/etc/allocation-lens/config").name).configMap.name).toBe(cm.metadata.name);
    const env = Object.fromEntries((c.env as Any[]).map((e) => [e.name, e.value]));
    expect(env.ALLOCATION_LENS_CONFIG).toBe(`/etc/allocation-lens/config/${Object.keys(cm.data)[0]}`);
    expect(c.ports).toEqual([{ name: "http", containerPort: Number(env.PORT), protocol: "TCP" }]);
    const selector = dep.spec.selector.matchLabels;
    for (const [k, v] of Object.entries(selector)) expect(dep.spec.template.metadata.labels[k]).toBe(v);
    const [svc] = find(base, "Service");
    expect(svc.spec.selector).toEqual(selector);
    expect(svc.spec.type).toBe("ClusterIP");
    expect(svc.spec.ports[0].targetPort).toBe("http");
    const [sm] = find(base, "ServiceMonitor");
    for (const [k, v] of Object.entries(sm.spec.selector.matchLabels)) expect(svc.metadata.labels[k]).toBe(v);
    expect(sm.spec.endpoints).toEqual([expect.objectContaining({ port: svc.spec.ports[0].name, path: "/metrics" })]);
  });

  it("ship a configuration the dashboard accepts: the CloudWatch TAs over HTTPS with the mounted certificate, in-cluster access", () => {
    const [cm] = find(base, "ConfigMap");
    const r = parseConfig(YAML.parse(cm.data["config.yaml"]));
    expect(r.ok ? [] : r.errors).toEqual([]);
    if (!r.ok) return;
    const cluster = r.config.clusters[0];
    expect(cluster.kubernetes.inCluster).toBe(true);
    for (const role of ["per-node", "cluster-scraper"] as const) {
      const ta = cluster.targetAllocators[role]!;
      expect(ta.flavor).toBe("cloudwatch");
      expect(ta.url).toMatch(/^https:\/\/[a-z0-9-]+-target-allocator-service\.amazon-cloudwatch:80$/);
      for (const f of [ta.tls?.ca, ta.tls?.cert, ta.tls?.key]) expect(f).toMatch(/^\/etc\/allocation-lens\/tls\//);
    }
    expect(r.config.history.path).toMatch(/^\/data\//);
    expect(r.config.auth.exemptPaths).toEqual(["/api/healthz", "/api/readyz"]);
  });

  it("route the Ingress to the Service's named port", () => {
    const ingress = render("deploy/overlays/ingress");
    const [ing] = find(ingress, "Ingress");
    const [svc] = find(ingress, "Service");
    const backend = ing.spec.rules[0].http.paths[0].backend.service;
    expect(backend).toEqual({ name: svc.metadata.name, port: { name: svc.spec.ports[0].name } });
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// schema validation with kubernetes-models (dev dependencies: kubernetes-models, @kubernetes-models/prometheus-operator)

describe("deploy/ manifests against the Kubernetes schemas (kubernetes-models)", () => {
  it("every rendered object validates", async () => {
    const objs = [...base, ...render("deploy/overlays/ingress").filter((o) => o.kind === "Ingress")];
    for (const o of objs) {
      const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
      const pkg = group === "monitoring.coreos.com" ? "@kubernetes-models/prometheus-operator" : "kubernetes-models";
      const modulePath = `${pkg}/${group ? `${group}/` : ""}${version}/${o.kind}`;
      const mod = (await import(/* @vite-ignore */ modulePath)) as Record<string, new (data: unknown) => { validate(): void }>;
      const Model = mod[o.kind];
      expect(Model, modulePath).toBeDefined();
      expect(() => new Model(o).validate(), `${o.kind}/${o.metadata.name}`).not.toThrow();
    }
  });
});
