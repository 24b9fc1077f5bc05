import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { discoverTargetAllocators, type ObjectLike } from "@/lib/discovery/operators";

const CW = "amazon-cloudwatch";
const cwSelector = (agent: string) => ({
  "app.kubernetes.io/managed-by": "amazon-cloudwatch-agent-operator",
  "app.kubernetes.io/instance": `${CW}.${agent}`,
  "app.kubernetes.io/component": "amazon-cloudwatch-agent",
});

function cloudwatchTa(agent: string, conf: Record<string, unknown>): ObjectLike[] {
  const podLabels = { "app.kubernetes.io/component": "amazon-cloudwatch-agent-target-allocator", "app.kubernetes.io/instance": `${CW}.${agent}` };
  return [
    { metadata: { name: `${agent}-target-allocator`, namespace: CW, labels: { "app.kubernetes.io/managed-by": "amazon-cloudwatch-agent-operator" } }, data: { "targetallocator.yaml": YAML.stringify(conf) } },
    { metadata: { name: `${agent}-target-allocator-service`, namespace: CW }, spec: { selector: podLabels, ports: [{ name: "targetallocation", port: 80, targetPort: 8443 }] } },
    { metadata: { name: `${agent}-target-allocator`, namespace: CW }, spec: { template: { spec: { containers: [{ name: "ta", ports: [{ name: "https", containerPort: 8443 }] }] } } } },
  ];
}

const UP = "opentelemetry";
function upstreamTa(collector: string, conf: Record<string, unknown>, extraPorts: unknown[] = []): ObjectLike[] {
  const name = `${collector}-targetallocator`;
  const podLabels = { "app.kubernetes.io/component": "opentelemetry-targetallocator", "app.kubernetes.io/name": name };
  return [
    { metadata: { name, namespace: UP }, data: { "targetallocator.yaml": YAML.stringify(conf) } },
    { metadata: { name, namespace: UP }, spec: { selector: podLabels, ports: [{ name: "targetallocation", port: 80, targetPort: "http" }, ...extraPorts] } },
    { metadata: { name, namespace: UP }, spec: { template: { spec: { containers: [{ name: "ta-container", ports: [{ name: "http", containerPort: 8080 }, { name: "https", containerPort: 8443 }] }] } } } },
  ];
}

/** [configmap, service, deployment] triples into the three lists */
function objects(...tas: ObjectLike[][]) {
  return { configMaps: tas.map((t) => t[0]), services: tas.map((t) => t[1]), deployments: tas.map((t) => t[2]) };
}

