/**
 * Who a request of the demo's Kubernetes API is, by its bearer token (the demo kubeconfig's two users), and what the
 * restricted one may not do: `allocation-lens-demo-no-portforward-token` is the user `demo-viewer`, refused `create` on
 * pods/portforward and get/list/watch on secrets with the real API server's 403 Status. Any other request (no token,
 * the main token) is allowed, as before. A SelfSubjectAccessReview (what prometheus-operator's informers ask before
 * they list namespaces) is answered from the same rule: `accessReview`.
 */
import { status } from "./answers";
import { matchResource } from "./routes";

export const NO_PORTFORWARD_TOKEN = "allocation-lens-demo-no-portforward-token";
export const VIEWER_USER = "demo-viewer";

export interface Access {
  verb: string;
  resource: string;
  namespace?: string;
  name?: string;
}

/** The user a request runs as; undefined = unrestricted (no token, or the demo's main token). */
export function userOf(authorization: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return m && m[1] === NO_PORTFORWARD_TOKEN ? VIEWER_USER : undefined;
}

/** The 403 Status for `access` by `user`, or undefined when it is allowed. */
export function forbidden(user: string | undefined, access: Access): Record<string, unknown> | undefined {
  if (user !== VIEWER_USER) return undefined;
  const refused =
    (access.resource === "pods/portforward" && access.verb === "create") || (access.resource === "secrets" && ["get", "list", "watch"].includes(access.verb));
  if (!refused) return undefined;
  const [kind] = access.resource.split("/");
  const what = access.name !== undefined ? `${kind} "${access.name}"` : kind;
  const scope = access.namespace !== undefined ? `in the namespace "${access.namespace}"` : "at the cluster scope";
  return status(
    403,
    "Forbidden",
    `${what} is forbidden: User "${user}" cannot ${access.verb} resource "${access.resource}" in API group "" ${scope}`,
    access.name !== undefined ? { name: access.name, kind } : { kind },
  );
}

/** The secrets access a request path asks for (get, list or watch), or undefined when it names no secret. */
export function secretsAccess(segments: string[], watch: boolean): Access | undefined {
  const route = matchResource(segments);
  if (!route || route === "notFound" || route.info.group !== "" || route.info.resource !== "secrets") return undefined;
  const verb = watch || route.watchPrefix ? "watch" : route.name !== undefined ? "get" : "list";
  return { verb, resource: "secrets", namespace: route.namespace, name: route.name };
}

/** The resourceAttributes of a SelfSubjectAccessReview's spec. */
export interface ResourceAttributes {
  verb?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

const ADMIN_REASON = 'RBAC: allowed by ClusterRoleBinding "allocation-lens-demo-admin" of ClusterRole "cluster-admin" to User "allocation-lens-demo"';

/**
 * The status of a SelfSubjectAccessReview by `user`: allowed unless `forbidden` refuses the access (only the core group's
 * resources are refused; a denial carries no reason, as RBAC's does not).
 */
export function accessReview(user: string | undefined, attrs: ResourceAttributes | undefined, nonResource: boolean): { allowed: boolean; reason?: string } {
  if (user !== VIEWER_USER) return { allowed: true, reason: ADMIN_REASON };
  if (nonResource || !attrs) return { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"` };
  const resource = attrs.subresource ? `${attrs.resource ?? ""}/${attrs.subresource}` : (attrs.resource ?? "");
  const refused =
    (attrs.group ?? "") === "" &&
    forbidden(user, { verb: attrs.verb ?? "", resource, namespace: attrs.namespace || undefined, name: attrs.name || undefined }) !== undefined;
  return refused ? { allowed: false } : { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding "demo-viewer" of ClusterRole "view" to User "${user}"` };
}
