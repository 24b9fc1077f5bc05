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

/** The configuration the dashboard reads: the generated ConfigMap's config.yaml, parsed and validated. */
export function renderedConfig(objs: Obj[]): { text: string; config: Config } {
  const cms = find(objs, "ConfigMap").filter((c) => c.metadata.name.startsWith("allocation-lens-config"));
  if (cms.length !== 1) throw new Error(`expected one allocation-lens-config ConfigMap, got ${cms.length}`);
  const text = cms[0].data["config.yaml"] as string;
  const r = parseConfig(YAML.parse(text));
  if (!r.ok) throw new Error(`the rendered config.yaml does not parse:\n${r.errors.join("\n")}`);
  return { text, config: r.config };
}
