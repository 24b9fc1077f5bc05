/**
 * Who a request of the demo's Kubernetes API is, by its bearer token (the demo kubeconfig's two users), and what the
 * restricted one may not do: `allocation-lens-demo-no-portforward-token` is the user `demo-viewer`, refused `create` on
 * pods/portforward and get/list/watch on secrets with the real API server's 403 Status. Any other request (no token,
 * the main token) is allowed, as before.
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
