/**
 * Support for the dashboard's suites on the CloudWatch fork's real Target Allocators (`flavor: "cloudwatch", ta: "real"`):
 * each allocator's raw answers read here over its mTLS listener with the demo's client certificate, so that every
 * compared figure is computed from what the allocator itself says, independently of the demo's /truth.
 */
import fs from "node:fs";
import https from "node:https";
import type { Role } from "@allocation-lens/allocation/model";
import { parseMetrics, type Lens } from "@/test/acceptance/support";

export interface ForkRaw {
  /** every collector the allocator lists (each job answer lists every registered collector) -> its `job|address` targets */
  byCollector: Map<string, string[]>;
  /** the jobs it lists (jobs of assigned and unassigned targets alike) */
  jobs: string[];
  /** Σ amazon_cloudwatch_agent_allocator_targets over the listed jobs: every target it discovered and keeps (no filter) */
  discovered: number;
  /** its own cloudwatch_agent_allocator_targets_unassigned gauge */
  unassignedGauge: number;
}

/** GET over the allocator's mTLS listener, with the client certificate the demo gave the dashboard. */
export function forkGet(lens: Lens, role: Role, pathAndQuery: string, tls?: { minVersion?: "TLSv1.2" | "TLSv1.3"; maxVersion?: "TLSv1.2" | "TLSv1.3"; withCert?: boolean }): Promise<{ status: number; body: string }> {
  const ta = lens.demo.info.targetAllocators[role]!;
  const withCert = tls?.withCert ?? true;
  return new Promise((resolve, reject) => {
    const req = https.get(
      `${ta.url}${pathAndQuery}`,
      {
        ca: fs.readFileSync(ta.ca!),
        ...(withCert ? { cert: fs.readFileSync(ta.cert!), key: fs.readFileSync(ta.key!) } : {}),
        ...(tls?.minVersion ? { minVersion: tls.minVersion } : {}),
        ...(tls?.maxVersion ? { maxVersion: tls.maxVersion } : {}),
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${pathAndQuery}: no answer in 10 s`)));
    req.on("error", reject);
  });
}

/** The fork's raw answers for `role`: /jobs, every job's /targets, and its gauges from /metrics. */
export async function rawFork(lens: Lens, role: Role = "per-node"): Promise<ForkRaw> {
  const jobs = Object.keys(JSON.parse((await forkGet(lens, role, "/jobs")).body) as Record<string, unknown>).sort();
  const byCollector = new Map<string, string[]>();
  for (const job of jobs) {
    const answer = JSON.parse((await forkGet(lens, role, `/jobs/${encodeURIComponent(job)}/targets`)).body) as Record<string, { targets: { targets: string[] }[] }>;
    for (const [c, e] of Object.entries(answer)) {
      const list = byCollector.get(c) ?? [];
      for (const g of e.targets) for (const a of g.targets) list.push(`${job}|${a}`);
      byCollector.set(c, list);
    }
  }
  const m = parseMetrics((await forkGet(lens, role, "/metrics")).body);
  const listed = new Set(jobs);
  const discovered = m
    .all("amazon_cloudwatch_agent_allocator_targets")
    .filter((s) => listed.has(s.labels.job_name))
    .reduce((n, s) => n + s.value, 0);
  const unassignedGauge = m.all("cloudwatch_agent_allocator_targets_unassigned").reduce((n, s) => n + s.value, 0);
  return { byCollector, jobs, discovered, unassignedGauge };
}

export const assignedCount = (raw: ForkRaw): number => [...raw.byCollector.values()].reduce((n, l) => n + l.length, 0);
