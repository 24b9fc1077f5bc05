/**
 * meta.k8s.io PartialObjectMetadata: what the apiserver answers to `Accept: application/json;as=PartialObjectMetadataList;
 * g=meta.k8s.io;v=v1` (a list) or `as=PartialObjectMetadata` (a get, and the objects of a watch's events), as client-go's
 * metadata informers ask: every object reduced to its kind, apiVersion and metadata, so a Secret's data never leaves.
 */
import type { KubeObject } from "../store";

export interface MetadataRequest {
  /** "meta.k8s.io/v1" or "meta.k8s.io/v1beta1" */
  apiVersion: string;
}

/**
 * The metadata-only answer the Accept header asks for, or undefined when it prefers the full objects (a plain JSON clause
 * first) or a Table. Clauses in other media types (protobuf, CBOR) are passed over: the demo answers in JSON only.
 */
export function metadataRequest(accept: string | undefined): MetadataRequest | undefined {
  if (!accept) return undefined;
  for (const clause of accept.split(",")) {
    const [type, ...rest] = clause.split(";").map((s) => s.trim());
    if (type !== "application/json" && type !== "*/*") continue;
    const params = new Map<string, string>();
    for (const p of rest) {
      const eq = p.indexOf("=");
      if (eq > 0) params.set(p.slice(0, eq).trim(), p.slice(eq + 1).trim());
    }
    const as = params.get("as");
    if (as === undefined) return undefined;
    if ((as !== "PartialObjectMetadata" && as !== "PartialObjectMetadataList") || params.get("g") !== "meta.k8s.io") {
      if (as === "Table") return undefined;
      continue;
    }
    const v = params.get("v");
    if (v === "v1" || v === "v1beta1") return { apiVersion: `meta.k8s.io/${v}` };
  }
  return undefined;
}

/** One object as PartialObjectMetadata. */
export function partialObject(o: KubeObject, req: MetadataRequest): KubeObject {
  return { kind: "PartialObjectMetadata", apiVersion: req.apiVersion, metadata: o.metadata };
}

/** A list as PartialObjectMetadataList. */
export function partialList(items: readonly KubeObject[], req: MetadataRequest, resourceVersion: string, more: { continue?: string; remainingItemCount?: number } = {}): unknown {
  return { kind: "PartialObjectMetadataList", apiVersion: req.apiVersion, metadata: { resourceVersion, ...more }, items: items.map((o) => partialObject(o, req)) };
}
