/**
 * A hand-built TA state for the tests of this folder: 3 collectors, 3 jobs with targets (slash names), one job with a
 * scrape config but no targets, one unassigned target, credentials in a scrape config, one label value with markup.
 */
import type { Flavor, Target } from "@allocation-lens/allocation/model";
import { buildTaState, type TaJobState, type TaState } from "./state";

export const NODE_EXPORTER = "serviceMonitor/obs/node-exporter/0";
export const KUBELET = "kubelet";
export const WEB = "podMonitor/apps/web & <api>/0";
export const EMPTY_JOB = "serviceMonitor/obs/idle/0";
export const COLLECTORS = ["agent-a", "agent-b", "agent-c"];
export const SECRET_PASSWORD = "hunter2-basic";
export const SECRET_TOKEN = "bearer-sekret-token";

const target = (job: string, address: string, node: string, extra: Record<string, string> = {}): Target => ({
  key: `${job}|${address}`,
  job,
  address,
  labels: {
    __meta_kubernetes_pod_node_name: node,
    __address__: address,
    __meta_kubernetes_namespace: "obs",
    ...extra,
  },
});

function job(targets: Target[], owners: (string | null)[]): TaJobState {
  return { targets, assignment: new Map(targets.map((t, i) => [t.key, owners[i]])) };
}

export function fixtureJobs(): Map<string, TaJobState> {
  return new Map([
    [
      NODE_EXPORTER,
      job(
        [
          target(NODE_EXPORTER, "10.0.1.10:9100", "node-1"),
          target(NODE_EXPORTER, "10.0.2.10:9100", "node-2"),
          target(NODE_EXPORTER, "10.0.3.10:9100", "node-3"),
          target(NODE_EXPORTER, "10.0.4.10:9100", "node-4"), // node without a collector: unassigned
        ],
        ["agent-a", "agent-b", "agent-c", null],
      ),
    ],
    [
      KUBELET,
      job([target(KUBELET, "10.0.1.10:10250", "node-1"), target(KUBELET, "10.0.3.10:10250", "node-3")], ["agent-a", "agent-c"]),
    ],
    [WEB, job([target(WEB, "10.0.2.77:8080", "node-2", { __meta_kubernetes_pod_label_app: "<script>&\"x\"" })], ["agent-b"])],
  ]);
}

export const fixtureScrapeConfigs = (): Record<string, Record<string, unknown>> => ({
  [NODE_EXPORTER]: { job_name: NODE_EXPORTER, scrape_interval: "30s", metrics_path: "/metrics", scheme: "http", kubernetes_sd_configs: [{ role: "endpointslice" }] },
  [KUBELET]: {
    job_name: KUBELET,
    scheme: "https",
    authorization: { type: "Bearer", credentials: SECRET_TOKEN },
    basic_auth: { username: "scraper", password: SECRET_PASSWORD },
    tls_config: { insecure_skip_verify: true },
  },
  [WEB]: { job_name: WEB, scrape_interval: "15s" },
  [EMPTY_JOB]: { job_name: EMPTY_JOB, metrics_path: "/metrics", oauth2: { client_id: "id", client_secret: "oauth-sekret", token_url: "https://x" } },
});

export function fixtureState(flavor: Flavor, ready = true): TaState {
  return buildTaState({
    role: "per-node",
    flavor,
    strategy: "per-node",
    ready,
    collectors: [...COLLECTORS].reverse(),
    jobs: fixtureJobs(),
    scrapeConfigs: fixtureScrapeConfigs(),
    allocation: { seconds: 0.004, method: "SetTargets" },
    events: { EventSourcePrometheusCR: 2 },
    discoveredPerJob: new Map([
      [NODE_EXPORTER, 6],
      [KUBELET, 2],
      [WEB, 1],
    ]),
  });
}

/** Addresses the fixture assigns to `collector` in `job`. */
export function assignedAddresses(jobName: string, collector: string): string[] {
  const j = fixtureJobs().get(jobName)!;
  return j.targets.filter((t) => j.assignment.get(t.key) === collector).map((t) => t.address);
}
