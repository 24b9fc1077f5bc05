/**
 * A dashboard replica as its own process: the built server entry (`npm run build`: .next/allocation-lens-server.mjs) with
 * a configuration of its own, for the suites of several replicas (replicas-suite.ts, shards.test.ts).
 */
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { freePort } from "@allocation-lens/test-support/ports";
import { startProcess, type Proc } from "@allocation-lens/test-support/processes";
import { waitForHttp } from "@allocation-lens/test-support/wait";
import { SERVING_ENV, SERVING_NODE_FLAGS } from "@/lib/node-flags";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const ENTRY = path.join(ROOT, ".next", "allocation-lens-server.mjs");
export const BUILT = fs.existsSync(ENTRY);
// npm test builds first; CI (ALLOCATION_LENS_REQUIRE_PEERS=1) fails rather than skip without a build
if (!BUILT && process.env.ALLOCATION_LENS_REQUIRE_PEERS === "1") throw new Error(`no build (${path.relative(ROOT, ENTRY)}): the replicas tests need \`npm run build\``);
if (!BUILT) console.warn(`skipping the replicas tests: no build (${path.relative(ROOT, ENTRY)}); run \`npm run build\` first`);

export interface Replica {
  name: string;
  port: number;
  proc: Proc;
}

/** Writes `config` to `<dir>/<name>.yaml` and starts the built server on it as POD_NAME `name`, on a free loopback port. */
export async function startReplica(name: string, config: unknown, dir: string): Promise<Replica> {
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(file, YAML.stringify(config));
  const port = await freePort();
  const proc = startProcess(process.execPath, [...SERVING_NODE_FLAGS, ENTRY], {
    cwd: ROOT,
    env: { ...process.env, ...SERVING_ENV, NODE_ENV: "production", ALLOCATION_LENS_CONFIG: file, PORT: String(port), HOSTNAME: "127.0.0.1", POD_NAME: name },
  });
  return { name, port, proc };
}

/** startReplica, then a wait (bounded) until the replica answers /api/readyz. */
export async function startReadyReplica(name: string, config: unknown, dir: string): Promise<Replica> {
  const r = await startReplica(name, config, dir);
  await waitForHttp(`http://127.0.0.1:${r.port}/api/readyz`, { timeoutMs: 90_000, child: r.proc.child, what: name });
  return r;
}

/** The dashboard configuration a demo cluster generated for itself (its `dashboardConfig` file), parsed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests reshape it freely before writing it back
export const demoConfig = (info: { dashboardConfig: string }): Record<string, any> => YAML.parse(fs.readFileSync(info.dashboardConfig, "utf8"));

/** An HTTP answer of a replica: status, text, and the body parsed when it is JSON. */
export async function replicaApi(r: Replica, p: string) {
  const res = await fetch(`http://127.0.0.1:${r.port}${p}`, { signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  return { status: res.status, text, body: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}
