/**
 * Who may do what on the demo's real control plane (`--kube real`), as RBAC objects its bootstrap identity creates at
 * start. The rule of this control plane: nothing may ask it to connect anywhere, so no identity the demo hands out is
 * granted a subresource that makes kube-apiserver dial a pod, a Service or a node (proxy, port-forward, exec, attach,
 * log), no rule names a wildcard (a `*` resource would grant those subresources too), and none of them is in
 * `system:masters`. Pure data: kube-real/control-plane.ts applies it, rbac.test.ts holds it to the rule.
 */

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

/** The subresources that make the API server connect to a pod, a Service or a node: refused to every demo identity. */
export const DIALING_SUBRESOURCES: readonly { group: string; resource: string; verb: string }[] = [
  { group: "", resource: "pods/proxy", verb: "get" },
  { group: "", resource: "pods/proxy", verb: "create" },
  { group: "", resource: "services/proxy", verb: "get" },
  { group: "", resource: "services/proxy", verb: "create" },
  { group: "", resource: "nodes/proxy", verb: "get" },
  { group: "", resource: "pods/portforward", verb: "create" },
  { group: "", resource: "pods/portforward", verb: "get" },
  { group: "", resource: "pods/exec", verb: "create" },
  { group: "", resource: "pods/exec", verb: "get" },
  { group: "", resource: "pods/attach", verb: "create" },
  { group: "", resource: "pods/log", verb: "get" },
];

const READ = ["get", "list", "watch"];
const WRITE = ["get", "list", "watch", "create", "update", "patch", "delete"];

/** The monitoring CRDs' resources (prometheus-operator's, as upstream's allocator reads them). */
export const MONITORING_RESOURCES = ["servicemonitors", "podmonitors", "probes", "scrapeconfigs", "prometheusrules"];

/**
 * The demo's own identity: it writes the world as the kubelet and the controllers would (objects, then their status
 * through the status subresource) and reads it back; kubectl uses it too (the kubeconfig's current context).
 */
export const WRITER_RULES: PolicyRule[] = [
  { apiGroups: [""], resources: ["nodes", "nodes/status", "pods", "pods/status", "namespaces", "serviceaccounts", "services", "services/status", "endpoints", "configmaps", "secrets", "events"], verbs: WRITE },
  { apiGroups: ["apps"], resources: ["deployments", "deployments/status", "daemonsets", "daemonsets/status", "replicasets"], verbs: WRITE },
  { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: WRITE },
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: WRITE },
  { apiGroups: ["monitoring.coreos.com"], resources: MONITORING_RESOURCES, verbs: WRITE },
  { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"], verbs: READ },
  { apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles", "clusterrolebindings", "roles", "rolebindings"], verbs: READ },
];

/** A Target Allocator: what its Kubernetes service discovery, its collector watch and its monitor watch read. */
export const TARGET_ALLOCATOR_RULES: PolicyRule[] = [
  { apiGroups: [""], resources: ["pods", "nodes", "services", "endpoints", "namespaces", "configmaps", "secrets"], verbs: READ },
  { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: READ },
  { apiGroups: ["monitoring.coreos.com"], resources: MONITORING_RESOURCES, verbs: READ },
  { nonResourceURLs: ["/metrics"], verbs: ["get"] },
];

/**
 * The dashboard of the demo's generated configurations: the deployment's own grants (nodes and monitors cluster-wide,
 * the collectors' pods) plus what `targetAllocators: auto` lists (the operators' ConfigMaps, Services and Deployments)
 * and its Leases. The manifests' exact RBAC is held to the real server by the deploy suites, not by this role.
 */
export const DASHBOARD_RULES: PolicyRule[] = [
  { apiGroups: [""], resources: ["nodes", "pods", "configmaps", "services"], verbs: ["list", "watch"] },
  { apiGroups: ["apps"], resources: ["deployments"], verbs: ["list", "watch"] },
  { apiGroups: ["monitoring.coreos.com"], resources: ["servicemonitors", "podmonitors"], verbs: ["list", "watch"] },
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "list", "create", "update"] },
];

/** The restricted kubeconfig context's user: reads the world but not its Secrets. */
export const VIEWER_RULES: PolicyRule[] = [
  { apiGroups: [""], resources: ["pods", "nodes", "services", "endpoints", "namespaces", "configmaps", "events", "serviceaccounts"], verbs: READ },
  { apiGroups: ["apps"], resources: ["deployments", "daemonsets", "replicasets"], verbs: READ },
  { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: READ },
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: READ },
  { apiGroups: ["monitoring.coreos.com"], resources: MONITORING_RESOURCES, verbs: READ },
];

