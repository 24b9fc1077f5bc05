/**
 * The Kubernetes manifests under deploy/, the base and every overlay, rendered by `kubectl kustomize` (the kubectl of the
 * machine) and checked object by object: known apiVersion/kind pairs, required fields, names and labels that fit together
 * (selectors, ports, volumes, ServiceAccount, ConfigMap), the restrictive securityContext of every container, a
 * NetworkPolicy, and no anonymous exposure: no rendered configuration in auth.mode none, and every Ingress reaching the
 * dashboard through oauth2-proxy only. The RBAC is held to the calls the code makes in rbac.test.ts. Every object is also
 * validated against the Kubernetes OpenAPI schemas the `kubernetes-models` packages carry.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { parseConfig } from "@/lib/config/schema";
import { OAUTH2_PROXY_UPSTREAM_HEADERS } from "@/lib/auth/decide";
import { container, DASHBOARD_CONTAINER, deployment, find, kustomizations, PROXY_CONTAINER, render, podParts, renderedConfig, ROOT, validateObject, type Any, type Obj } from "./manifests-support";

/** apiVersion/kind pairs a Kubernetes 1.25+ API server (with the Prometheus operator's CRDs) serves, and their scope. */
const KNOWN: Record<string, "cluster" | "namespaced"> = {
  "v1/Namespace": "cluster",
  "v1/ServiceAccount": "namespaced",
  "v1/ConfigMap": "namespaced",
  "v1/Service": "namespaced",
  "apps/v1/Deployment": "namespaced",
  "rbac.authorization.k8s.io/v1/ClusterRole": "cluster",
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": "cluster",
  "rbac.authorization.k8s.io/v1/Role": "namespaced",
  "rbac.authorization.k8s.io/v1/RoleBinding": "namespaced",
  "networking.k8s.io/v1/NetworkPolicy": "namespaced",
  "policy/v1/PodDisruptionBudget": "namespaced",
  "networking.k8s.io/v1/Ingress": "namespaced",
  "monitoring.coreos.com/v1/ServiceMonitor": "namespaced",
};

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const DIRS = kustomizations();
const rendered = new Map<string, Obj[]>(DIRS.map((d) => [d, render(d)]));
const base = rendered.get("deploy/base")!;
const each = [...rendered.entries()];

const args = (c: Any): Record<string, string> =>
  Object.fromEntries(((c.args ?? []) as string[]).map((a) => (a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, "true"])));
const envOf = (c: Any): Record<string, string | undefined> => Object.fromEntries(((c.env ?? []) as Any[]).map((e) => [e.name, e.value]));
/** The container port a Service targetPort (name or number) reaches, and the container it belongs to. */
function targetOf(objs: Obj[], targetPort: string | number): { container: string; port: number } | undefined {
  for (const c of deployment(objs).spec.template.spec.containers as Any[]) {
    for (const p of (c.ports ?? []) as Any[]) if (p.name === targetPort || p.containerPort === targetPort) return { container: c.name, port: p.containerPort };
  }
  return undefined;
}

