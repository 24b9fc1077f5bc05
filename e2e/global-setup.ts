/**
 * Starts two embedded demo clusters alone (through the demo package's launcher, as `npm run demo-cluster` runs them), one with legacy collector tracking and
 * one with ready-only tracking, and the built dashboard with one configuration naming both clusters (`?cluster=legacy`,
 * `?cluster=ready`), as a user would run it against two real clusters: "legacy" with its TAs configured, "ready" with them
 * discovered from its Kubernetes API (`targetAllocators: auto`) and reached through port-forwards. Records their addresses
 * for the tests.
 * With Debian's prometheus installed, it also scrapes the dashboard's /metrics every second and the configuration's
 * `fleet` reads it back: the fleet view lists the two clusters, each linked to the dashboard's overview of it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { launchDemo } from "@allocation-lens/demo-cluster";
import { waitFor, waitForHttp } from "@allocation-lens/test-support/wait";
import { freePort } from "@allocation-lens/test-support/ports";
import { SERVING_ENV, SERVING_NODE_FLAGS } from "../lib/node-flags";
import { ENV_FILE, SCREENSHOTS, type DemoName, type E2eEnv } from "./env";

const root = process.cwd();
const PROMETHEUS = "/usr/bin/prometheus";

/** Debian's prometheus scraping the dashboard's /metrics every second, its TSDB under artifacts/; resolves once it holds both clusters. */
async function startPrometheus(promPort: number, dashboard: string): Promise<ChildProcess> {
  const dir = path.join(root, "artifacts", "e2e-prometheus");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const configFile = path.join(dir, "prometheus.yml");
  const scrape = { job_name: "allocation-lens", honor_labels: true, static_configs: [{ targets: [dashboard] }] };
  fs.writeFileSync(configFile, YAML.stringify({ global: { scrape_interval: "1s", scrape_timeout: "900ms" }, scrape_configs: [scrape] }));
  const prom = spawn(PROMETHEUS, [`--config.file=${configFile}`, `--storage.tsdb.path=${path.join(dir, "tsdb")}`, `--web.listen-address=127.0.0.1:${promPort}`], { stdio: "ignore" });
  const url = `http://127.0.0.1:${promPort}`;
  await waitForHttp(`${url}/-/ready`, { timeoutMs: 30_000, child: prom, what: "prometheus" });
  await waitFor(
    "prometheus to hold both clusters' series",
    async () => {
      const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent("count by (cluster) (allocation_lens_last_poll_timestamp_seconds)")}`);
      const body = (await r.json()) as { data: { result: unknown[] } };
      return body.data.result.length === 2;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
  return prom;
}

const startDemo = (tracking: "legacy" | "ready-only") => launchDemo(["--seed", "7", "--poll-interval", "2", "--tracking", tracking], { root });

export default async function globalSetup() {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const [legacy, ready] = await Promise.all([startDemo("legacy"), startDemo("ready-only")]);
  const clusterOf = (name: DemoName, file: string) => ({ ...YAML.parse(fs.readFileSync(file, "utf8")).clusters[0], name });
  const config = {
    // "ready" is read as a laptop user would: its TAs discovered in its Kubernetes API, reached through port-forwards (mTLS)
    clusters: [clusterOf("legacy", legacy.info.dashboardConfig), clusterOf("ready", ready.info.discoverConfig)],
    history: { path: path.join(root, "artifacts", "e2e-history.sqlite") },
    demo: { control: legacy.info.control, controlTokenFile: legacy.info.controlTokenFile },
  };
  fs.rmSync(config.history.path, { force: true });
  const port = process.env.E2E_PORT ?? "3107";
  const promPort = fs.existsSync(PROMETHEUS) ? await freePort() : null;
  const fleet = promPort
    ? {
        prometheus: { url: `http://127.0.0.1:${promPort}`, matchers: ['job="allocation-lens"'], timeoutSeconds: 5 },
        dashboardUrl: `http://127.0.0.1:${port}/?cluster={cluster}`,
        staleAfterSeconds: 30,
        refreshSeconds: 2,
      }
    : undefined;
  const configFile = path.join(root, "artifacts", "e2e-config.yaml");
  fs.writeFileSync(configFile, YAML.stringify({ ...config, ...(fleet ? { fleet } : {}) }));
  // the server entry, as `npm start` and the container image run it (limits and body gate in front of Next.js, the
  // process' flags and malloc setting)
  const server = spawn(process.execPath, [...SERVING_NODE_FLAGS, path.join(root, "scripts/start.mjs")], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, ...SERVING_ENV, ALLOCATION_LENS_CONFIG: configFile, NEXT_TELEMETRY_DISABLED: "1", HOST: "127.0.0.1", PORT: port },
  });
  const baseURL = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseURL}/api/readyz`, { timeoutMs: 120_000, child: server, what: "the dashboard" });
  const prom = promPort ? await startPrometheus(promPort, `127.0.0.1:${port}`) : null;
  const env: E2eEnv = {
    baseURL,
    controls: { legacy: { url: legacy.info.control, token: legacy.info.controlToken }, ready: { url: ready.info.control, token: ready.info.controlToken } },
    kubeconfigs: { legacy: legacy.info.kubeconfig, ready: ready.info.kubeconfig },
    pids: [server.pid!, legacy.child.pid!, ready.child.pid!, ...(prom ? [prom.pid!] : [])],
  };
  fs.writeFileSync(ENV_FILE, JSON.stringify(env, null, 2));
}
