/** The kubeconfig the demo writes for its Kubernetes API: one cluster, one context, a dummy token, TLS not in use. */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { stringify } from "yaml";

export const CONTEXT_NAME = "allocation-lens-demo";

export function kubeconfigYaml(server: string, clusterName: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: clusterName, cluster: { server, "insecure-skip-tls-verify": true } }],
    users: [{ name: CONTEXT_NAME, user: { token: "allocation-lens-demo-token" } }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: clusterName, user: CONTEXT_NAME } }],
    "current-context": CONTEXT_NAME,
    preferences: {},
  });
}

/** Writes `<dir>/kubeconfig.yaml` (mode 0600, `dir` created when absent) naming `server`; returns its path. */
export async function writeKubeconfig(dir: string, server: string, clusterName = CONTEXT_NAME): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, "kubeconfig.yaml");
  await writeFile(file, kubeconfigYaml(server, clusterName), { mode: 0o600 });
  return file;
}
