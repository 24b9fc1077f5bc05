import { describe, expect, it } from "vitest";
import { targetNode } from "./node";

describe("targetNode (first non-empty node label)", () => {
  it("prefers the pod node name", () => {
    expect(
      targetNode({ __meta_kubernetes_pod_node_name: "a", __meta_kubernetes_node_name: "b", __meta_kubernetes_endpoint_node_name: "c" }),
    ).toBe("a");
  });
  it("skips empty values and falls through in order", () => {
    expect(targetNode({ __meta_kubernetes_pod_node_name: "", __meta_kubernetes_node_name: "b" })).toBe("b");
    expect(targetNode({ __meta_kubernetes_pod_node_name: "", __meta_kubernetes_node_name: "", __meta_kubernetes_endpoint_node_name: "c" })).toBe("c");
  });
  it("uses the EndpointSlice target name only for kind Node", () => {
    expect(
      targetNode({ __meta_kubernetes_endpointslice_address_target_name: "n1", __meta_kubernetes_endpointslice_address_target_kind: "Node" }),
    ).toBe("n1");
    expect(
      targetNode({ __meta_kubernetes_endpointslice_address_target_name: "pod-x", __meta_kubernetes_endpointslice_address_target_kind: "Pod" }),
    ).toBeNull();
    expect(targetNode({ __meta_kubernetes_endpointslice_address_target_name: "n1" })).toBeNull();
    expect(
      targetNode({ __meta_kubernetes_endpointslice_address_target_name: "", __meta_kubernetes_endpointslice_address_target_kind: "Node" }),
    ).toBeNull();
  });
  it("the EndpointSlice name comes after the other labels", () => {
    expect(
      targetNode({
        __meta_kubernetes_endpoint_node_name: "c",
        __meta_kubernetes_endpointslice_address_target_name: "n1",
        __meta_kubernetes_endpointslice_address_target_kind: "Node",
      }),
    ).toBe("c");
  });
  it("static and external targets have no node", () => {
    expect(targetNode({ __address__: "10.0.0.1:9100" })).toBeNull();
    expect(targetNode({})).toBeNull();
  });
});
