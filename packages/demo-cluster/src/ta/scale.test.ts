/** Serving stays cheap at the scale the dashboard targets: 150,000 targets, 5,000 collectors, 400 jobs. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@allocation-lens/allocation/model";
import { goQueryEscape } from "./encode";
import { startTaServer, type TaServer } from "./server";
import { buildTaState, type TaJobState, type TaState } from "./state";
import { request } from "../../test/fixtures/ta-client";

const JOBS = 400;
const COLLECTORS = 5000;
const TARGETS = 150_000;

describe("TA server at scale", () => {
  let state: TaState;
  let ta: TaServer;
  let buildMs = 0;
  beforeAll(async () => {
    const collectors = Array.from({ length: COLLECTORS }, (_, i) => `agent-${i.toString(36).padStart(4, "0")}`);
    const jobs = new Map<string, TaJobState>();
    const perJob = TARGETS / JOBS;
    for (let j = 0; j < JOBS; j++) {
      const name = `serviceMonitor/ns-${j % 40}/svc-${j}/0`;
      const targets: Target[] = [];
      const assignment = new Map<string, string | null>();
      for (let t = 0; t < perJob; t++) {
        const n = j * perJob + t;
        const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}:9100`;
        const node = `node-${n % COLLECTORS}`;
        const key = `${name}|${address}`;
        targets.push({ key, job: name, address, labels: { __address__: address, __meta_kubernetes_pod_node_name: node, __meta_kubernetes_namespace: `ns-${j % 40}` } });
        assignment.set(key, n % 97 === 0 ? null : collectors[n % COLLECTORS]);
      }
      jobs.set(name, { targets, assignment });
    }
    const t0 = performance.now();
    state = buildTaState({ role: "per-node", flavor: "upstream", strategy: "per-node", collectors, jobs, scrapeConfigs: {}, allocation: { seconds: 0.5 } });
    buildMs = performance.now() - t0;
    ta = await startTaServer({ flavor: "upstream", getState: () => state, getFaults: () => ({}) });
  }, 120_000);
  afterAll(() => ta?.close());

  it("builds, indexes and serves at scale (timings are printed; npm run bench measures them)", async () => {
    const job = goQueryEscape("serviceMonitor/ns-7/svc-7/0");
    const timed = async (path: string) => {
      const t0 = performance.now();
      const r = await request(ta.url, path);
      expect(r.status).toBe(200);
      return { ms: performance.now() - t0, bytes: r.body.length };
    };
    // job 7 holds targets n = 2625..2999, on collectors with the same indexes
    const owner = (i: number) => `agent-${i.toString(36).padStart(4, "0")}`;
    const first = await timed(`/jobs/${job}/targets?collector_id=${owner(2630)}`);
    const again = await timed(`/jobs/${job}/targets?collector_id=${owner(2631)}`);
    expect(first.bytes).toBeGreaterThan(100);
    const full = await timed(`/jobs/${job}/targets`);
    const jobs = await timed("/jobs");
    const metrics = await timed("/metrics");
    expect(full.bytes).toBeGreaterThan(first.bytes);
    expect(jobs.bytes).toBeGreaterThan(1000);
    expect(metrics.bytes).toBeGreaterThan(1000);
    console.log(`TA at scale: build ${buildMs.toFixed(0)} ms; collector_id ${first.ms.toFixed(1)}/${again.ms.toFixed(1)} ms; job map ${full.ms.toFixed(0)} ms (${full.bytes} B); /metrics ${metrics.ms.toFixed(0)} ms`);
    for (let j = 0; j < JOBS; j += 10) {
      const r = await request(ta.url, `/jobs/${goQueryEscape(`serviceMonitor/ns-${j % 40}/svc-${j}/0`)}/targets?collector_id=agent-0003`);
      expect(r.status).toBe(200);
    }
  }, 120_000);
});