/**
 * Who installs the deploy manifests and the Helm chart in the tests: the objects they hold, and every permission the
 * roles they create grant (RBAC lets a user create a role only with permissions it holds: no `escalate`, no `bind`).
 */
export const INSTALLER_RULES: PolicyRule[] = [
  { apiGroups: [""], resources: ["namespaces", "serviceaccounts", "configmaps", "secrets", "services", "pods", "nodes", "persistentvolumeclaims"], verbs: WRITE },
  { apiGroups: [""], resources: ["serviceaccounts/token"], verbs: ["create"] },
  { apiGroups: ["cert-manager.io"], resources: ["certificates"], verbs: WRITE },
  { apiGroups: ["apps"], resources: ["deployments", "replicasets"], verbs: WRITE },
  { apiGroups: ["policy"], resources: ["poddisruptionbudgets"], verbs: WRITE },
  { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies", "ingresses"], verbs: WRITE },
  { apiGroups: ["gateway.networking.k8s.io"], resources: ["httproutes"], verbs: WRITE },
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: WRITE },
  { apiGroups: ["monitoring.coreos.com"], resources: MONITORING_RESOURCES, verbs: WRITE },
  { apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles", "clusterrolebindings", "roles", "rolebindings"], verbs: WRITE },
  { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"], verbs: READ },
];

/** The identities the demo hands out, each a client certificate's user bound to one ClusterRole of the same name. */
export const IDENTITIES = {
  writer: { user: "allocation-lens-demo", rules: WRITER_RULES },
  targetAllocator: { user: "allocation-lens-demo-target-allocator", rules: TARGET_ALLOCATOR_RULES },
  dashboard: { user: "allocation-lens-demo-dashboard", rules: DASHBOARD_RULES },
  viewer: { user: "demo-viewer", rules: VIEWER_RULES },
  installer: { user: "allocation-lens-demo-installer", rules: INSTALLER_RULES },
} as const;
export type IdentityName = keyof typeof IDENTITIES;

/** The user that creates the RBAC objects and CRDs at start: in system:masters, its key held in memory only, used for nothing else. */
export const BOOTSTRAP_USER = { name: "allocation-lens-demo-bootstrap", groups: ["system:masters"] } as const;

/** An identity beyond the demo's own, asked for by its user (e.g. an operator run against the server, with its role). */
export interface ExtraIdentity {
  /** the ClusterRole's name, and the client certificate's user unless `serviceAccount` is given */
  user: string;
  rules: PolicyRule[];
  /** bind the role to this ServiceAccount instead (its tokens come from a TokenRequest): no client certificate */
  serviceAccount?: { namespace: string; name: string };
}

/**
 * What breaks the control plane's rule in `rules`: each wildcard, and each subresource that makes the server dial; empty
 * when they may be granted.
 */
export function ruleProblems(rules: readonly PolicyRule[]): string[] {
  const problems: string[] = [];
  for (const r of rules) {
    const wild = [...(r.apiGroups ?? []), ...(r.resources ?? []), ...r.verbs, ...(r.nonResourceURLs ?? [])].filter((x) => x.includes("*"));
    if (wild.length) problems.push(`a wildcard (${wild.join(", ")})`);
  }
  for (const d of DIALING_SUBRESOURCES) if (grants(rules, d.group, d.resource, d.verb)) problems.push(`${d.verb} ${d.resource}`);
  return problems;
}

/** The ClusterRole and ClusterRoleBinding of every identity, and of each extra one. */
export function rbacObjects(extra: readonly ExtraIdentity[] = []): Record<string, unknown>[] {
  const labels = { "app.kubernetes.io/part-of": "allocation-lens-demo" };
  return [...Object.values(IDENTITIES), ...extra].flatMap(({ user, rules, ...rest }) => [
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: user, labels }, rules },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: user, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: user },
      subjects: [
        "serviceAccount" in rest && rest.serviceAccount
          ? { kind: "ServiceAccount", name: rest.serviceAccount.name, namespace: rest.serviceAccount.namespace }
          : { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user },
      ],
    },
  ]);
}

/** Whether `rules` grant `verb` on `group`/`resource` (RBAC's matching: exact names or `*`). */
export function grants(rules: readonly PolicyRule[], group: string, resource: string, verb: string): boolean {
  return rules.some(
    (r) =>
      (r.apiGroups ?? []).some((g) => g === "*" || g === group) &&
      (r.resources ?? []).some((x) => x === "*" || x === resource || (x.startsWith("*/") && resource.endsWith(x.slice(1)))) &&
      r.verbs.some((v) => v === "*" || v === verb),
  );
}
