/**
 * `npm run demo-cluster -- --flavor upstream --ta real`: the process that serves the printed URL is the built
 * otel-allocator binary, whose own pages answer; a fault that needs the simulated allocator is refused with the reason.
 * The comparison of the two allocators is in real-ta-*.test.ts (real-ta-differential.ts).
 */
import fs from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { realTaSuite } from "@allocation-lens/test-support/real-ta";
import { startDemo, type Demo } from "./harness";

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
    // the process listening on that port: found through /proc, its executable is the built binary
    const inode = fs
      .readFileSync("/proc/net/tcp", "utf8")
      .split("\n")
      .slice(1)
      .map((l) => l.trim().split(/\s+/))
      .find((f) => f[1]?.endsWith(`:${Number(url.port).toString(16).toUpperCase().padStart(4, "0")}`) && f[3] === "0A")?.[9];
    expect(inode, "a listening socket on the TA's port").toBeTruthy();
    const pid = fs.readdirSync("/proc").find((p) => {
      if (!/^\d+$/.test(p)) return false;
      try {
        return fs.readdirSync(`/proc/${p}/fd`).some((fd) => fs.readlinkSync(`/proc/${p}/fd/${fd}`) === `socket:[${inode}]`);
      } catch {
        return false;
      }
    });
    expect(pid).toBeTruthy();
    expect(fs.readlinkSync(`/proc/${pid}/exe`)).toMatch(/otel-allocator$/);
    const debug = await get(`${url.origin}/debug/targets`);
    expect(debug.status).toBe(200);
    expect(debug.body).toMatch(/<html/i);
    const jobs = JSON.parse((await get(`${url.origin}/jobs`)).body) as Record<string, unknown>;
    expect(Object.keys(jobs).length).toBeGreaterThan(5);
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
