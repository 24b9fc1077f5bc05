/**
 * Secrets: no response, log line or history row contains a `/scrape_configs` value. The demo's TAs put a
 * fake credential carrying DEMO_SECRET_MARKER in every scrape config (served in clear over mTLS); the test captures every
 * console and stdout/stderr write of the process during polls and API calls, every API response, /metrics, and the bytes
 * of the history SQLite files. Also: the hostile-target fault (markup, quotes, `../`, `%2F` in a job name and labels)
 * breaks nothing and its values come back as plain data.
 */
import fs from "node:fs";
import YAML from "yaml";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "@/lib/model";
import * as api from "@/lib/api/schemas";
import { DEMO_SECRET_MARKER } from "@allocation-lens/demo-cluster/internal/world/constants";
import { HOSTILE_JOB } from "@allocation-lens/demo-cluster/internal/hostile";
import { taGet } from "@allocation-lens/demo-cluster/test/acceptance/harness";
import { allTargets, inject, startLens, truthShows, withinTwoPolls, type Lens } from "@/test/acceptance/support";
import { captureOutput, type Captured } from "@allocation-lens/test-support/capture";

const ROUTES = ["/api/v1/clusters", "/api/v1/summary", "/api/v1/nodes", "/api/v1/collectors", "/api/v1/monitors", "/api/v1/targets?limit=1000", "/api/v1/diagnostics", "/api/v1/churn", "/metrics", "/api/healthz", "/api/readyz"];

describe("no /scrape_configs value leaves the dashboard", () => {
  let lens: Lens;
  let output: Captured | undefined;
  beforeAll(async () => {
    output = captureOutput({ streams: true });
    lens = await startLens({ flavor: "cloudwatch" });
  });
  afterAll(async () => {
    await lens?.stop();
    output?.restore();
  });

  it("the demo's TAs do serve the marker in /scrape_configs (so the test below means something)", async () => {
    for (const role of ["per-node", "cluster-scraper"] as Role[]) {
      const r = await taGet(lens.demo.info.targetAllocators[role]!, "/scrape_configs");
      expect(r.status).toBe(200);
      expect(r.body).toContain(DEMO_SECRET_MARKER);
    }
  });

  it("hostile-target: the job and labels with markup are listed as plain data and break no route", async () => {
    const roles: Role[] = ["per-node", "cluster-scraper"];
    for (const role of roles) await inject(lens, { fault: "hostile-target", role });
    const { at } = await truthShows(lens, "the hostile jobs", (t) => roles.every((r) => t.targets.some((x) => x.role === r && x.job === `${HOSTILE_JOB}-${r}`)));
    await withinTwoPolls(lens, "the hostile targets in the API", at, async () => {
      const rows = await allTargets(lens, `q=${encodeURIComponent("10.66.6.6")}`);
      return rows.length === 2 && rows;
    });
    const rows = await allTargets(lens, `q=${encodeURIComponent("10.66.6.6")}`);
    expect(rows.map((r) => r.job).sort()).toEqual(roles.map((r) => `${HOSTILE_JOB}-${r}`).sort());
    // filtering on the exact hostile job name round-trips through the query string
    const byJob = api.targetsPageSchema.parse((await lens.get(`/api/v1/targets?job=${encodeURIComponent(`${HOSTILE_JOB}-per-node`)}`)).body);
    expect(byJob.matched).toBe(1);
    expect(byJob.rows[0]).toMatchObject({ address: "10.66.6.6:9100", class: "nodeless" });
    for (const path of ROUTES) {
      const r = await lens.get(path);
      expect(r.status, path).toBe(200);
    }
    const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
    expect(s.sources.every((x) => x.state === "ok")).toBe(true);
    expect(api.ownershipViewSchema.parse((await lens.get("/api/v1/monitors")).body).counts?.ok).toBeGreaterThan(0);
    const m = await lens.metrics();
    expect(m.value("allocation_lens_targets", { cluster: lens.cluster, role: "per-node", class: "nodeless" })).toBeGreaterThan(0);
  });

  it("no response, /metrics, log line or history row contains the marker", async () => {
    // a few more polls, then every route once more (also the node detail and filtered views)
    await lens.nextSnapshot();
    await lens.nextSnapshot();
    const bodies: string[] = [];
    const nodes = api.nodesViewSchema.parse((await lens.get("/api/v1/nodes")).body).zones.flatMap((z) => z.nodes.map((n) => n.name));
    for (const path of [...ROUTES, ...nodes.map((n) => `/api/v1/nodes/${encodeURIComponent(n)}`), `/api/v1/targets?q=${DEMO_SECRET_MARKER}`, "/api/v1/targets?class=bogus"]) {
      const r = await lens.get(path);
      bodies.push(r.text);
    }
    expect(bodies.length).toBeGreaterThan(ROUTES.length);
    for (const [i, b] of bodies.entries()) expect(b.includes(DEMO_SECRET_MARKER), `response ${i}`).toBe(false);
    // the snapshot kept in memory holds only the job names of /scrape_configs
    expect(JSON.stringify(lens.latest(), (_k, v) => (v instanceof Map ? [...v] : v)).includes(DEMO_SECRET_MARKER)).toBe(false);
    const logs = output!.lines.join("\n");
    expect(logs.includes(DEMO_SECRET_MARKER)).toBe(false);
    // history: the SQLite file and its WAL/journal side files
    const history = YAML.parse(fs.readFileSync(lens.demo.info.dashboardConfig, "utf8")).history.path as string;
    const files = [history, `${history}-wal`, `${history}-shm`, `${history}-journal`].filter((f) => fs.existsSync(f));
    expect(files).toContain(history);
    // the poll worker keeps the history: read its file as a second reader would
    const db = new Database(history, { readonly: true, fileMustExist: true });
    try {
      expect((db.prepare("SELECT count(*) AS n FROM poll_summaries").get() as { n: number }).n).toBeGreaterThan(2);
    } finally {
      db.close();
    }
    for (const f of files) expect(fs.readFileSync(f).includes(DEMO_SECRET_MARKER), f).toBe(false);
  });
});
