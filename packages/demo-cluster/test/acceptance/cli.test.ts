/**
 * The `demo-cluster` CLI contract (docs/ARCHITECTURE.md): argument errors exit 2 naming the option; the JSON line
 * carries kubeconfig, kubeApi, targetAllocators (with mTLS files for cloudwatch), dashboardConfig and control; `--nodes 50`
 * runs 50 nodes with one per-node collector each.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { processAlive } from "@allocation-lens/test-support/processes";
import { waitFor } from "@allocation-lens/test-support/wait";
import { REPO, kubeGet, runDemoCli, startDemo, tlsGet, truth, type Demo } from "./harness";

const HAVE_IPV6_LOOPBACK = Object.values(os.networkInterfaces()).some((l) => l?.some((a) => a.address === "::1"));

describe("demo-cluster CLI: argument errors", () => {
  it.each([
    [["--nodes", "0"], "--nodes"],
    [["--nodes", "5001"], "--nodes"],
    [["--flavor", "x"], "--flavor"],
    [["--tracking", "sometimes"], "--tracking"],
    [["--scenario", "nope"], "--scenario"],
    [["--bogus"], "bogus"],
  ])("%j exits 2 and names the option", async (args, option) => {
    const r = await runDemoCli(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(option);
    expect(r.stdout.trim()).toBe("");
  });
});

describe("demo-cluster CLI: --nodes 50 --seed 3", () => {
  let demo: Demo | undefined;
  afterAll(async () => demo?.stop());

  it("prints the JSON line of the contract and runs 50 nodes with one per-node collector each", async () => {
    demo = await startDemo(["--nodes", "50", "--seed", "3"]);
    const { info } = demo;
    expect(info).toMatchObject({ nodes: 50, seed: 3, flavor: "cloudwatch", tracking: "ready-only" });
    expect(fs.existsSync(info.kubeconfig)).toBe(true);
    expect(info.kubeApi).toMatch(/^https?:\/\/127\.0\.0\.1:\d+$/);
    expect(info.control).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Object.keys(info.targetAllocators).sort()).toEqual(["cluster-scraper", "per-node"]);
    for (const ta of Object.values(info.targetAllocators)) {
      expect(ta!.flavor).toBe("cloudwatch");
      expect(ta!.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      for (const f of [ta!.ca, ta!.cert, ta!.key]) expect(f && fs.existsSync(f), `TLS file ${f}`).toBe(true);
    }
    // the dashboard configuration is YAML pointing at this cluster
    expect(fs.existsSync(info.dashboardConfig)).toBe(true);
    const config = YAML.parse(fs.readFileSync(info.dashboardConfig, "utf8")) as {
      clusters: { kubernetes: { kubeconfig: string }; targetAllocators: Record<string, { url: string }> }[];
    };
    expect(config.clusters).toHaveLength(1);
    expect(config.clusters[0].kubernetes.kubeconfig).toBe(info.kubeconfig);
    expect(Object.fromEntries(Object.entries(config.clusters[0].targetAllocators).map(([r, t]) => [r, t.url]))).toEqual(
      Object.fromEntries(Object.entries(info.targetAllocators).map(([r, t]) => [r, t!.url])),
    );

    const t = await truth(info);
    const perNode = t.collectors.filter((c) => c.role === "per-node");
    expect(perNode).toHaveLength(50);
    expect(new Set(perNode.map((c) => c.node)).size).toBe(50);
    expect(perNode.every((c) => c.eligible && c.registered)).toBe(true);
    const nodes = await kubeGet<{ items: { metadata: { name: string } }[] }>(info, "/api/v1/nodes");
    expect(nodes.status).toBe(200);
    expect(nodes.body.items.map((n) => n.metadata.name).sort()).toEqual(perNode.map((c) => c.node).sort());
    expect(t.unassigned).toEqual({ "per-node": 0, "cluster-scraper": 0 });
    // calm per-node allocation: every target with a node is scraped by the collector on that node
    const onNode = new Map(perNode.map((c) => [c.node, c.id]));
    const withNode = t.targets.filter((x) => x.role === "per-node" && x.node);
    expect(withNode.length).toBeGreaterThan(50);
    expect(withNode.filter((x) => x.collector !== onNode.get(x.node!))).toEqual([]);
  });

  it.each(["SIGTERM", "SIGINT"] as const)("runs until %s, then exits 0 and stops serving", async (signal) => {
    const d = await startDemo(["--nodes", "2"]);
    try {
      expect((await truth(d.info)).collectors.length).toBeGreaterThan(0);
      d.proc.child.kill(signal);
      const code = await Promise.race([d.proc.exited, new Promise((r) => setTimeout(() => r("still running"), 10_000))]);
      expect(code).toBe(0);
      await expect(truth(d.info)).rejects.toThrow();
    } finally {
      await d.stop();
    }
  });

  it("--flavor upstream prints one plain-HTTP per-node TA without TLS files", async () => {
    const up = await startDemo(["--flavor", "upstream", "--nodes", "3"]);
    try {
      expect(Object.keys(up.info.targetAllocators)).toEqual(["per-node"]);
      const ta = up.info.targetAllocators["per-node"]!;
      expect(ta.flavor).toBe("upstream");
      expect(ta.url).toMatch(/^http:\/\//);
      expect(ta.ca).toBeUndefined();
    } finally {
      await up.stop();
    }
  });

  it.skipIf(!HAVE_IPV6_LOOPBACK)("--host ::1 prints URLs that parse and work (IPv6 hosts in brackets)", async () => {
    const v6 = await startDemo(["--host", "::1", "--nodes", "2"]);
    try {
      const urls = [v6.info.kubeApi, v6.info.control, ...Object.values(v6.info.targetAllocators).map((t) => t!.url)];
      for (const u of urls) expect(new URL(u).hostname, u).toBe("[::1]");
      expect((await truth(v6.info)).collectors.length).toBeGreaterThan(0);
      expect((await kubeGet(v6.info, "/api/v1/nodes")).status).toBe(200);
      expect((await tlsGet(v6.info.targetAllocators["per-node"]!, "/livez")).status).toBe(200);
    } finally {
      await v6.stop();
    }
  });
});

describe("demo-cluster CLI: the launcher's death", () => {
  const left: number[] = [];
  afterAll(() => {
    for (const pid of left.filter(processAlive)) process.kill(pid, "SIGTERM"); // it removes its folder as it closes
  });

  /** A process that launches a demo (as the dashboard's runtime does) and is then SIGKILLed: the demo's pid and folder. */
  async function orphan(): Promise<{ pid: number; dir: string }> {
    const launcher = path.join(REPO, "packages/demo-cluster/test/fixtures/launch-and-stay.mts");
    const parent = spawn(process.execPath, ["--import", "tsx", launcher, REPO], { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] });
    const exited = once(parent, "exit").then(([code]) => Promise.reject(new Error(`the launching process exited (${code}) before the demo was up`)));
    const [line] = (await Promise.race([once(readline.createInterface({ input: parent.stdout! }), "line"), exited])) as [string];
    const { pid, config } = JSON.parse(line) as { pid: number; config: string };
    left.push(pid);
    const dir = path.dirname(config);
    expect(processAlive(pid) && fs.existsSync(dir)).toBe(true);
    exited.catch(() => undefined);
    parent.kill("SIGKILL");
    await once(parent, "exit").catch(() => undefined);
    return { pid, dir };
  }

  it("closes as on SIGTERM, its temporary folder removed, when the process that launched it is killed", async () => {
    const { pid, dir } = await orphan();
    await waitFor("the demo to exit and remove its folder", () => !processAlive(pid) && !fs.existsSync(dir), { timeoutMs: 20_000 });
  });
});
