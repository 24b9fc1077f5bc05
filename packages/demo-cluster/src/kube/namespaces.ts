import { ExpiredError, RESOURCES, type KubeObject, type Store } from "../store";
import { humanDuration, type TableRequest } from "./tables";
import type { SourceEvent, WatchSource } from "./watch";

/**
 * Namespaces are not stored: they are derived from the namespaces of the stored objects (plus default, kube-system,
 * kube-public). kubectl needs them: after a 404 on a namespaced object it GETs the namespace to tell
 * `pods "x" not found` from `namespaces "y" not found`, and clients such as prometheus-operator's namespace informer list
 * and watch them. A namespace, once seen, stays (as a real one does until it is deleted); its resourceVersion is the
 * Store's when it was first seen, so a watch resuming from a resourceVersion gets ADDED for the namespaces that appeared
 * since, and a live watch gets ADDED when an object lands in a namespace not seen before.
 */

export const NAMESPACE_RESOURCE = {
  name: "namespaces",
  singularName: "namespace",
  namespaced: false,
  kind: "Namespace",
  verbs: ["get", "list", "watch"],
  shortNames: ["ns"],
};

export const NAMESPACE_KIND = { resource: "namespaces", kind: "Namespace", apiVersion: "v1" };

const BUILT_IN = ["default", "kube-public", "kube-system"];

export class NamespaceTracker {
  /** name -> the Store's resourceVersion when the namespace was first seen */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly createdAt: string,
  ) {
    for (const name of BUILT_IN) this.seen.set(name, 1);
  }

  /** Notes `name` as seen at `resourceVersion`; true when it is new. */
  note(name: string, resourceVersion: number): boolean {
    if (this.seen.has(name)) return false;
    this.seen.set(name, resourceVersion);
    return true;
  }

  /** Looks at every stored object for namespaces not seen yet (they are seen as of now). */
  refresh(): void {
    const rv = this.store.resourceVersion;
    for (const r of RESOURCES) for (const o of this.store.list(r)) if (o.metadata.namespace) this.note(o.metadata.namespace, rv);
  }

  /** Every namespace, sorted by name. */
  objects(): KubeObject[] {
    this.refresh();
    return [...this.seen.keys()].sort().map((name) => this.object(name));
  }

  object(name: string): KubeObject {
    return {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name,
        uid: `ns-${name}`,
        resourceVersion: String(this.seen.get(name) ?? this.store.resourceVersion),
        creationTimestamp: this.createdAt,
        labels: { "kubernetes.io/metadata.name": name },
      },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    };
  }

  /** The namespaces as a watch source: ADDED when one appears (namespaces are never deleted). */
  source(): WatchSource {
    const added = (name: string): SourceEvent => ({ type: "ADDED", object: this.object(name) });
    return {
      list: () => this.objects(),
      since: (rv) => {
        if (rv < this.store.oldestResumable) throw new ExpiredError(rv, this.store.oldestResumable);
        this.refresh();
        return [...this.seen]
          .filter(([, at]) => at > rv)
          .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : 1))
          .map(([name]) => added(name));
      },
      subscribe: (deliver) =>
        this.store.subscribe((e) => {
          const ns = e.object.metadata.namespace;
          if (e.type !== "DELETED" && ns && this.note(ns, e.resourceVersion)) deliver(added(ns));
        }),
    };
  }
}

/** The derived namespaces (a fresh tracker: for callers that hold none). */
export function namespaceObjects(store: Store, createdAt: string): KubeObject[] {
  return new NamespaceTracker(store, createdAt).objects();
}

export function namespaceTable(objects: readonly KubeObject[], req: TableRequest, resourceVersion: string, now = Date.now(), noHeaders = false, more: { continue?: string; remainingItemCount?: number } = {}): unknown {
  return {
    kind: "Table",
    apiVersion: req.apiVersion,
    metadata: { resourceVersion, ...more },
    columnDefinitions: noHeaders ? null : [
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
