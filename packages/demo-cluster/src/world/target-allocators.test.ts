/* eslint-disable @typescript-eslint/no-explicit-any -- object specs read as JSON */
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { generateWorld } from "./generate";
import { agentInfo } from "./agents";
import { labelSelectorPredicate } from "../kube/selectors";
import { CLIENT_CERT_SECRET, clientCertSecret, isTaPod, serviceDnsNames, taNames, taObjects, taPod } from "./target-allocators";

const NOW = Date.parse("2026-01-01T00:00:00Z");

describe("target allocator objects", () => {
  it("upstream: ConfigMap, Service, Deployment and pod named and labelled as the OpenTelemetry operator does", () => {
    const world = generateWorld({ nodes: 4, seed: 3, flavor: "upstream", nowMs: NOW });
    const { configMap, service, deployment } = taObjects("upstream", "per-node", world, NOW);
    const labels = {
      "app.kubernetes.io/component": "opentelemetry-targetallocator",
      "app.kubernetes.io/managed-by": "opentelemetry-operator",
      "app.kubernetes.io/instance": "opentelemetry.otel-agent",
      "app.kubernetes.io/part-of": "opentelemetry",
      "app.kubernetes.io/name": "otel-agent-targetallocator",
    };
    expect(configMap.metadata).toMatchObject({ name: "otel-agent-targetallocator", namespace: "opentelemetry", labels });
    const cfg = YAML.parse((configMap.data as Record<string, string>)["targetallocator.yaml"]);
    expect(cfg).toMatchObject({
      allocation_strategy: "per-node",
      allocation_fallback_strategy: "consistent-hashing",
      collector_selector: { matchlabels: agentInfo("upstream", "per-node").selector, matchexpressions: [] },
      collector_namespace: "opentelemetry",
      filter_strategy: "relabel-config",
      prometheus_cr: { enabled: true, scrape_interval: "30s" },
    });
    expect(cfg.config.scrape_configs.map((c: { job_name: string }) => c.job_name)).toEqual(world.staticJobs["per-node"].map((j) => j.name));
    expect(JSON.stringify(cfg)).not.toContain("lens-demo-secret");
    // the kubelets are found by node discovery (in-cluster config, as the operator writes it); the external probe is static
    const [kubelet, blackbox] = cfg.config.scrape_configs;
    expect(kubelet).toEqual({
      job_name: "kubelet",
      kubernetes_sd_configs: [{ role: "node" }],
      relabel_configs: [{ action: "labelmap", regex: "__meta_kubernetes_node_label_(.+)", replacement: "$1", separator: ";" }],
    });
    expect(blackbox).toEqual({ job_name: "blackbox-external", static_configs: [{ targets: ["status.example.com:443", "api.example.com:443"] }] });
    expect(service.metadata.name).toBe("otel-agent-targetallocator");
    expect(service.spec).toMatchObject({ selector: labels, type: "ClusterIP", ports: [{ name: "targetallocation", port: 80, targetPort: "http", protocol: "TCP" }] });
    expect(service.spec!.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(deployment).toMatchObject({ apiVersion: "apps/v1", kind: "Deployment", spec: { replicas: 1, selector: { matchLabels: labels } }, status: { readyReplicas: 1 } });
    expect((deployment.spec as any).template.spec.containers[0]).toMatchObject({ name: "ta-container", ports: [{ name: "http", containerPort: 8080 }] });

    const pod = taPod("upstream", "per-node", 0, world.nodes, NOW);
    expect(pod.metadata.name).toMatch(/^otel-agent-targetallocator-[0-9a-f]{10}-[a-z0-9]{5}$/);
    expect(pod.metadata.labels).toMatchObject(labels);
    expect(pod.status).toMatchObject({ phase: "Running" });
    expect((pod.status!.conditions as { type: string; status: string }[]).find((c) => c.type === "Ready")?.status).toBe("True");
    expect(world.nodes.map((n) => n.metadata.name)).toContain(pod.spec!.nodeName);
    expect((pod.metadata.ownerReferences as { kind: string }[])[0].kind).toBe("ReplicaSet");
    expect(taPod("upstream", "per-node", 1, world.nodes, NOW).metadata.name).not.toBe(pod.metadata.name);
    expect(taPod("upstream", "per-node", 0, world.nodes, NOW).metadata.name).toBe(pod.metadata.name);
  });

  it("cloudwatch: two TAs, -target-allocator names, the -service Service on 8443, scraper_role only for the cluster scraper", () => {
    const world = generateWorld({ nodes: 3, seed: 1, flavor: "cloudwatch", nowMs: NOW });
    const perNode = taObjects("cloudwatch", "per-node", world, NOW);
    const scraper = taObjects("cloudwatch", "cluster-scraper", world, NOW);
    expect(perNode.configMap.metadata.name).toBe("cloudwatch-agent-target-allocator");
    expect(scraper.configMap.metadata.name).toBe("cloudwatch-agent-cluster-scraper-target-allocator");
    expect(scraper.configMap.metadata.labels).toEqual({
      "app.kubernetes.io/component": "amazon-cloudwatch-agent-target-allocator",
      "app.kubernetes.io/managed-by": "amazon-cloudwatch-agent-operator",
      "app.kubernetes.io/instance": "amazon-cloudwatch.cloudwatch-agent-cluster-scraper",
      "app.kubernetes.io/part-of": "amazon-cloudwatch-agent",
      "app.kubernetes.io/name": "cloudwatch-agent-cluster-scraper-target-allocator",
    });
    const pn = YAML.parse((perNode.configMap.data as Record<string, string>)["targetallocator.yaml"]);
    const cs = YAML.parse((scraper.configMap.data as Record<string, string>)["targetallocator.yaml"]);
    expect(pn).toMatchObject({ allocation_strategy: "per-node", allocation_fallback_strategy: "consistent-hashing", label_selector: agentInfo("cloudwatch", "per-node").selector, prometheus_cr: { enabled: true } });
    expect(pn.scraper_role).toBeUndefined();
    expect(cs).toMatchObject({ allocation_strategy: "consistent-hashing", scraper_role: "cluster-scraper", label_selector: agentInfo("cloudwatch", "cluster-scraper").selector });
    expect(cs.allocation_fallback_strategy).toBeUndefined();
    expect(cs.config.scrape_configs.map((c: { job_name: string }) => c.job_name)).toEqual(world.staticJobs["cluster-scraper"].map((j) => j.name));
    expect(perNode.service.metadata.name).toBe("cloudwatch-agent-target-allocator-service");
    expect((perNode.service.spec as any).ports).toEqual([{ name: "targetallocation", port: 80, targetPort: 8443, protocol: "TCP" }]);
    expect((perNode.deployment.spec as any).template.spec.containers[0].ports).toEqual([{ name: "https", containerPort: 8443, protocol: "TCP" }]);
    const pod = taPod("cloudwatch", "cluster-scraper", 0, world.nodes, NOW);
    expect(pod.metadata.name).toMatch(/^cloudwatch-agent-cluster-scraper-target-allocator-[0-9a-f]{10}-[a-z0-9]{5}$/);
    expect(taNames("cloudwatch", "per-node")).toMatchObject({ service: "cloudwatch-agent-target-allocator-service", servicePort: 80, containerPort: 8443 });
  });

  it("no agent selector matches a TA pod; isTaPod tells them apart", () => {
    for (const flavor of ["upstream", "cloudwatch"] as const) {
      const world = generateWorld({ nodes: 3, seed: 2, flavor, nowMs: NOW });
      for (const role of ["per-node", "cluster-scraper"] as const) {
        const pod = taPod(flavor, role, 0, world.nodes, NOW);
        expect(isTaPod(pod)).toBe(true);
        for (const agent of ["per-node", "cluster-scraper"] as const) {
          const sel = Object.entries(agentInfo(flavor, agent).selector).map(([k, v]) => `${k}=${v}`).join(",");
          expect(labelSelectorPredicate(sel)!(pod), `${flavor} ${agent} selector vs ${role} TA pod`).toBe(false);
        }
      }
      for (const p of world.pods) expect(isTaPod(p)).toBe(false);
    }
  });

  it("the client certificate Secret holds base64 PEM as kubernetes.io/tls; the Service DNS names", () => {
    const s = clientCertSecret({ caPem: "CA PEM", certPem: "CERT PEM", keyPem: "KEY PEM" }, NOW);
    expect(s).toMatchObject({ kind: "Secret", type: "kubernetes.io/tls", metadata: { name: CLIENT_CERT_SECRET, namespace: "amazon-cloudwatch" } });
    const data = s.data as Record<string, string>;
    expect(Buffer.from(data["tls.crt"], "base64").toString()).toBe("CERT PEM");
    expect(Buffer.from(data["tls.key"], "base64").toString()).toBe("KEY PEM");
    expect(Buffer.from(data["ca.crt"], "base64").toString()).toBe("CA PEM");
    expect(serviceDnsNames("svc", "ns")).toEqual(["svc", "svc.ns", "svc.ns.svc", "svc.ns.svc.cluster.local"]);
  });
});
