/**
 * Starts two embedded demo clusters alone (through the demo package's launcher, as `npm run demo-cluster` runs them), one with legacy collector tracking and
 * one with ready-only tracking, and the built dashboard with one configuration naming both clusters (`?cluster=legacy`,
 * `?cluster=ready`), as a user would run it against two real clusters. Records their addresses for the tests.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { launchDemo } from "@allocation-lens/demo-cluster";
import { waitForHttp } from "@allocation-lens/test-support/wait";
import { ENV_FILE, SCREENSHOTS, type DemoName, type E2eEnv } from "./env";

const root = process.cwd();

const startDemo = (tracking: "legacy" | "ready-only") => launchDemo(["--seed", "7", "--poll-interval", "2", "--tracking", tracking], { root });

export default async function globalSetup() {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const [legacy, ready] = await Promise.all([startDemo("legacy"), startDemo("ready-only")]);
  const clusterOf = (name: DemoName, file: string) => ({ ...YAML.parse(fs.readFileSync(file, "utf8")).clusters[0], name });
  const config = {
    clusters: [clusterOf("legacy", legacy.info.dashboardConfig), clusterOf("ready", ready.info.dashboardConfig)],
    history: { path: path.join(root, "artifacts", "e2e-history.sqlite") },
    demo: { control: legacy.info.control, controlTokenFile: legacy.info.controlTokenFile },
  };
  fs.rmSync(config.history.path, { force: true });
  const configFile = path.join(root, "artifacts", "e2e-config.yaml");
  fs.writeFileSync(configFile, YAML.stringify(config));
  const port = process.env.E2E_PORT ?? "3107";
  // the server entry, as `npm start` and the container image run it (limits and body gate in front of Next.js)
  const server = spawn(process.execPath, [path.join(root, "scripts/start.mjs")], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, ALLOCATION_LENS_CONFIG: configFile, NEXT_TELEMETRY_DISABLED: "1", HOST: "127.0.0.1", PORT: port },
  });
  const baseURL = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseURL}/api/readyz`, { timeoutMs: 120_000, child: server, what: "the dashboard" });
  const env: E2eEnv = {
    baseURL,
    controls: { legacy: { url: legacy.info.control, token: legacy.info.controlToken }, ready: { url: ready.info.control, token: ready.info.controlToken } },
    kubeconfigs: { legacy: legacy.info.kubeconfig, ready: ready.info.kubeconfig },
    pids: [server.pid!, legacy.child.pid!, ready.child.pid!],
  };
  fs.writeFileSync(ENV_FILE, JSON.stringify(env, null, 2));
}
