import { operatorSuite } from "@allocation-lens/test-support/real-ta";
import { operatorDiscovery } from "@/test/control-plane/operator";

const NAMESPACE = "lens-operator";

/** an OpenTelemetryCollector with a Target Allocator, as a user writes it */
function collector(name: string, mode: "daemonset" | "statefulset", strategy: string): Record<string, unknown> {
  return {
    apiVersion: "opentelemetry.io/v1beta1",
    kind: "OpenTelemetryCollector",
    metadata: { name, namespace: NAMESPACE },
    spec: {
      mode,
      // the operator's defaulting webhook would set it; with webhooks off the user does, or the operator's own update is refused
      upgradeStrategy: "automatic",
      targetAllocator: { enabled: true, allocationStrategy: strategy, prometheusCR: { enabled: true, scrapeInterval: "30s" } },
      config: {
        receivers: { prometheus: { config: { scrape_configs: [] } } },
        exporters: { debug: {} },
        service: { pipelines: { metrics: { receivers: ["prometheus"], exporters: ["debug"] } } },
      },
    },
  };
}

const ta = (name: string) => ({ configMap: `${name}-targetallocator`, service: `${name}-targetallocator`, deployment: `${name}-targetallocator` });

operatorSuite("upstream's OpenTelemetry Operator on a real kube-apiserver: the TAs it makes, discovered by the dashboard", (kube, op) =>
  operatorDiscovery(kube, op, {
    flavor: "upstream",
    namespace: NAMESPACE,
    user: "opentelemetry-operator",
    args: ["--enable-webhooks=false", "--metrics-addr=127.0.0.1:0", "--health-probe-addr=127.0.0.1:0"],
    author: { user: "lens-collector-author", rules: [{ apiGroups: ["opentelemetry.io"], resources: ["opentelemetrycollectors"], verbs: ["get", "list", "create", "patch"] }] },
    resources: [collector("lens-agent", "daemonset", "per-node"), collector("lens-cluster", "statefulset", "consistent-hashing")],
    tas: [
      { ...ta("lens-agent"), role: "per-node", strategy: "per-node", fallbackStrategy: null, mtls: false },
      { ...ta("lens-cluster"), role: "cluster-scraper", strategy: "consistent-hashing", fallbackStrategy: null, mtls: false },
    ],
    granted: ["create", "deployments.apps"],
    refused: ["create", "opentelemetrycollectors.opentelemetry.io"],
  }),
);