describe("deploy/ manifests (kubectl kustomize)", () => {
  it("the base and the overlays ingress and oauth2-proxy are rendered", () => {
    expect(DIRS).toEqual(expect.arrayContaining(["deploy/base", "deploy/overlays/ingress", "deploy/overlays/oauth2-proxy"]));
  });

  it.each(each)("%s renders to known kinds with valid names, labels and namespaces", (_dir, objs) => {
    const { config } = renderedConfig(objs);
    // Roles live where their calls go: the collectors' namespaces, and the Leases' (the dashboard's own)
    const roleNamespaces = new Set([...config.clusters.flatMap((c) => Object.values(c.targetAllocators).map((t) => t!.collectors.namespace)), ...(config.lease ? [config.lease.namespace] : [])]);
    for (const o of objs) {
      const key = `${o.apiVersion}/${o.kind}`;
      expect(KNOWN[key], `unknown apiVersion/kind ${key}`).toBeDefined();
      expect(o.metadata?.name, key).toMatch(DNS1123_SUBDOMAIN);
      expect(o.metadata.name.length).toBeLessThanOrEqual(253);
      if (o.kind === "Role" || o.kind === "RoleBinding") expect(roleNamespaces.has(o.metadata.namespace!), `${key} ${o.metadata.name} in ${o.metadata.namespace}`).toBe(true);
      else if (KNOWN[key] === "namespaced") expect(o.metadata.namespace, `${key} ${o.metadata.name}`).toBe("allocation-lens");
      else expect(o.metadata.namespace, key).toBeUndefined();
      for (const [k, v] of Object.entries(o.metadata.labels ?? {})) expect(v, `${key} label ${k}`).toMatch(LABEL_VALUE);
      expect(o.metadata.labels?.["app.kubernetes.io/part-of"], `${key} ${o.metadata.name}`).toBe("allocation-lens");
    }
  });

  it("the base: its objects, no Ingress, no sidecar", () => {
    expect(base.map((o) => o.kind).sort()).toEqual(
      ["ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment", "Namespace", "NetworkPolicy", "PodDisruptionBudget", "Role", "Role", "RoleBinding", "RoleBinding", "Service", "ServiceAccount", "ServiceMonitor"].sort(),
    );
    expect(find(base, "Ingress")).toHaveLength(0);
    expect(container(base, PROXY_CONTAINER)).toBeUndefined();
    expect(find(rendered.get("deploy/overlays/ingress")!, "Ingress")).toHaveLength(1);
  });

  it.each(each)("%s runs every container as non-root, read-only root filesystem, no capabilities, RuntimeDefault seccomp, bounded resources", (_dir, objs) => {
    const dep = deployment(objs);
    const pod = dep.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: "RuntimeDefault" } });
    expect(pod.hostNetwork ?? false).toBe(false);
    expect(pod.hostPID ?? false).toBe(false);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(10);
    expect(pod.serviceAccountName).toBe(find(objs, "ServiceAccount")[0].metadata.name);
    for (const c of pod.containers as Any[]) {
      expect(c.securityContext, c.name).toMatchObject({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
        seccompProfile: { type: "RuntimeDefault" },
      });
      expect(c.securityContext.capabilities.add).toBeUndefined();
      expect(c.securityContext.privileged ?? false).toBe(false);
      for (const k of ["cpu", "memory"]) expect(c.resources.requests[k], `${c.name} requests.${k}`).toBeDefined();
      expect(c.resources.limits.memory, c.name).toBeDefined();
      expect(c.livenessProbe?.httpGet, `${c.name} liveness`).toBeDefined();
      expect(c.readinessProbe?.httpGet, `${c.name} readiness`).toBeDefined();
    }
    const c = container(objs, DASHBOARD_CONTAINER)!;
    expect(c.livenessProbe.httpGet).toMatchObject({ path: "/api/healthz", port: "http" });
    expect(c.readinessProbe.httpGet).toMatchObject({ path: "/api/readyz", port: "http" });
    expect(c.startupProbe.httpGet.path).toBe("/api/healthz");
  });

  it.each(each)("%s wires together: volumes, mounts, the generated ConfigMap, the Secrets, env, Service and ServiceMonitor", (_dir, objs) => {
    const { dep, c, volume, mount, unmounted } = podParts(objs);
    expect(unmounted, "mounts without a volume").toEqual([]);
    expect(volume(mount("/data").name).emptyDir).toBeDefined();
    expect(volume(mount("/tmp").name).emptyDir).toBeDefined();
    expect(mount("/etc/allocation-lens/tls").readOnly).toBe(true);
    expect(volume(mount("/etc/allocation-lens/tls").name).secret.secretName).toBe("allocation-lens-ta-tls");
    const [cm] = find(objs, "ConfigMap");
    expect(cm.metadata.name).toMatch(/^allocation-lens-config-[a-z0-9]{10}$/); // content hash: a changed config rolls the pods
    expect(volume(mount("/etc/allocation-lens/config").name).configMap.name).toBe(cm.metadata.name);
    const env = envOf(c);
    expect(env.ALLOCATION_LENS_CONFIG).toBe(`/etc/allocation-lens/config/${Object.keys(cm.data)[0]}`);
    expect(c.ports).toEqual([{ name: "http", containerPort: Number(env.PORT), protocol: "TCP" }]);
    const { config } = renderedConfig(objs);
    if (config.auth.tokenFile) {
      expect(mount(path.dirname(config.auth.tokenFile)).readOnly).toBe(true);
      expect(volume(mount(path.dirname(config.auth.tokenFile)).name).secret.secretName).toBe("allocation-lens-tokens");
    }
    const selector = dep.spec.selector.matchLabels;
    for (const [k, v] of Object.entries(selector)) expect(dep.spec.template.metadata.labels[k]).toBe(v);
    const [svc] = find(objs, "Service");
    expect(svc.spec.selector).toEqual(selector);
    expect(svc.spec.type).toBe("ClusterIP");
    const port = (name: string): Any => (svc.spec.ports as Any[]).find((p) => p.name === name) ?? {};
    expect(targetOf(objs, port("http").targetPort)?.container).toBe(container(objs, PROXY_CONTAINER) ? PROXY_CONTAINER : DASHBOARD_CONTAINER);
    // Prometheus scrapes the dashboard itself, never through the proxy
    expect(targetOf(objs, port("metrics").targetPort)).toEqual({ container: DASHBOARD_CONTAINER, port: Number(env.PORT) });
    const [sm] = find(objs, "ServiceMonitor");
    for (const [k, v] of Object.entries(sm.spec.selector.matchLabels)) expect(svc.metadata.labels[k]).toBe(v);
    expect(sm.spec.endpoints).toEqual([expect.objectContaining({ port: "metrics", path: "/metrics" })]);
    expect(config.auth.mode === "none" || config.auth.exemptPaths.includes("/metrics"), "the ServiceMonitor's /metrics is served to the scraper").toBe(true);
  });

  it.each(each)("%s runs two replicas with one poller per cluster: Leases in its namespace, a PDB, the pod's name and IP, the peer token Secret", (_dir, objs) => {
    const dep = deployment(objs);
    const { config } = renderedConfig(objs);
    expect(dep.spec.replicas).toBe(2);
    expect(config.lease?.namespace).toBe(dep.metadata.namespace);
    const pdbs = find(objs, "PodDisruptionBudget");
    expect(pdbs).toHaveLength(1);
    expect(pdbs[0].spec).toEqual({ minAvailable: 1, selector: { matchLabels: dep.spec.selector.matchLabels } });
    const c = container(objs, DASHBOARD_CONTAINER)!;
    const env = new Map<string, Any>((c.env as Any[]).map((e) => [e.name, e]));
    expect(env.get("POD_NAME")?.valueFrom).toEqual({ fieldRef: { fieldPath: "metadata.name" } });
    expect(env.get("POD_IP")?.valueFrom).toEqual({ fieldRef: { fieldPath: "status.podIP" } });
    const mount = (c.volumeMounts as Any[]).find((m) => m.mountPath === path.dirname(config.lease!.peerTokenFile));
    expect(mount?.readOnly).toBe(true);
    const volume = (dep.spec.template.spec.volumes as Any[]).find((v) => v.name === mount!.name);
    expect(volume?.secret).toEqual({ secretName: "allocation-lens-peer", defaultMode: 0o440 });
    // least privilege for the Leases: get, list, create and update of leases in the dashboard's namespace, nothing else
    const leaseRoles = find(objs, "Role").filter((r) => (r.rules as Any[]).some((rule) => (rule.apiGroups as string[]).includes("coordination.k8s.io")));
    expect(leaseRoles).toHaveLength(1);
    expect(leaseRoles[0].metadata.namespace).toBe(config.lease!.namespace);
    expect(leaseRoles[0].rules).toEqual([{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "list", "create", "update"] }]);
    for (const r of [...find(objs, "Role"), ...find(objs, "ClusterRole")]) {
      if (r === leaseRoles[0]) continue;
      for (const rule of r.rules as Any[]) expect(rule.apiGroups, `${r.kind} ${r.metadata.name}`).not.toContain("coordination.k8s.io");
    }
  });

  it("ship a configuration the dashboard accepts: the CloudWatch TAs over HTTPS with the mounted certificate, in-cluster access", () => {
    const { config } = renderedConfig(base);
    const cluster = config.clusters[0];
    expect(cluster.kubernetes.inCluster).toBe(true);
    for (const role of ["per-node", "cluster-scraper"] as const) {
      const ta = cluster.targetAllocators[role]!;
      expect(ta.flavor).toBe("cloudwatch");
      expect(ta.url).toMatch(/^https:\/\/[a-z0-9-]+-target-allocator-service\.amazon-cloudwatch:80$/);
      for (const f of [ta.tls?.ca, ta.tls?.cert, ta.tls?.key]) expect(f).toMatch(/^\/etc\/allocation-lens\/tls\//);
    }
    expect(config.history.path).toMatch(/^\/data\//);
    expect(config.auth.exemptPaths.sort()).toEqual(["/api/healthz", "/api/readyz", "/metrics"]);
  });
});

