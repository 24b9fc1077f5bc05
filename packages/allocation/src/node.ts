/**
 * A target's node, from its discovered (pre-relabel) labels, as the per-node strategy finds it (docs/target-allocator.md).
 */
import type { Labels } from "./model";

/** Label names checked in order; the first non-empty one wins. */
export const NODE_LABELS = [
  "__meta_kubernetes_pod_node_name",
  "__meta_kubernetes_node_name",
  "__meta_kubernetes_endpoint_node_name",
] as const;

export const ENDPOINTSLICE_TARGET_NAME = "__meta_kubernetes_endpointslice_address_target_name";
export const ENDPOINTSLICE_TARGET_KIND = "__meta_kubernetes_endpointslice_address_target_kind";

/**
 * The node a target runs on, or null when it has none (static configs, external endpoints).
 * The EndpointSlice target name counts only when its target kind is `Node`.
 */
export function targetNode(labels: Labels): string | null {
  for (const name of NODE_LABELS) {
    const v = labels[name];
    if (typeof v === "string" && v !== "") return v;
  }
  if (labels[ENDPOINTSLICE_TARGET_KIND] === "Node") {
    const v = labels[ENDPOINTSLICE_TARGET_NAME];
    if (typeof v === "string" && v !== "") return v;
  }
  return null;
}