describe("discoverTargetAllocators", () => {
  it("finds both CloudWatch TAs with their roles, strategies, selectors and mTLS", () => {
    const d = discoverTargetAllocators(
      objects(
        cloudwatchTa("cloudwatch-agent", { allocation_strategy: "per-node", allocation_fallback_strategy: "consistent-hashing", label_selector: cwSelector("cloudwatch-agent") }),
        cloudwatchTa("cloudwatch-agent-cluster-scraper", { allocation_strategy: "consistent-hashing", scraper_role: "cluster-scraper", label_selector: cwSelector("cloudwatch-agent-cluster-scraper") }),
      ),
    );
    expect(d.dropped).toEqual([]);
    const byRole = Object.fromEntries(d.found.map((f) => [f.role, f]));
    expect(byRole["per-node"]).toMatchObject({
      flavor: "cloudwatch",
      strategy: "per-node",
      fallbackStrategy: "consistent-hashing",
      mtls: true,
      collectors: { namespace: CW, selector: cwSelector("cloudwatch-agent") },
      service: { name: "cloudwatch-agent-target-allocator-service", port: 80, targetPort: 8443 },
      url: "https://cloudwatch-agent-target-allocator-service.amazon-cloudwatch.svc:80",
    });
    expect(byRole["cluster-scraper"]).toMatchObject({ strategy: "consistent-hashing", fallbackStrategy: null, collectors: { selector: cwSelector("cloudwatch-agent-cluster-scraper") } });
  });

  it("reads the upstream selector in either spelling, its collector namespace, and the named target port", () => {
    const sel = { "app.kubernetes.io/component": "opentelemetry-collector", "app.kubernetes.io/instance": "opentelemetry.otel-agent" };
    for (const key of ["matchlabels", "matchLabels"]) {
      const d = discoverTargetAllocators(objects(upstreamTa("otel-agent", { allocation_strategy: "per-node", collector_selector: { [key]: sel, matchexpressions: [] }, collector_namespace: "agents" })));
      expect(d.dropped).toEqual([]);
      expect(d.found[0]).toMatchObject({ role: "per-node", flavor: "upstream", mtls: false, collectors: { namespace: "agents", selector: sel }, service: { port: 80, targetPort: 8080 } });
      expect(d.found[0].url).toBe("http://otel-agent-targetallocator.opentelemetry.svc:80");
    }
  });

  it("upstream with https enabled uses the HTTPS Service port, with mTLS; a non-per-node upstream TA takes the second role", () => {
    const sel = { matchlabels: { app: "c" } };
    const d = discoverTargetAllocators(
      objects(
        upstreamTa("a", { allocation_strategy: "per-node", collector_selector: sel, https: { enabled: true } }, [{ name: "targetallocation-https", port: 443, targetPort: "https" }]),
        upstreamTa("b", { collector_selector: sel }),
      ),
    );
    expect(d.found.map((f) => [f.configMap, f.role, f.strategy, f.mtls, f.service.port, f.service.targetPort])).toEqual([
      ["a-targetallocator", "per-node", "per-node", true, 443, 8443],
      ["b-targetallocator", "cluster-scraper", "consistent-hashing", false, 80, 8080],
    ]);
  });

  it("drops what it cannot use, saying why, without echoing the configuration", () => {
    const secret = "password: hunter2-very-secret";
    const noService = upstreamTa("nosvc", { collector_selector: { matchlabels: { a: "b" } } });
    const noDeployment = upstreamTa("nodep", { collector_selector: { matchlabels: { a: "b" } } });
    const d = discoverTargetAllocators({
      configMaps: [
        { metadata: { name: "random", namespace: "x" }, data: { "targetallocator.yaml": "a: 1" } },
        { metadata: { name: "bad-targetallocator", namespace: "x" }, data: { "targetallocator.yaml": `config: [${secret}` } },
        { metadata: { name: "wide-targetallocator", namespace: "x" }, data: { "targetallocator.yaml": "allocation_strategy: per-node" } },
        { metadata: { name: "expr-targetallocator", namespace: "x" }, data: { "targetallocator.yaml": YAML.stringify({ collector_selector: { matchexpressions: [{ key: "a", operator: "Exists" }] } }) } },
        { metadata: { name: "role-target-allocator", namespace: "x" }, data: { "targetallocator.yaml": YAML.stringify({ label_selector: { a: "b" }, scraper_role: "other" }) } },
        noService[0],
        noDeployment[0],
        { metadata: { name: "unrelated", namespace: "x" }, data: { other: "1" } },
      ],
      services: [noDeployment[1]],
      deployments: [noService[2]],
    });
    expect(d.found).toEqual([]);
    const reasons = Object.fromEntries(d.dropped.map((x) => [x.object, x.reason]));
    expect(Object.keys(reasons).sort()).toEqual(
      [
        "configmap x/random",
        "configmap x/bad-targetallocator",
        "configmap x/wide-targetallocator",
        "configmap x/expr-targetallocator",
        "configmap x/role-target-allocator",
        "configmap opentelemetry/nosvc-targetallocator",
        "configmap opentelemetry/nodep-targetallocator",
      ].sort(),
    );
    expect(reasons["configmap x/random"]).toMatch(/named as neither operator/);
    expect(reasons["configmap x/bad-targetallocator"]).toMatch(/not valid YAML/);
    expect(reasons["configmap x/wide-targetallocator"]).toMatch(/no collector selector/);
    expect(reasons["configmap x/expr-targetallocator"]).toMatch(/matchExpressions/);
    expect(reasons["configmap x/role-target-allocator"]).toMatch(/unknown scraper_role "other"/);
    expect(reasons["configmap opentelemetry/nosvc-targetallocator"]).toMatch(/no Service opentelemetry\/nosvc-targetallocator/);
    expect(reasons["configmap opentelemetry/nodep-targetallocator"]).toMatch(/no Deployment/);
    expect(JSON.stringify(d)).not.toContain("hunter2");
  });

  it("keeps one TA per role: the second is dropped naming the first", () => {
    const sel = { label_selector: { a: "b" } };
    const first = cloudwatchTa("a", sel);
    const second = cloudwatchTa("b", sel);
    const d = discoverTargetAllocators(objects(second, first));
    expect(d.found.map((f) => f.configMap)).toEqual(["a-target-allocator"]);
    expect(d.dropped).toEqual([{ object: "configmap amazon-cloudwatch/b-target-allocator", reason: expect.stringMatching(/second TA for the per-node role \(amazon-cloudwatch\/a-target-allocator has it\)/) }]);
  });
});
