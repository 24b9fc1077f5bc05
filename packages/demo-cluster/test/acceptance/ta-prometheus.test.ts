/**
 * Debian's real Prometheus (v2.42) as an HTTP SD client of the simulated TA: it must discover exactly the targets the
 * fixture assigns to one collector, through `/jobs/<escaped job>/targets?collector_id=<pod>` (mTLS for cloudwatch).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@allocation-lens/test-support/ports";
import { sleep } from "@allocation-lens/test-support/wait";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import type { Flavor } from "@allocation-lens/allocation/model";
import { generateDemoPki, writePki, type PkiPaths } from "../../src/certs";
import { goQueryEscape } from "../../src/ta/encode";
import { startTaServer, type TaServer } from "../../src/ta/server";
import { assignedAddresses, fixtureState, NODE_EXPORTER } from "../fixtures/ta-state";

const PROMETHEUS = "/usr/bin/prometheus";
const HAVE_PROMETHEUS = existsSync(PROMETHEUS);
const COLLECTOR = "agent-b";
const SCRAPE_JOB = "ta-sd";
const SELF_JOB = "ta-self";

if (!HAVE_PROMETHEUS) console.warn(`skipping the Prometheus integration test: ${PROMETHEUS} is not installed`);


describe.skipIf(!HAVE_PROMETHEUS)("Debian's Prometheus against the simulated TA (http_sd_configs)", () => {
  let dir: string;
  let pkiPaths: PkiPaths;
  let caPem: { caPem: string; certPem: string; keyPem: string };
  const servers: TaServer[] = [];
  const procs: ChildProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "ta-prom-"));
    const pki = await generateDemoPki();
    pkiPaths = await writePki(path.join(dir, "pki"), pki);
    caPem = { caPem: pki.caPem, certPem: pki.serverCertPem, keyPem: pki.serverKeyPem };
  });

  afterAll(async () => {
    for (const p of procs) {
      if (p.exitCode === null && p.signalCode === null) {
        const exited = new Promise((r) => p.once("exit", r));
        p.kill("SIGTERM");
        await Promise.race([exited, sleep(5000)]);
        if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
      }
    }
    await Promise.all(servers.map((s) => s.close()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each<Flavor>(["cloudwatch", "upstream"])("%s: Prometheus discovers exactly the collector's targets", async (flavor) => {
    const state = fixtureState(flavor);
    const ta = await startTaServer({ flavor, getState: () => state, getFaults: () => ({}), tls: flavor === "cloudwatch" ? caPem : undefined });
    servers.push(ta);
    const sd: Record<string, unknown> = {
      url: `${ta.url}/jobs/${goQueryEscape(NODE_EXPORTER)}/targets?collector_id=${COLLECTOR}`,
      refresh_interval: "1s",
    };
    if (flavor === "cloudwatch") sd.tls_config = { ca_file: pkiPaths.ca, cert_file: pkiPaths.clientCert, key_file: pkiPaths.clientKey };
    // a second job scrapes the TA's own /metrics: the real text parser must accept the exposition
    const self: Record<string, unknown> = { job_name: SELF_JOB, scrape_interval: "1s", static_configs: [{ targets: [new URL(ta.url).host] }] };
    if (flavor === "cloudwatch") Object.assign(self, { scheme: "https", tls_config: sd.tls_config });
    const config = { global: { scrape_interval: "1m" }, scrape_configs: [{ job_name: SCRAPE_JOB, http_sd_configs: [sd] }, self] };
    const configFile = path.join(dir, `prometheus-${flavor}.yml`);
    await writeFile(configFile, stringify(config));
    const port = await freePort();
    let logs = "";
    const proc = spawn(
      PROMETHEUS,
      [`--config.file=${configFile}`, `--storage.tsdb.path=${path.join(dir, `tsdb-${flavor}`)}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    procs.push(proc);
    const keep = (b: Buffer) => (logs = (logs + b.toString()).slice(-8000));
    proc.stdout!.on("data", keep);
    proc.stderr!.on("data", keep);

    const want = assignedAddresses(NODE_EXPORTER, COLLECTOR).sort();
    expect(want.length).toBeGreaterThan(0);
    let seen: string[] = [];
    let selfTarget: { health: string; lastError: string } | undefined;
    const deadline = Date.now() + 40_000;
    while (Date.now() < deadline && proc.exitCode === null) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/api/v1/targets?state=active`, { signal: AbortSignal.timeout(2000) });
        if (r.ok) {
          type Active = { scrapePool: string; discoveredLabels: Record<string, string>; health: string; lastError: string };
          const body = (await r.json()) as { data: { activeTargets: Active[] } };
          seen = body.data.activeTargets.filter((t) => t.scrapePool === SCRAPE_JOB).map((t) => t.discoveredLabels.__address__).sort();
          selfTarget = body.data.activeTargets.find((t) => t.scrapePool === SELF_JOB);
          if (JSON.stringify(seen) === JSON.stringify(want) && selfTarget?.health === "up") break;
        }
      } catch {
        // not listening yet
      }
      await sleep(250);
    }
    expect(seen, `Prometheus exit=${proc.exitCode}, logs:\n${logs}`).toEqual(want);
    expect({ health: selfTarget?.health, lastError: selfTarget?.lastError }).toEqual({ health: "up", lastError: "" });
    expect(ta.requestLog().some((e) => e.path === `/jobs/${goQueryEscape(NODE_EXPORTER)}/targets?collector_id=${COLLECTOR}`)).toBe(true);
  });
});
