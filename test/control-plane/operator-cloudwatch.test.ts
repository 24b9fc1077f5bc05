import { operatorSuite } from "@allocation-lens/test-support/real-ta";
import { operatorDiscovery } from "@/test/control-plane/operator";

const NAMESPACE = "lens-cloudwatch";

/** an AmazonCloudWatchAgent with a Target Allocator, as a user writes it */
function agent(name: string, mode: "daemonset" | "statefulset", strategy: string, scraperRole?: "cluster-scraper"): Record<string, unknown> {
  return {
    apiVersion: "cloudwatch.aws.amazon.com/v1alpha1",
    kind: "AmazonCloudWatchAgent",
    metadata: { name, namespace: NAMESPACE },
    spec: {
      mode,
      managementState: "managed",
      config: "{}",
      prometheus: { config: { scrape_configs: [] } },
      targetAllocator: { enabled: true, allocationStrategy: strategy, prometheusCR: { enabled: true, ...(scraperRole ? { scraperRole } : {}) } },
    },
  };
}

const ta = (name: string) => ({ configMap: `${name}-target-allocator`, service: `${name}-target-allocator-service`, deployment: `${name}-target-allocator` });

operatorSuite(
  "the CloudWatch agent operator on a real kube-apiserver: the TAs it makes, discovered by the dashboard",
  (kube, op) =>
    operatorDiscovery(kube, op, {
      flavor: "cloudwatch",
      namespace: NAMESPACE,
      user: "amazon-cloudwatch-agent-operator",
      // it builds a client from the in-cluster configuration whatever its kubeconfig says: it runs as in a pod
      serviceAccount: "amazon-cloudwatch-agent-operator",
      args: ["--metrics-addr=127.0.0.1:0", "--health-probe-addr=127.0.0.1:0"],
      // webhooks off; its auto-monitor (which would annotate workloads) too
      env: { ENABLE_WEBHOOKS: "false", DISABLE_AUTO_MONITOR: "true" },
      author: { user: "lens-agent-author", rules: [{ apiGroups: ["cloudwatch.aws.amazon.com"], resources: ["amazoncloudwatchagents"], verbs: ["get", "list", "create", "patch"] }] },
      resources: [agent("lens-agent", "daemonset", "per-node"), agent("lens-cluster-scraper", "statefulset", "consistent-hashing", "cluster-scraper")],
      tas: [
        // the operator gives per-node its consistent-hashing fallback (for targets without a node)
        { ...ta("lens-agent"), role: "per-node", strategy: "per-node", fallbackStrategy: "consistent-hashing", mtls: true },
        { ...ta("lens-cluster-scraper"), role: "cluster-scraper", strategy: "consistent-hashing", fallbackStrategy: null, mtls: true },
      ],
      granted: ["create", "deployments.apps"],
      refused: ["create", "amazoncloudwatchagents.cloudwatch.aws.amazon.com"],
    }),
  "cloudwatch",
);
