/**
 * The kubeconfig the demo writes for its Kubernetes API: one cluster, two users and contexts (TLS not in use): the
 * current `allocation-lens-demo` (a dummy token, allowed everything the demo serves) and
 * `allocation-lens-demo-no-portforward` (the user demo-viewer: no port-forward, no secrets; auth.ts).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { stringify } from "yaml";
import { NO_PORTFORWARD_TOKEN } from "./auth";

export const CONTEXT_NAME = "allocation-lens-demo";
export const NO_PORTFORWARD_CONTEXT = "allocation-lens-demo-no-portforward";

/**
 * `restricted`: the same API over TLS for the restricted context (kubectl sends a token only over TLS); without it the
 * restricted context names the plain-HTTP server too (what client-node uses, it sends the token either way).
 */
export function kubeconfigYaml(server: string, clusterName: string, restricted?: { server: string; caPem: string }): string {
  const restrictedCluster = restricted ? `${clusterName}-tls` : clusterName;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      { name: clusterName, cluster: { server, "insecure-skip-tls-verify": true } },
      ...(restricted ? [{ name: restrictedCluster, cluster: { server: restricted.server, "certificate-authority-data": Buffer.from(restricted.caPem).toString("base64") } }] : []),
    ],
    users: [
      { name: CONTEXT_NAME, user: { token: "allocation-lens-demo-token" } },
      { name: NO_PORTFORWARD_CONTEXT, user: { token: NO_PORTFORWARD_TOKEN } },
    ],
    contexts: [
      { name: CONTEXT_NAME, context: { cluster: clusterName, user: CONTEXT_NAME } },
      { name: NO_PORTFORWARD_CONTEXT, context: { cluster: restrictedCluster, user: NO_PORTFORWARD_CONTEXT } },
    ],
    "current-context": CONTEXT_NAME,
    preferences: {},
  });
}

/** Writes `<dir>/kubeconfig.yaml` (mode 0600, `dir` created when absent) naming `server`; returns its path. */
export async function writeKubeconfig(dir: string, server: string, clusterName = CONTEXT_NAME, restricted?: { server: string; caPem: string }): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, "kubeconfig.yaml");
  await writeFile(file, kubeconfigYaml(server, clusterName, restricted), { mode: 0o600 });
  return file;
}