describe("no anonymous exposure", () => {
  it.each(each)("%s: the rendered config.yaml is not auth.mode none, and nothing is published outside the cluster but through oauth2-proxy", (_dir, objs) => {
    const { config } = renderedConfig(objs);
    expect(config.auth.mode).not.toBe("none");
    for (const svc of find(objs, "Service")) expect(svc.spec.type ?? "ClusterIP", svc.metadata.name).toBe("ClusterIP");
    const proxy = container(objs, PROXY_CONTAINER);
    for (const ing of find(objs, "Ingress")) {
      expect(proxy, "an Ingress without oauth2-proxy").toBeDefined();
      const backends = (ing.spec.rules as Any[]).flatMap((r) => (r.http.paths as Any[]).map((p) => p.backend.service));
      if (ing.spec.defaultBackend) backends.push(ing.spec.defaultBackend.service);
      expect(backends.length).toBeGreaterThan(0);
      for (const b of backends) {
        const svc = find(objs, "Service").find((s) => s.metadata.name === b.name);
        expect(svc, `Service ${b.name}`).toBeDefined();
        const sp = (svc!.spec.ports as Any[]).find((p) => (b.port.name ? p.name === b.port.name : p.port === b.port.number)) ?? {};
        expect(targetOf(objs, sp.targetPort)?.container, `Ingress ${ing.metadata.name} -> ${b.name}:${b.port.name ?? b.port.number}`).toBe(PROXY_CONTAINER);
      }
    }
  });

  it.each(each.filter(([, objs]) => container(objs, PROXY_CONTAINER)))("%s: oauth2-proxy in the pod, the dashboard trusting exactly it and the headers it sets", (_dir, objs) => {
    const { config } = renderedConfig(objs);
    const proxy = container(objs, PROXY_CONTAINER)!;
    const dashboardPort = Number(envOf(container(objs, DASHBOARD_CONTAINER)!).PORT);
    const a = args(proxy);
    expect(config.auth.mode).toBe("proxy");
    expect(config.auth.trustedProxies).toEqual(["127.0.0.1/32"]);
    expect(a["--upstream"]).toBe(`http://127.0.0.1:${dashboardPort}/`);
    // the user headers the dashboard believes are the ones oauth2-proxy sets upstream, and strips from the client first
    expect(config.auth.userHeaders).toEqual([...OAUTH2_PROXY_UPSTREAM_HEADERS]);
    expect(a["--pass-user-headers"]).toBe("true");
    expect(a["--skip-auth-strip-headers"] ?? "true").toBe("true");
    expect(a["--cookie-secure"]).toBe("true");
    for (const flag of ["--skip-auth-regex", "--skip-auth-route", "--skip-auth-preflight", "--skip-jwt-bearer-tokens"]) expect(a[flag], flag).toBeUndefined();
    const env = envOf(proxy);
    for (const secret of ["OAUTH2_PROXY_CLIENT_SECRET", "OAUTH2_PROXY_COOKIE_SECRET"]) {
      expect(env[secret], `${secret} comes from a Secret`).toBeUndefined();
      expect((proxy.env as Any[]).find((e) => e.name === secret)?.valueFrom.secretKeyRef.name).toBe("allocation-lens-oauth2-proxy");
    }
    expect(env.OAUTH2_PROXY_EMAIL_DOMAINS).not.toBe("*");
    expect(proxy.livenessProbe.httpGet.port).toBe("proxy");
  });

  it("the oauth2-proxy component's config.yaml is the base's but for auth", () => {
    const read = (f: string) => YAML.parse(fs.readFileSync(path.join(ROOT, f), "utf8"));
    const b = read("deploy/base/config.yaml");
    const p = read("deploy/components/oauth2-proxy/config.yaml");
    expect(parseConfig(p).ok).toBe(true);
    expect({ ...p, auth: undefined }).toEqual({ ...b, auth: undefined });
  });

  it("the Ingress routes to the Service's named port", () => {
    const objs = rendered.get("deploy/overlays/ingress")!;
    const [ing] = find(objs, "Ingress");
    const backend = ing.spec.rules[0].http.paths[0].backend.service;
    expect(backend).toEqual({ name: find(objs, "Service")[0].metadata.name, port: { name: "http" } });
  });
});

