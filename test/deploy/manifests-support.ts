/**
 * Test support: the kustomizations under deploy/ (the base and every overlay), rendered by `kubectl kustomize` with the
 * machine's kubectl, and the pieces the manifest and RBAC tests read out of them.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { parseConfig, type Config } from "@/lib/config/schema";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const KUBECTL = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].find((p) => fs.existsSync(p));

export type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [k: string]: unknown };
export type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** deploy/base and every directory of deploy/overlays: each is a documented way to deploy. */
export function kustomizations(): string[] {
  const overlays = fs
    .readdirSync(path.join(ROOT, "deploy/overlays"), { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(ROOT, "deploy/overlays", d.name, "kustomization.yaml")))
    .map((d) => `deploy/overlays/${d.name}`)
    .sort();
  return ["deploy/base", ...overlays];
}

export function render(dir: string): Obj[] {
  if (!KUBECTL) throw new Error("kubectl is needed to render deploy/ (kubectl kustomize): install Debian's kubernetes-client package");
  const text = execFileSync(KUBECTL, ["kustomize", path.join(ROOT, dir)], { encoding: "utf8" });
  return YAML.parseAllDocuments(text)
    .map((d) => d.toJS() as Obj)
    .filter(Boolean);
}

export const find = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind) as unknown as Any[];

export const DASHBOARD_CONTAINER = "allocation-lens";
export const PROXY_CONTAINER = "oauth2-proxy";

export function deployment(objs: Obj[]): Any {
  const deps = find(objs, "Deployment");
  if (deps.length !== 1) throw new Error(`expected one Deployment, got ${deps.length}`);
  return deps[0];
}

export function container(objs: Obj[], name: string): Any | undefined {
  return (deployment(objs).spec.template.spec.containers as Any[]).find((c) => c.name === name);
}

/**
 * The Deployment's pod and dashboard container, a volume by name and a dashboard mount by path (empty when absent), and the
 * mounts, of any container, whose volume the pod does not have.
 */
export function podParts(objs: Obj[]) {
  const dep = deployment(objs);
  const pod = dep.spec.template.spec;
  const c = container(objs, DASHBOARD_CONTAINER)!;
  const volumes = new Map<string, Any>((pod.volumes as Any[]).map((v) => [v.name, v]));
  const volume = (name: string): Any => volumes.get(name) ?? {};
  const mount = (p: string): Any => (c.volumeMounts as Any[]).find((m) => m.mountPath === p) ?? {};
  const unmounted = (pod.containers as Any[]).flatMap((ct) => ((ct.volumeMounts ?? []) as Any[]).map((m) => m.name as string)).filter((n) => !volumes.has(n));
  return { dep, pod, c, volume, mount, unmounted };
}

/** The configuration the dashboard reads: the generated ConfigMap's config.yaml, parsed and validated. */
export function renderedConfig(objs: Obj[]): { text: string; config: Config } {
  const cms = find(objs, "ConfigMap").filter((c) => c.metadata.name.startsWith("allocation-lens-config"));
  if (cms.length !== 1) throw new Error(`expected one allocation-lens-config ConfigMap, got ${cms.length}`);
  const text = cms[0].data["config.yaml"] as string;
  const r = parseConfig(YAML.parse(text));
  if (!r.ok) throw new Error(`the rendered config.yaml does not parse:\n${r.errors.join("\n")}`);
  return { text, config: r.config };
}

/** An RBAC request: group, resource, verb, and the namespace or none for cluster-wide. */
export type Call = { group: string; resource: string; verb: string; namespace: string | undefined };

export const key = (c: Call) => `${c.group || "core"}/${c.resource} ${c.verb} ${c.namespace === undefined ? "(cluster-wide)" : `in ${c.namespace}`}`;
export const keys = (calls: readonly Call[]) => [...new Set(calls.map(key))].sort();

