/**
 * Starts the embedded demo cluster alone (`npm run demo-cluster`'s entry point) and the built dashboard pointed at the
 * configuration file it wrote, as a user would, then records their addresses for the tests.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { ENV_FILE, type E2eEnv } from "./env";

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

export default async function globalSetup() {
  fs.mkdirSync(path.dirname(ENV_FILE), { recursive: true });
  const demo = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "server/demo/main.ts", "--seed", "7", "--poll-interval", "2", "--tracking", "legacy"],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"], detached: false },
  );
  const info = await new Promise<{ dashboardConfig: string; control: string; kubeconfig: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("demo cluster did not start within 60 s")), 60_000);
    demo.once("exit", (c) => reject(new Error(`demo cluster exited with ${c}`)));
    readline.createInterface({ input: demo.stdout! }).on("line", (line) => {
      try {
        const j = JSON.parse(line);
        clearTimeout(timer);
        resolve(j);
      } catch {
        /* log line */
      }
    });
  });
  const port = process.env.E2E_PORT ?? "3107";
  const server = spawn(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", port, "-H", "127.0.0.1"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, ALLOCATION_LENS_CONFIG: info.dashboardConfig, NEXT_TELEMETRY_DISABLED: "1" },
  });
  const baseURL = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseURL}/api/v1/summary`, 90_000);
  const env: E2eEnv = { baseURL, control: info.control, kubeconfig: info.kubeconfig, pids: [server.pid!, demo.pid!] };
  fs.writeFileSync(ENV_FILE, JSON.stringify(env, null, 2));
}
