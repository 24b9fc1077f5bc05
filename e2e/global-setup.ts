/**
 * Starts two embedded demo clusters alone (`npm run demo-cluster`'s entry point), one with legacy collector tracking and
 * one with ready-only tracking, and the built dashboard with one configuration naming both clusters (`?cluster=legacy`,
 * `?cluster=ready`), as a user would run it against two real clusters. Records their addresses for the tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import YAML from "yaml";
import { ENV_FILE, SCREENSHOTS, type DemoName, type E2eEnv } from "./env";

const root = process.cwd();

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000}s`);
}

function startDemo(tracking: "legacy" | "ready-only"): Promise<{ child: ChildProcess; info: { dashboardConfig: string; control: string; controlToken: string; controlTokenFile: string; kubeconfig: string } }> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "server/demo/main.ts", "--seed", "7", "--poll-interval", "2", "--tracking", tracking], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("demo cluster did not start within 60 s")), 60_000);
    child.once("exit", (c) => reject(new Error(`demo cluster exited with ${c}`)));
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        const info = JSON.parse(line);
        clearTimeout(timer);
        resolve({ child, info });
      } catch {
        /* a log line */
      }
    });
  });
}

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
  await waitForHttp(`${baseURL}/api/readyz`, 120_000);
  const env: E2eEnv = {
    baseURL,
    controls: { legacy: { url: legacy.info.control, token: legacy.info.controlToken }, ready: { url: ready.info.control, token: ready.info.controlToken } },
    kubeconfigs: { legacy: legacy.info.kubeconfig, ready: ready.info.kubeconfig },
    pids: [server.pid!, legacy.child.pid!, ready.child.pid!],
  };
  fs.writeFileSync(ENV_FILE, JSON.stringify(env, null, 2));
}
