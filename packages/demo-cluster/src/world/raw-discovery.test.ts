import { describe, expect, it } from "vitest";
import type { KubeObject } from "./kube";
import { endpointsFor } from "./endpoints";
import { endpointsRoleTargets, podRoleTargets } from "./raw-discovery";
import { discoverTargets } from "./discovery";

const pod = (name: string, ip: string, ready: boolean, extra: Partial<KubeObject["status"]> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name,
    namespace: "shop",
    uid: `uid-${name}`,
    labels: { app: "cart", "app.kubernetes.io/name": "cart" },
    ownerReferences: [{ kind: "ReplicaSet", name: "cart-5d9f", controller: true }],
  },
  spec: {
    nodeName: `node-${name}`,
    containers: [
      { name: "app", image: "cart:1", ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }, { name: "admin", containerPort: 9901, protocol: "TCP" }] },
      { name: "sidecar", image: "proxy:2" },
    ],
    initContainers: [{ name: "init", image: "init:1", ports: [{ containerPort: 7000 }] }],
  },
  status: { podIP: ip, hostIP: "10.0.0.9", phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False" }], ...extra },
});

const service: KubeObject = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "cart", namespace: "shop", labels: { "app.kubernetes.io/name": "cart" }, annotations: { team: "a" } },
  spec: { selector: { app: "cart" }, ports: [{ name: "http-metrics", port: 80, targetPort: "http", protocol: "TCP" }] },
};

describe("the endpoints role, unfiltered", () => {
  const pods = [pod("a", "100.64.0.1", true), pod("b", "100.64.0.2", false)];
  const eps = endpointsFor(service, pods)!;
  const byKey = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
  const targets = endpointsRoleTargets(eps, new Map([[byKey(service), service]]), new Map(pods.map((p) => [byKey(p), p])));
  const at = (address: string) => targets.find((t) => t.__address__ === address)!;

  it("one target per endpoint port and address (ready, then not ready), then every container port no endpoint covered", () => {
    expect(targets.map((t) => t.__address__).sort()).toEqual(
      ["100.64.0.1:8080", "100.64.0.2:8080", "100.64.0.1:9901", "100.64.0.2:9901", "100.64.0.1:7000", "100.64.0.2:7000"].sort(),
    );
    expect(at("100.64.0.1:8080").__meta_kubernetes_endpoint_ready).toBe("true");
    expect(at("100.64.0.2:8080").__meta_kubernetes_endpoint_ready).toBe("false");
    // a port no endpoint covers carries no endpoint labels
    expect(at("100.64.0.1:9901")).not.toHaveProperty("__meta_kubernetes_endpoint_port_name");
    expect(at("100.64.0.1:7000").__meta_kubernetes_pod_container_init).toBe("true");
    expect(at("100.64.0.1:7000").__meta_kubernetes_pod_container_port_protocol).toBe("");
  });

  it("labels of the endpoint, its pod and container, the Service and the Endpoints object", () => {
    expect(at("100.64.0.1:8080")).toEqual({
      __address__: "100.64.0.1:8080",
      __meta_kubernetes_namespace: "shop",
      __meta_kubernetes_service_name: "cart",
      __meta_kubernetes_service_label_app_kubernetes_io_name: "cart",
      __meta_kubernetes_service_labelpresent_app_kubernetes_io_name: "true",
      __meta_kubernetes_service_annotation_team: "a",
      __meta_kubernetes_service_annotationpresent_team: "true",
      __meta_kubernetes_endpoints_name: "cart",
      __meta_kubernetes_endpoints_label_app_kubernetes_io_name: "cart",
      __meta_kubernetes_endpoints_labelpresent_app_kubernetes_io_name: "true",
      __meta_kubernetes_endpoint_port_name: "http-metrics",
      __meta_kubernetes_endpoint_port_protocol: "TCP",
      __meta_kubernetes_endpoint_ready: "true",
      __meta_kubernetes_endpoint_address_target_kind: "Pod",
      __meta_kubernetes_endpoint_address_target_name: "a",
      __meta_kubernetes_endpoint_node_name: "node-a",
      __meta_kubernetes_pod_ip: "100.64.0.1",
      __meta_kubernetes_pod_ready: "true",
      __meta_kubernetes_pod_phase: "Running",
      __meta_kubernetes_pod_node_name: "node-a",
      __meta_kubernetes_pod_host_ip: "10.0.0.9",
      __meta_kubernetes_pod_uid: "uid-a",
      __meta_kubernetes_pod_name: "a",
      __meta_kubernetes_pod_label_app: "cart",
      __meta_kubernetes_pod_labelpresent_app: "true",
      __meta_kubernetes_pod_label_app_kubernetes_io_name: "cart",
      __meta_kubernetes_pod_labelpresent_app_kubernetes_io_name: "true",
      __meta_kubernetes_pod_controller_kind: "ReplicaSet",
      __meta_kubernetes_pod_controller_name: "cart-5d9f",
      __meta_kubernetes_pod_container_name: "app",
      __meta_kubernetes_pod_container_image: "cart:1",
      __meta_kubernetes_pod_container_port_name: "http",
      __meta_kubernetes_pod_container_port_number: "8080",
      __meta_kubernetes_pod_container_port_protocol: "TCP",
      __meta_kubernetes_pod_container_init: "false",
    });
  });

  it("a terminating pod is in no Endpoints object, so in no target", () => {
    const gone = endpointsFor(service, [pod("a", "100.64.0.1", true), { ...pod("c", "100.64.0.3", true), metadata: { ...pod("c", "100.64.0.3", true).metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } }])!;
    expect(endpointsRoleTargets(gone, new Map(), new Map()).map((t) => t.__address__)).toEqual(["100.64.0.1:8080"]);
  });
});

