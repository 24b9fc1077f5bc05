import { describe, expect, it } from "vitest";
import { relabel, targetIdentity, type RelabelConfig } from "./relabel";

const POD = { __address__: "10.0.0.1:8080", __meta_kubernetes_namespace: "shop", __meta_kubernetes_pod_name: "web-1", __meta_kubernetes_pod_ready: "true", __meta_kubernetes_pod_label_app: "web" };

describe("relabel", () => {
  it("replace (defaults, templates, an empty result deletes), keep, drop, labelmap", () => {
    const configs: RelabelConfig[] = [
      { source_labels: ["__meta_kubernetes_namespace"], target_label: "namespace" },
      { source_labels: ["__meta_kubernetes_pod_name", "__meta_kubernetes_namespace"], regex: "(.+);(.+)", target_label: "id", replacement: "${2}/$1" },
      { source_labels: ["missing"], target_label: "gone" },
      { action: "labelmap", regex: "__meta_kubernetes_pod_label_(.+)" },
      { source_labels: ["__meta_kubernetes_pod_label_app"], regex: "web", action: "keep" },
    ];
    expect(relabel({ ...POD, gone: "x" }, configs)).toEqual({ ...POD, namespace: "shop", id: "shop/web-1", app: "web" });
    expect(relabel(POD, [{ source_labels: ["__meta_kubernetes_pod_label_app"], regex: "we", action: "keep" }])).toBeNull(); // anchored
    expect(relabel(POD, [{ source_labels: ["__meta_kubernetes_pod_ready"], regex: "true", action: "drop" }])).toBeNull();
  });

  it("a target's identity leaves __meta_* labels out: a readiness change keeps it, a renamed pod does not", () => {
    const configs: RelabelConfig[] = [{ source_labels: ["__meta_kubernetes_pod_name"], target_label: "pod" }];
    const id = targetIdentity("job", POD, configs);
    expect(targetIdentity("job", { ...POD, __meta_kubernetes_pod_ready: "false" }, configs)).toBe(id);
    expect(targetIdentity("job", { ...POD, __meta_kubernetes_pod_name: "web-2" }, configs)).not.toBe(id);
    expect(targetIdentity("other", POD, configs)).not.toBe(id);
  });
});
