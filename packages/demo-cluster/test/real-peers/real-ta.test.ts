/**
 * `npm run demo-cluster -- --flavor upstream --ta real`: the process that serves the printed URL is the built
 * otel-allocator binary, whose own pages answer; a fault that needs the simulated allocator is refused with the reason.
 * `npm run demo-cluster -- --flavor cloudwatch --ta real`: two processes, one per role, whose executable is the built
 * CloudWatch fork's allocator, each on the printed URL over TLS 1.3 with a client certificate required.
 * The comparison of the two allocators is in real-ta-*.test.ts (real-ta-differential.ts).
 */
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudwatchTaSuite, realTaSuite } from "@allocation-lens/test-support/real-ta";
import { startDemo, type Demo } from "../acceptance/harness";
import { waitFor } from "@allocation-lens/test-support/wait";

/** The executable of the process listening on `port` of 127.0.0.1 (found through /proc). */
function listenerExe(port: number): string | undefined {
  const inode = fs
    .readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .find((f) => f[1]?.endsWith(`:${port.toString(16).toUpperCase().padStart(4, "0")}`) && f[3] === "0A")?.[9];
  if (!inode) return undefined;
  const pid = fs.readdirSync("/proc").find((p) => {
    if (!/^\d+$/.test(p)) return false;
    try {
      return fs.readdirSync(`/proc/${p}/fd`).some((fd) => fs.readlinkSync(`/proc/${p}/fd/${fd}`) === `socket:[${inode}]`);
    } catch {
      return false;
    }
  });
  return pid ? fs.readlinkSync(`/proc/${pid}/exe`) : undefined;
}

const get = (url: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get(url, { timeout: 5000 }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });

realTaSuite("npm run demo-cluster -- --flavor upstream --ta real", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo(["--flavor", "upstream", "--ta", "real", "--strategy", "per-node", "--nodes", "12"], 120_000);
  }, 150_000);
  afterAll(async () => demo?.stop());

  it("serves the printed URL from the built otel-allocator binary, whose own pages answer", async () => {
    const { info } = demo;
    expect(info.ta).toBe("real");
    expect(info.taVersion).toMatch(/^v\d+\.\d+\.\d+$/);
    const url = new URL(info.targetAllocators["per-node"]!.url);
    // the process listening on that port: its executable is the built binary
    expect(listenerExe(Number(url.port))).toMatch(/otel-allocator$/);
    const debug = await get(`${url.origin}/debug/targets`);
    expect(debug.status).toBe(200);
    expect(debug.body).toMatch(/<html/i);
    const jobs = JSON.parse((await get(`${url.origin}/jobs`)).body) as Record<string, unknown>;
    expect(Object.keys(jobs).length).toBeGreaterThan(5);
    // how it came up: every job listed, the last count of its progress, and its reads of the demo's API
    const startup = info.realTaStartup?.["per-node"];
    expect(startup?.jobs).toBe(Object.keys(jobs).length);
    expect(startup?.progress.at(-1)).toEqual([startup?.jobsListedMs, startup?.jobs]);
    expect(startup?.kubeRequests["list:pods"]).toBeGreaterThan(0);
    expect(startup?.kubeServeMs["list:pods"]).toBeGreaterThan(0);
    expect(startup?.allocatorCpuMs).toBeGreaterThan(0);
  });

  it("answers 400 for a fault that needs the simulated allocator, saying why", async () => {
    const r = await fetch(`${demo.info.control}/faults`, {
      method: "POST",
      headers: { Authorization: `Bearer ${demo.info.controlToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ fault: "ta-malformed", role: "per-node" }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toMatch(/needs the simulated Target Allocator.*real one/);
  });
});

cloudwatchTaSuite("npm run demo-cluster -- --flavor cloudwatch --ta real", (ta) => {
  describe("two fork allocators, one per role", () => {
    let demo: Demo;
    beforeAll(async () => {
      demo = await startDemo(["--flavor", "cloudwatch", "--ta", "real", "--nodes", "10"], 120_000);
    }, 150_000);
    afterAll(async () => demo?.stop());

    const get = (role: "per-node" | "cluster-scraper", path: string, tls: { maxVersion?: "TLSv1.2"; cert?: boolean } = {}) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const t = demo.info.targetAllocators[role]!;
        const req = https.get(
          `${t.url}${path}`,
          { ca: fs.readFileSync(t.ca!), ...(tls.cert === false ? {} : { cert: fs.readFileSync(t.cert!), key: fs.readFileSync(t.key!) }), ...(tls.maxVersion ? { maxVersion: tls.maxVersion } : {}), timeout: 5000 },
          (res) => {
            let body = "";
            res.on("data", (c: Buffer) => (body += c.toString()));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject);
      });

    it("serves each printed URL from the built fork binary, its commit in the JSON line, over TLS 1.3 with a client certificate", async () => {
      const { info } = demo;
      expect(info.ta).toBe("real");
      expect(info.taVersion).toBe(ta.version);
      const exes = (["per-node", "cluster-scraper"] as const).map((role) => listenerExe(Number(new URL(info.targetAllocators[role]!.url).port)));
      expect(exes[0]).toBe(fs.realpathSync(ta.binary));
      expect(exes[1]).toBe(fs.realpathSync(ta.binary));
      expect(info.targetAllocators["per-node"]!.url).not.toBe(info.targetAllocators["cluster-scraper"]!.url);
      for (const role of ["per-node", "cluster-scraper"] as const) {
        const jobs = JSON.parse((await get(role, "/jobs")).body) as Record<string, unknown>;
        expect(Object.keys(jobs).length, role).toBeGreaterThan(0);
        await expect(get(role, "/jobs", { maxVersion: "TLSv1.2" }), `${role}: TLS 1.2`).rejects.toThrow(/protocol version|alert|handshake/i);
        await expect(get(role, "/jobs", { cert: false }), `${role}: no client certificate`).rejects.toThrow();
      }
      // the monitors routed to the cluster-scraper carry the key this build reads, and the dashboard is told so
      const config = fs.readFileSync(info.dashboardConfig, "utf8");
      expect(config).toContain("scraperAnnotation: cloudwatch.aws/scraper");
    });

    it("answers 400 for a fault that needs the simulated allocator, and kills and restarts the real one", async () => {
      const post = (body: unknown) =>
        fetch(`${demo.info.control}/faults`, { method: "POST", headers: { Authorization: `Bearer ${demo.info.controlToken}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
      const refused = await post({ fault: "ta-malformed", role: "cluster-scraper" });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toMatch(/needs the simulated Target Allocator.*real one/);
      const port = Number(new URL(demo.info.targetAllocators["cluster-scraper"]!.url).port);
      const killed = await post({ fault: "ta-killed", role: "cluster-scraper", downSeconds: 1 });
      expect(killed.status).toBe(200);
      // a new process of the same binary listens on the same port again
      await waitFor("the killed allocator to listen again", async () => listenerExe(port) === fs.realpathSync(ta.binary) && (await get("cluster-scraper", "/jobs").then((r) => r.status === 200, () => false)), { timeoutMs: 60_000, intervalMs: 250 });
    });
  });
});