describe("the pod role, unfiltered", () => {
  it("one target per container port, one at the pod IP for a container without ports, the container id from its status, empty values kept", () => {
    const p = pod("a", "100.64.0.1", true, { containerStatuses: [{ name: "app", containerID: "containerd://abc" }] });
    const targets = podRoleTargets(p);
    expect(targets.map((t) => t.__address__)).toEqual(["100.64.0.1:8080", "100.64.0.1:9901", "100.64.0.1", "100.64.0.1:7000"]);
    expect(targets[0].__meta_kubernetes_pod_container_id).toBe("containerd://abc");
    expect(targets[2]).toMatchObject({ __meta_kubernetes_pod_container_name: "sidecar", __meta_kubernetes_pod_container_id: "" });
    expect(targets[2]).not.toHaveProperty("__meta_kubernetes_pod_container_port_number");
    expect(targets[3].__meta_kubernetes_pod_container_port_name).toBe("");
    expect(podRoleTargets({ ...p, status: { ...p.status, podIP: "" } })).toEqual([]);
  });
});

describe("discoverTargets, cloudwatch flavor", () => {
  it("a ServiceMonitor's job holds every Endpoints target of its namespace, whatever its selector and port", () => {
    const other: KubeObject = { ...service, metadata: { ...service.metadata, name: "other" }, spec: { ...service.spec, selector: { app: "other" } } };
    const otherPod: KubeObject = { ...pod("o", "100.64.0.9", true), metadata: { ...pod("o", "100.64.0.9", true).metadata, labels: { app: "other" } } };
    const sm: KubeObject = {
      apiVersion: "monitoring.coreos.com/v1",
      kind: "ServiceMonitor",
      metadata: { name: "cart", namespace: "shop" },
      spec: { selector: { matchLabels: { "app.kubernetes.io/name": "cart" } }, endpoints: [{ port: "http-metrics" }] },
    };
    const pods = [pod("a", "100.64.0.1", true), otherPod];
    const jobs = discoverTargets({ flavor: "cloudwatch", nodes: [], pods, services: [service, other], serviceMonitors: [sm], podMonitors: [], staticJobs: [], keep: () => true });
    const addresses = jobs.get("serviceMonitor/shop/cart/0")!.map((t) => t.address).sort();
    expect(addresses).toEqual(["100.64.0.1:7000", "100.64.0.1:8080", "100.64.0.1:9901", "100.64.0.9:7000", "100.64.0.9:8080", "100.64.0.9:9901"]);
    // upstream's filtered discovery keeps only the monitor's Service and port
    const filtered = discoverTargets({ nodes: [], pods, services: [service, other], serviceMonitors: [sm], podMonitors: [], staticJobs: [], keep: () => true });
    expect(filtered.get("serviceMonitor/shop/cart/0")?.length ?? 0).toBeLessThan(addresses.length);
  });
});
