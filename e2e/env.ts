/** What global setup started, shared with the tests through a file. */
import fs from "node:fs";
import path from "node:path";

/** Two demo clusters behind one dashboard: the same seeded world, with legacy and with ready-only collector tracking. */
export type DemoName = "legacy" | "ready";

export interface E2eEnv {
  baseURL: string;
  /** each demo's control API: its URL and per-run token */
  controls: Record<DemoName, { url: string; token: string }>;
  kubeconfigs: Record<DemoName, string>;
  pids: number[];
}

export const ENV_FILE = path.join(process.cwd(), "artifacts", "e2e-env.json");
export const SCREENSHOTS = path.join(process.cwd(), "artifacts", "screenshots");

export function readEnv(): E2eEnv {
  return JSON.parse(fs.readFileSync(ENV_FILE, "utf8")) as E2eEnv;
}
