/**
 * Who a request of the demo's Kubernetes API is, by its bearer token (the demo kubeconfig's two users), and what the
 * restricted one may not do: `allocation-lens-demo-no-portforward-token` is the user `demo-viewer`, a reader: refused
 * `create` on pods/portforward, get/list/watch on secrets and every write, with the real API server's 403 Status. Any other request (no token,
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
  /** the API group (core: absent or "") */
  group?: string;
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
    (access.resource === "pods/portforward" && access.verb === "create") ||
    (access.resource === "secrets" && ["get", "list", "watch"].includes(access.verb)) ||
    (WRITES.has(access.verb) && access.resource !== "selfsubjectaccessreviews");
  if (!refused) return undefined;
  const group = access.group ?? "";
  const [kind] = access.resource.split("/");
  const qualified = group ? `${kind}.${group}` : kind;
  const what = access.name !== undefined ? `${qualified} "${access.name}"` : qualified;
  const scope = access.namespace !== undefined ? `in the namespace "${access.namespace}"` : "at the cluster scope";
  return status(
    403,
    "Forbidden",
    `${what} is forbidden: User "${user}" cannot ${access.verb} resource "${access.resource}" in API group "${group}" ${scope}`,
    { ...(access.name !== undefined ? { name: access.name } : {}), ...(group ? { group } : {}), kind },
  );
}

const WRITES = new Set(["create", "update", "patch", "delete", "deletecollection"]);
const WRITE_VERBS: Record<string, string> = { POST: "create", PUT: "update", PATCH: "patch", DELETE: "delete" };

/**
 * The write a request asks for (`POST`, `PUT`, `PATCH`, `DELETE` on `/api/v1/...` or `/apis/GROUP/VERSION/...`), or
 * undefined for a read. Read from the path alone: the kind of object need not be one the demo serves.
 */
export function writeAccess(method: string | undefined, segments: string[]): Access | undefined {
  const verb = WRITE_VERBS[method ?? ""];
  if (!verb) return undefined;
  let group = "";
  let rest: string[];
  if (segments[0] === "api" && segments[1] === "v1") rest = segments.slice(2);
  else if (segments[0] === "apis" && segments.length > 3) {
    group = segments[1];
    rest = segments.slice(3);
  } else return undefined;
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length < 1) return undefined;
  const resource = rest.length > 2 ? `${rest[0]}/${rest[2]}` : rest[0];
  const name = rest[1];
  return { verb: verb === "delete" && name === undefined ? "deletecollection" : verb, resource, group, namespace, name };
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
 * The status of a SelfSubjectAccessReview by `user`: allowed unless `forbidden` refuses the access (a denial carries no
 * reason, as RBAC's does not).
 */
export function accessReview(user: string | undefined, attrs: ResourceAttributes | undefined, nonResource: boolean): { allowed: boolean; reason?: string } {
  if (user !== VIEWER_USER) return { allowed: true, reason: ADMIN_REASON };
  if (nonResource || !attrs) return { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"` };
  const resource = attrs.subresource ? `${attrs.resource ?? ""}/${attrs.subresource}` : (attrs.resource ?? "");
  const refused = forbidden(user, { verb: attrs.verb ?? "", resource, group: attrs.group ?? "", namespace: attrs.namespace || undefined, name: attrs.name || undefined }) !== undefined;
  return refused ? { allowed: false } : { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding "demo-viewer" of ClusterRole "view" to User "${user}"` };
}