describe("NetworkPolicy", () => {
  const peers = (rule: Any) => JSON.stringify(rule.from ?? rule.to ?? "anywhere");
  const ports = (rule: Any) => ((rule.ports ?? []) as Any[]).map((p) => `${p.protocol ?? "TCP"}/${p.port}`).sort();

  it.each(each)("%s: one policy on the dashboard's pods; ingress from named peers to named ports; egress to the TAs, the API, DNS, the other replica only", (_dir, objs) => {
    const policies = find(objs, "NetworkPolicy");
    expect(policies).toHaveLength(1);
    const [np] = policies;
    const dep = deployment(objs);
    expect(np.spec.podSelector.matchLabels).toEqual(dep.spec.selector.matchLabels);
    expect([...np.spec.policyTypes].sort()).toEqual(["Egress", "Ingress"]);
    const containerPorts = new Set((dep.spec.template.spec.containers as Any[]).flatMap((c) => ((c.ports ?? []) as Any[]).map((p) => p.name)));
    for (const rule of np.spec.ingress as Any[]) {
      expect(rule.from?.length, `an ingress rule without from admits everyone: ${JSON.stringify(rule)}`).toBeGreaterThan(0);
      for (const peer of rule.from as Any[]) {
        expect(peer.ipBlock, "ingress by address").toBeUndefined();
        expect(Object.keys(peer.namespaceSelector?.matchLabels ?? {}), `a peer from every namespace: ${JSON.stringify(peer)}`).toContain("kubernetes.io/metadata.name");
      }
      expect(rule.ports?.length, "ingress to every port").toBeGreaterThan(0);
      for (const p of rule.ports as Any[]) expect(containerPorts.has(p.port), `ingress port ${p.port} is a container port's name`).toBe(true);
    }
    // the scraper reaches the dashboard's own port; with oauth2-proxy, only the ingress controller reaches the proxy
    const byPort = (name: string) => (np.spec.ingress as Any[]).filter((r) => (r.ports as Any[]).some((p) => p.port === name)).map(peers);
    const replicas = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "allocation-lens" } }, podSelector: { matchLabels: dep.spec.selector.matchLabels } };
    // ... and the other replica, on the peer path
    expect(byPort("http")).toEqual([JSON.stringify([{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "amazon-cloudwatch" } } }]), JSON.stringify([replicas])]);
    if (find(objs, "Ingress").length) expect(byPort("proxy")).toEqual([JSON.stringify([{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } }, podSelector: { matchLabels: { "app.kubernetes.io/name": "ingress-nginx" } } }])]);
    else expect(byPort("proxy")).toEqual([]);
    const egress = (np.spec.egress as Any[]).map((r) => `${peers(r)} ${ports(r).join(",")}`).sort();
    const ns = (n: string) => ({ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": n } } });
    expect(egress).toEqual(
      [
        `${JSON.stringify([ns("amazon-cloudwatch")])} TCP/80,TCP/8443`,
        `"anywhere" TCP/443,TCP/6443`,
        `${JSON.stringify([{ ...ns("kube-system"), podSelector: { matchLabels: { "k8s-app": "kube-dns" } } }])} TCP/53,UDP/53`,
        `${JSON.stringify([replicas])} TCP/3000`,
      ].sort(),
    );
    // every TA the configuration names lives in a namespace the policy lets the dashboard reach
    for (const c of renderedConfig(objs).config.clusters) {
      for (const ta of Object.values(c.targetAllocators)) expect(new URL(ta!.url).hostname.split(".")[1], ta!.url).toBe("amazon-cloudwatch");
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// schema validation with kubernetes-models (dev dependencies: kubernetes-models, @kubernetes-models/prometheus-operator)

describe("deploy/ manifests against the Kubernetes schemas (kubernetes-models)", () => {
  it.each(each)("%s: every rendered object validates", async (_dir, objs) => {
    for (const o of objs) await expect(validateObject(o), `${o.kind}/${o.metadata.name}`).resolves.toBeUndefined();
  });
});
