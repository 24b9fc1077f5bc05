/** What global setup started, shared with the tests through a file. */
import fs from "node:fs";
import path from "node:path";

export interface E2eEnv {
  baseURL: string;
  control: string;
  kubeconfig: string;
  pids: number[];
}

export const ENV_FILE = path.join(process.cwd(), "artifacts", "e2e-env.json");

export function readEnv(): E2eEnv {
  return JSON.parse(fs.readFileSync(ENV_FILE, "utf8")) as E2eEnv;
}
