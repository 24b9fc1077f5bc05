import { RESOURCES, type KubeObject, type Store } from "../store";
import { humanDuration, type TableRequest } from "./tables";

/**
 * Namespaces are not stored: they are derived from the namespaces of the stored objects (plus default, kube-system,
 * kube-public). kubectl needs them: after a 404 on a namespaced object it GETs the namespace to tell
 * `pods "x" not found` from `namespaces "y" not found`, and prints a generic message when that GET fails.
 */

export const NAMESPACE_RESOURCE = {
  name: "namespaces",
  singularName: "namespace",
  namespaced: false,
  kind: "Namespace",
  verbs: ["get", "list"],
  shortNames: ["ns"],
};

export function namespaceObjects(store: Store, createdAt: string): KubeObject[] {
  const names = new Set(["default", "kube-system", "kube-public"]);
  for (const r of RESOURCES) for (const o of store.list(r)) if (o.metadata.namespace) names.add(o.metadata.namespace);
  return [...names].sort().map((name) => ({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, uid: `ns-${name}`, creationTimestamp: createdAt, labels: { "kubernetes.io/metadata.name": name } },
    spec: { finalizers: ["kubernetes"] },
    status: { phase: "Active" },
  }));
}

export function namespaceTable(objects: readonly KubeObject[], req: TableRequest, resourceVersion: string, now = Date.now()): unknown {
  return {
    kind: "Table",
    apiVersion: req.apiVersion,
    metadata: { resourceVersion },
    columnDefinitions: [
      { name: "Name", type: "string", format: "name", description: "Name must be unique within a namespace.", priority: 0 },
      { name: "Status", type: "string", format: "", description: "The status of the namespace", priority: 0 },
      { name: "Age", type: "string", format: "", description: "CreationTimestamp is a timestamp representing the server time when this object was created.", priority: 0 },
    ],
    rows: objects.map((o) => ({
      cells: [o.metadata.name, "Active", humanDuration(now - Date.parse(o.metadata.creationTimestamp ?? ""))],
      ...(req.includeObject === "None"
        ? {}
        : { object: req.includeObject === "Object" ? o : { kind: "PartialObjectMetadata", apiVersion: req.apiVersion, metadata: o.metadata } }),
    })),
  };
}
