import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import YAML from "yaml";
import { jobsWaitBounds } from "./cluster";
import { JobsWaitError, RealTa, realTaConfig, waitForJobsListed, withStrategy } from "./real-ta";

const OPERATOR = YAML.stringify({
  allocation_strategy: "per-node",
  allocation_fallback_strategy: "consistent-hashing",
  collector_selector: { matchlabels: { app: "agent" } },
  prometheus_cr: { enabled: true },
  config: {
    scrape_configs: [
      { job_name: "kubelet", kubernetes_sd_configs: [{ role: "node" }] },
      { job_name: "probe", static_configs: [{ targets: ["10.0.0.1:443"] }] },
    ],
  },
});

describe("the real allocator's configuration", () => {
  it("sets the strategy; the fallback only for per-node", () => {
    expect(YAML.parse(withStrategy(OPERATOR, "per-node", null))).not.toHaveProperty("allocation_fallback_strategy");
    expect(YAML.parse(withStrategy(OPERATOR, "per-node", "consistent-hashing")).allocation_fallback_strategy).toBe("consistent-hashing");
    const lw = YAML.parse(withStrategy(OPERATOR, "least-weighted", "consistent-hashing"));
    expect(lw.allocation_strategy).toBe("least-weighted");
    expect(lw).not.toHaveProperty("allocation_fallback_strategy");
  });

  it("keeps the operator's text otherwise, adds the grace period and, when asked, the https block", () => {
    const plain = YAML.parse(realTaConfig({ configText: OPERATOR, strategy: "consistent-hashing", fallback: null, graceSeconds: 7 }));
    expect(plain.collector_selector).toEqual({ matchlabels: { app: "agent" } });
    expect(plain.config.scrape_configs[0].job_name).toBe("kubelet");
    expect(plain.collector_not_ready_grace_period).toBe("7s");
    expect(plain).not.toHaveProperty("https");
    const tls = YAML.parse(realTaConfig({ configText: OPERATOR, strategy: "per-node", fallback: null, graceSeconds: 30, https: { ca: "/ca", cert: "/c", key: "/k" } }, "127.0.0.1:9443"));
    expect(plain.config.scrape_configs[0].kubernetes_sd_configs).toEqual([{ role: "node" }]);
    const outside = YAML.parse(realTaConfig({ configText: OPERATOR, strategy: "per-node", fallback: null, graceSeconds: 30, kubeconfig: "/demo/kubeconfig" }));
    expect(outside.config.scrape_configs[0].kubernetes_sd_configs).toEqual([{ role: "node", kubeconfig_file: "/demo/kubeconfig" }]);
    expect(outside.config.scrape_configs[1]).toEqual({ job_name: "probe", static_configs: [{ targets: ["10.0.0.1:443"] }] });
    expect(tls.https).toEqual({ enabled: true, listen_addr: "127.0.0.1:9443", ca_file_path: "/ca", tls_cert_file_path: "/c", tls_key_file_path: "/k" });
  });
});

describe("RealTa.start", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it("a binary that exits before it is ready: the error says so and shows its log", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "real-ta-test-"));
    dirs.push(dir);
    const fake = path.join(dir, "otel-allocator");
    fs.writeFileSync(fake, "#!/bin/sh\necho 'cannot reach the Kubernetes API' >&2\nexit 3\n", { mode: 0o755 });
    const started = RealTa.start({ binary: fake, version: "v0.0.0", configText: OPERATOR, strategy: "per-node", fallback: null, graceSeconds: 30, kubeconfig: "/nonexistent", dir, host: "127.0.0.1" });
    await expect(started).rejects.toThrow(/exited \(3\) before it was ready[\s\S]*cannot reach the Kubernetes API/);
    expect(fs.readFileSync(path.join(dir, "targetallocator.yaml"), "utf8")).toContain("allocation_strategy: per-node");
  });
});

describe("waitForJobsListed", () => {
  /** A clock that moves only when the wait sleeps, and an allocator that lists `jobsAt(t)` at time t. */
  function fake(jobsAt: (t: number) => string[] | null | Error) {
    let t = 0;
    return {
      now: () => t,
      sleep: async (ms: number) => void (t += ms),
      list: async () => {
        const j = jobsAt(t);
        if (j instanceof Error) throw j;
        return j && new Set(j);
      },
    };
  }
  const JOBS = ["a", "b", "c", "d"];

  it("keeps waiting for as long as new jobs appear, past its idle timeout in total, and says when each count was reached", async () => {
    // one more job every 50 s: 150 s in all, with an idle timeout of 60 s
    const f = fake((t) => JOBS.slice(0, 1 + Math.floor(t / 50_000)));
    const reports: number[] = [];
    const listed = await waitForJobsListed(f.list, JOBS, { ...f, idleMs: 60_000, capMs: 600_000, intervalMs: 1_000, onProgress: (p) => reports.push(p.listed) });
    expect(listed).toEqual({ ms: 150_000, expected: 4, progress: [{ ms: 0, listed: 1 }, { ms: 50_000, listed: 2 }, { ms: 100_000, listed: 3 }, { ms: 150_000, listed: 4 }] });
    // at the first read, every 10 s from 10 to 140 s, and at the end
    expect(reports[0]).toBe(1);
    expect(reports.at(-1)).toBe(4);
    expect(reports.length).toBe(1 + 14 + 1);
  });

  it("gives up when no new job has appeared for its idle timeout, naming the missing jobs", async () => {
    const f = fake((t) => (t < 5_000 ? [] : ["a", "b"]));
    const waited = waitForJobsListed(f.list, JOBS, { ...f, idleMs: 30_000, capMs: 600_000 });
    await expect(waited).rejects.toThrow(JobsWaitError);
    await expect(waited).rejects.toThrow("listed 2 of 4 jobs (no new job was listed for 30 s; missing: c, d)");
    expect(f.now()).toBe(35_000);
  });

  it("gives up at its cap even while jobs still appear", async () => {
    const many = Array.from({ length: 100 }, (_, i) => `job-${i}`);
    const f = fake((t) => many.slice(0, Math.floor(t / 10_000)));
    await expect(waitForJobsListed(f.list, many, { ...f, idleMs: 60_000, capMs: 300_000 })).rejects.toThrow(/listed 30 of 100 jobs \(it was still listing them after 300 s; missing: job-30, job-31, job-32, job-33, job-34, \.\.\.\)/);
  });

  it("takes a failed read or a not-ready answer as nothing new, and says what the last read met", async () => {
    const f = fake((t) => (t < 10_000 ? new Error("connect ECONNREFUSED") : t < 20_000 ? null : ["a", "b", "c", "d"]));
    expect((await waitForJobsListed(f.list, JOBS, { ...f, idleMs: 60_000 })).ms).toBe(20_000);
    const down = fake(() => new Error("connect ECONNREFUSED"));
    await expect(waitForJobsListed(down.list, JOBS, { ...down, idleMs: 5_000 })).rejects.toThrow(/listed 0 of 4 jobs \(no new job was listed for 5 s; .*\); last read: connect ECONNREFUSED/);
  });

  it("waits longer in a larger world: half a second of idle per job (at least 2 minutes), a cap growing with the nodes", () => {
    expect(jobsWaitBounds(12, 20)).toEqual({ idleMs: 120_000, capMs: 600_000 });
    // 5,000 nodes: about 430 jobs, whose Secret reads alone leave the allocator without a new job for about 80 s
    expect(jobsWaitBounds(5_000, 426)).toEqual({ idleMs: 213_000, capMs: 1_500_000 });
  });
});
