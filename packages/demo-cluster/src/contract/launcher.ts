import "server-only";
/**
 * Starts the embedded demo cluster as a child process (`npm run demo-cluster`'s entry point) and waits for its one line of
 * JSON. A child process keeps the simulated cluster's CPU off the dashboard's event loop. It is stopped with the server.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";

export interface DemoInfo {
  kubeconfig: string;
  kubeApi: string;
  targetAllocators: Record<string, { url: string; flavor: string; ca?: string; cert?: string; key?: string }>;
  dashboardConfig: string;
  control: string;
  controlToken: string;
  controlTokenFile: string;
}

/** Said when there is no configuration and no source tree to run the embedded demo from (the container image). */
export const NO_CONFIGURATION = "no configuration: set ALLOCATION_LENS_CONFIG; the embedded demo needs the source tree (npm start)";

export function hasSourceTree(dir: string): boolean {
  try {
    const names = new Set(fs.readdirSync(dir));
    return ["tsconfig", "package-lock"].every((n) => names.has(`${n}.json`)) && names.has("server");
  } catch {
    return false;
  }
}

export async function launchDemo(args: string[] = [], cwd = process.cwd(), timeoutMs = 60_000): Promise<{ info: DemoInfo; child: ChildProcess }> {
  const entry = path.join(cwd, "server", "demo", "main.ts");
  // The standalone output (the container image) has no source tree: its file tracing copies main.ts and any file named by a
  // literal path here, not the code main.ts needs. So the check lists the directory instead of naming a file.
  if (!hasSourceTree(cwd)) throw new Error(NO_CONFIGURATION);
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", entry, ...args], {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  };
  process.once("exit", stop);
  const lines = readline.createInterface({ input: child.stdout! });
  const info = await new Promise<DemoInfo>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo cluster did not start within ${timeoutMs / 1000}s`)), timeoutMs);
    child.once("exit", (code) => reject(new Error(`the demo cluster exited with code ${code} before it was ready`)));
    lines.on("line", (line) => {
      if (!line.trim().startsWith("{")) return;
      try {
        const parsed = JSON.parse(line) as DemoInfo;
        clearTimeout(timer);
        resolve(parsed);
      } catch {
        /* not the ready line */
      }
    });
  });
  lines.on("line", (line) => process.stdout.write(`[demo] ${line}\n`));
  return { info, child };
}