/** What the rendered RBAC lets the ServiceAccount do, as calls; and what is wrong with its shape. */
export function grantedCalls(objs: Obj[], sa: { name: string; namespace: string }): { granted: Call[]; problems: string[] } {
  const granted: Call[] = [];
  const problems: string[] = [];
  const roles = new Map(find(objs, "Role").map((r) => [`${r.metadata.namespace}/${r.metadata.name}`, r]));
  const clusterRoles = new Map(find(objs, "ClusterRole").map((r) => [r.metadata.name as string, r]));
  const used = new Set<Any>();
  const grant = (role: Any, namespace: string | undefined, via: string) => {
    used.add(role);
    if (role.aggregationRule) problems.push(`${via}: an aggregated ClusterRole grants whatever other roles add`);
    for (const rule of (role.rules ?? []) as Any[]) {
      if (rule.resourceNames) problems.push(`${via}: resourceNames`);
      if (rule.nonResourceURLs) problems.push(`${via}: nonResourceURLs ${rule.nonResourceURLs}`);
      for (const list of [rule.apiGroups, rule.resources, rule.verbs] as string[][]) if ((list ?? []).includes("*")) problems.push(`${via}: a wildcard in ${JSON.stringify(rule)}`);
      for (const group of rule.apiGroups ?? []) for (const resource of rule.resources ?? []) for (const verb of rule.verbs ?? []) granted.push({ group, resource, verb, namespace });
    }
  };
  const isSa = (s: Any) => s.kind === "ServiceAccount" && s.name === sa.name && s.namespace === sa.namespace;
  for (const kind of ["RoleBinding", "ClusterRoleBinding"]) {
    for (const b of find(objs, kind)) {
      const via = `${kind} ${b.metadata.namespace ? `${b.metadata.namespace}/` : ""}${b.metadata.name}`;
      const subjects = (b.subjects ?? []) as Any[];
      if (!subjects.some(isSa)) {
        problems.push(`${via} does not bind the dashboard's ServiceAccount`);
        continue;
      }
      if (subjects.length !== 1) problems.push(`${via} binds other subjects too: ${JSON.stringify(subjects)}`);
      if (b.roleRef.apiGroup !== "rbac.authorization.k8s.io") problems.push(`${via}: roleRef.apiGroup ${b.roleRef.apiGroup}`);
      const namespace = kind === "RoleBinding" ? (b.metadata.namespace as string) : undefined;
      const role = b.roleRef.kind === "Role" && namespace ? roles.get(`${namespace}/${b.roleRef.name}`) : b.roleRef.kind === "ClusterRole" ? clusterRoles.get(b.roleRef.name) : undefined;
      if (!role) problems.push(`${via} refers to ${b.roleRef.kind} ${b.roleRef.name}, which is not rendered${kind === "RoleBinding" ? ` in ${namespace}` : ""}`);
      else grant(role, namespace, `${via} -> ${b.roleRef.kind} ${b.roleRef.name}`);
    }
  }
  for (const r of [...roles.values(), ...clusterRoles.values()]) if (!used.has(r)) problems.push(`${r.kind} ${r.metadata.name} is bound to nothing`);
  return { granted, problems };
}

/** Validates `o` against the Kubernetes OpenAPI schemas of kubernetes-models, or its CRD's model; throws what is wrong. */
export async function validateObject(o: Obj): Promise<void> {
  const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
  const pkg = MODEL_PACKAGES[group] ?? "kubernetes-models";
  const modulePath = `${pkg}/${group ? `${group}/` : ""}${version}/${o.kind}`;
  const mod = (await import(/* @vite-ignore */ modulePath)) as Record<string, (new (data: unknown) => { validate(): void }) | undefined>;
  const Model = mod[o.kind];
  if (!Model) throw new Error(`no model ${modulePath}`);
  new Model(o).validate();
}

/** The model packages of the CRDs the manifests use, by API group. */
const MODEL_PACKAGES: Record<string, string> = {
  "monitoring.coreos.com": "@kubernetes-models/prometheus-operator",
  "cert-manager.io": "@kubernetes-models/cert-manager",
  "gateway.networking.k8s.io": "@kubernetes-models/gateway-api",
};
