/**
 * A real HTTP-SD client: Debian's Prometheus (v2.42), configured as a collector would be (one `http_sd_configs` per TA job at
 * `/jobs/<escaped job>/targets?collector_id=<pod>`, mTLS for cloudwatch, plain HTTP for upstream), discovers exactly the
 * targets the demo's per-node TA assigned to that pod according to /truth.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { assignedTo, PROMETHEUS, queryEscape, startDemo, truth, type Demo } from "./harness";
import { freePort } from "@allocation-lens/test-support/ports";
import { startProcess, type Proc } from "@allocation-lens/test-support/processes";
import { waitFor } from "@allocation-lens/test-support/wait";

const HAVE_PROMETHEUS = existsSync(PROMETHEUS);
if (!HAVE_PROMETHEUS) console.warn(`skipping the Prometheus acceptance tests: ${PROMETHEUS} is not installed`);

type Active = { scrapePool: string; discoveredLabels: Record<string, string> };

describe.skipIf(!HAVE_PROMETHEUS)("Debian's Prometheus as an HTTP SD client of a demo TA", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => {});
  });

  it.each(["cloudwatch", "upstream"] as const)("%s: discovers exactly the targets /truth assigns to one collector", async (flavor) => {
    const demo: Demo = await startDemo(["--flavor", flavor, "--nodes", "5", "--seed", "11"]);
    cleanup.push(() => demo.stop());
    const ta = demo.info.targetAllocators["per-node"]!;
    expect(ta.flavor).toBe(flavor);

    // the collector with the most jobs, and what the truth says it holds
    const t = await truth(demo.info);
    const ids = t.collectors.filter((c) => c.role === "per-node").map((c) => c.id);
    const [pod, held] = ids.map((id) => [id, assignedTo(t, "per-node", id)] as const).sort((a, b) => b[1].size - a[1].size)[0];
    expect(held.size).toBeGreaterThanOrEqual(3);
    expect([...held.values()].reduce((n, a) => n + a.length, 0)).toBeGreaterThanOrEqual(5);
    const jobs = [...held.keys()].sort();

    const tls = ta.ca ? { tls_config: { ca_file: ta.ca, cert_file: ta.cert, key_file: ta.key } } : {};
    if (flavor === "cloudwatch") expect(tls).toHaveProperty("tls_config");
    const pools = jobs.map((job, i) => ({
      job_name: `sd-${i}`,
      scrape_interval: "5m",
      http_sd_configs: [{ url: `${ta.url}/jobs/${queryEscape(job)}/targets?collector_id=${pod}`, refresh_interval: "2s", ...tls }],
    }));
    const dir = await mkdtemp(path.join(os.tmpdir(), "lens-acceptance-prom-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const configFile = path.join(dir, "prometheus.yml");
    await writeFile(configFile, stringify({ global: { scrape_interval: "5m" }, scrape_configs: pools }));
    const port = await freePort();
    const prom: Proc = startProcess(PROMETHEUS, [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, "tsdb")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ]);
    cleanup.push(() => prom.kill());

    const want = Object.fromEntries(jobs.map((job, i) => [`sd-${i}`, [...new Set(held.get(job))].sort()]));
    let seen: Record<string, string[]> = {};
    try {
      await waitFor(
        "Prometheus' active targets to equal the collector's assignment",
        async () => {
          if (prom.child.exitCode !== null) throw new Error(`prometheus exited ${prom.child.exitCode}`);
          const r = await fetch(`http://127.0.0.1:${port}/api/v1/targets?state=active`, { signal: AbortSignal.timeout(2000) });
          if (!r.ok) return false;
          const body = (await r.json()) as { data: { activeTargets: Active[] } };
          seen = {};
          for (const a of body.data.activeTargets) (seen[a.scrapePool] ??= []).push(a.discoveredLabels.__address__);
          for (const k of Object.keys(seen)) seen[k] = [...new Set(seen[k])].sort();
          return JSON.stringify(seen, Object.keys(want).sort()) === JSON.stringify(want, Object.keys(want).sort()) && Object.keys(seen).length === jobs.length;
        },
        { timeoutMs: 40_000, intervalMs: 500 },
      );
    } catch (e) {
      expect(seen, `${(e as Error).message}\nPrometheus logs:\n${prom.output().slice(-3000)}`).toEqual(want);
    }
    expect(seen).toEqual(want);
    // discovered labels are the TA's __meta_* labels: the pod's node is the collector's node for node-bound jobs
    const node = t.collectors.find((c) => c.id === pod)!.node;
    const r = await fetch(`http://127.0.0.1:${port}/api/v1/targets?state=active`, { signal: AbortSignal.timeout(2000) });
    const active = ((await r.json()) as { data: { activeTargets: Active[] } }).data.activeTargets;
    const podTargets = active.filter((a) => a.discoveredLabels.__meta_kubernetes_pod_node_name);
    expect(podTargets.length).toBeGreaterThan(0);
    for (const a of podTargets) expect(a.discoveredLabels.__meta_kubernetes_pod_node_name).toBe(node);
  });
});
