/**
 * The fleet view end to end: three clusters, each a demo cluster with its own dashboard runtime in a process of its own
 * (test/integration/fleet-dashboard.ts: the production pollers and the real /metrics and /api/v1/summary route handlers), and
 * Debian's real Prometheus scraping the three dashboards' /metrics every SCRAPE_S seconds. The fleet answer (the service
 * behind GET /api/v1/fleet, with the bounded Prometheus client) must list the three clusters with the figures each
 * dashboard's own summary shows, show a fault injected in one cluster within two scrape intervals of its dashboard showing
 * it, show a cluster whose dashboard stopped as stopped, and keep its last answer, marked with the error, once Prometheus
 * is stopped. Series of another job (a cluster "intruder") are excluded by the configured matcher.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROLES } from "@/lib/model";
import { parseConfig, type FleetConfig } from "@/lib/config/schema";
import { fleetViewSchema, summaryViewSchema, type FleetView, type SummaryView } from "@/lib/api/schemas";
import { sourceLabel } from "@/lib/metrics/derived";
import { controlClient } from "@allocation-lens/demo-cluster";
import { PROMETHEUS } from "@allocation-lens/demo-cluster/test/acceptance/harness";
import { freePort } from "@allocation-lens/test-support/ports";
import { startProcess, type Proc } from "@allocation-lens/test-support/processes";
import { waitFor, waitForHttp } from "@allocation-lens/test-support/wait";
import { nodeWithTargets, parseMetrics } from "@/test/acceptance/support";
import { fleetFor } from "@/server/fleet/service";

const HAVE_PROMETHEUS = existsSync(PROMETHEUS);
if (!HAVE_PROMETHEUS) console.warn(`skipping the fleet integration test: ${PROMETHEUS} is not installed`);

const TOKEN = "fleet-test-bearer-token-41c9e2";
const SCRAPE_S = 2;
const REFRESH_S = 1;
const STALE_AFTER_S = 3 * SCRAPE_S;
const CLUSTERS = [
  { name: "alpha", tracking: "ready-only" },
  { name: "bravo", tracking: "legacy" },
  { name: "charlie", tracking: "ready-only" },
] as const;
type Name = (typeof CLUSTERS)[number]["name"];

interface Dashboard {
  name: Name;
  proc: Proc;
  port: number;
  control: string;
  controlToken: string;
}

describe.skipIf(!HAVE_PROMETHEUS)("the fleet view from Debian's Prometheus scraping three dashboards", () => {
  let dir: string;
  let prom: Proc;
  let fleet: { fleet: FleetConfig };
  const dashboards = new Map<Name, Dashboard>();

  const get = async (d: Dashboard, p: string) => {
    const r = await fetch(`http://127.0.0.1:${d.port}${p}`, { signal: AbortSignal.timeout(5000) });
    return r.text();
  };
  const summary = async (d: Dashboard): Promise<SummaryView> => summaryViewSchema.parse(JSON.parse(await get(d, "/api/v1/summary")));
  const metrics = async (d: Dashboard) => parseMetrics(await get(d, "/metrics"));
  const answered: string[] = [];
  const answer = async (): Promise<FleetView> => {
    const a = await fleetFor(fleet);
    answered.push(JSON.stringify(a));
    return fleetViewSchema.parse(a);
  };
  const row = (a: FleetView, name: string) => a.clusters.find((c) => c.cluster === name);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "lens-fleet-"));
    // the three dashboards start together (each its demo cluster and its first poll)
    await Promise.all(
      CLUSTERS.map(async ({ name, tracking }) => {
        const proc = startProcess(process.execPath, ["--conditions=react-server", "--import", "tsx", "test/integration/fleet-dashboard.ts", name, tracking], { cwd: process.cwd() });
        const line = await waitFor(
          `the ${name} dashboard to start`,
          () => {
            if (proc.child.exitCode !== null) throw new Error(`exited ${proc.child.exitCode}: ${proc.output().slice(-2000)}`);
            return proc.output().split("\n").find((l) => l.startsWith('{"port"'));
          },
          { timeoutMs: 120_000, intervalMs: 100, last: () => proc.output().slice(-500) },
        );
        dashboards.set(name, { name, proc, ...(JSON.parse(line) as Omit<Dashboard, "name" | "proc">) });
      }),
    );
    const tokenFile = path.join(dir, "token");
    await writeFile(tokenFile, `${TOKEN}\n`);
    const promPort = await freePort();
    const targets = CLUSTERS.map((c) => `127.0.0.1:${dashboards.get(c.name)!.port}`);
    const configFile = path.join(dir, "prometheus.yml");
    await writeFile(
      configFile,
      stringify({
        global: { scrape_interval: `${SCRAPE_S}s`, scrape_timeout: `${SCRAPE_S * 1000 - 500}ms` },
        scrape_configs: [
          { job_name: "allocation-lens", honor_labels: true, static_configs: [{ targets }] },
          // another job's copy of bravo's series, under another cluster name: the configured matcher leaves it out
          { job_name: "other", static_configs: [{ targets: [targets[1]] }], metric_relabel_configs: [{ target_label: "cluster", replacement: "intruder" }] },
        ],
      }),
    );
    prom = startProcess(PROMETHEUS, [`--config.file=${configFile}`, `--storage.tsdb.path=${path.join(dir, "tsdb")}`, `--web.listen-address=127.0.0.1:${promPort}`]);
    await waitForHttp(`http://127.0.0.1:${promPort}/-/ready`, { timeoutMs: 30_000, intervalMs: 200, child: prom.child, what: `prometheus (${prom.output().slice(-300)})` });
    const parsed = parseConfig({
      clusters: [{ name: "here", targetAllocators: { "per-node": { url: "http://127.0.0.1:1", flavor: "upstream", collectors: { namespace: "n", selector: {} } } } }],
      fleet: {
        prometheus: { url: `http://127.0.0.1:${promPort}`, matchers: ['job="allocation-lens"'], timeoutSeconds: 3, bearerTokenFile: tokenFile, headers: { "X-Scope-OrgID": "fleet" } },
        dashboardUrl: "https://lens.{cluster}.example.com/",
        staleAfterSeconds: STALE_AFTER_S,
        refreshSeconds: REFRESH_S,
      },
    });
    if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
    fleet = { fleet: parsed.config.fleet! };
  }, 240_000);

  afterAll(async () => {
    await prom?.kill();
    await Promise.all([...dashboards.values()].map((d) => d.proc.kill()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** where the fleet row of `d` differs from what its dashboard shows (its summary, its /metrics) */
  const differences = async (a: FleetView, d: Dashboard): Promise<string[]> => {
    const r = row(a, d.name);
    if (!r) return [`${d.name}: no row`];
    const s = await summary(d);
    const m = await metrics(d);
    const out: string[] = [];
    const same = (what: string, got: unknown, want: unknown) => {
      if (JSON.stringify(got) !== JSON.stringify(want)) out.push(`${d.name} ${what}: fleet ${JSON.stringify(got)}, dashboard ${JSON.stringify(want)}`);
    };
    for (const role of ROLES) {
      const want = s.roles[role];
      const got = r.roles[role];
      same(`${role} present`, Boolean(got), Boolean(want));
      if (!want || !got) continue;
      same(`${role} ghosts`, got.ghosts, want.classes.ghost);
      same(`${role} locality`, got.localityRatio, want.localityRatio);
      same(`${role} unassigned`, got.unassigned, want.unassigned);
    }
    same("monitors", r.monitors, s.monitors && { double: s.monitors.double, orphaned: s.monitors.orphaned, misrouted: s.monitors.misrouted });
    same("sources", r.sources, s.sources.map((x) => ({ source: sourceLabel(x.source, d.name), up: x.state === "ok" })).sort((x, y) => (x.source < y.source ? -1 : 1)));
    same("nodes without collector", r.nodesWithoutCollector, m.value("allocation_lens_nodes_without_collector", { cluster: d.name }));
    return out;
  };

  it("lists all three clusters with the figures each dashboard shows, and links each to its dashboard", async () => {
    let diffs: string[] = [];
    const a = await waitFor(
      "the fleet answer to agree with the three dashboards",
      async () => {
        const x = await answer();
        diffs = (await Promise.all(CLUSTERS.map((c) => differences(x, dashboards.get(c.name)!)))).flat();
        return diffs.length === 0 && x.clusters.length === 3 && x.clusters.every((c) => c.status !== "stopped") && x;
      },
      { timeoutMs: 60_000, intervalMs: 500, last: () => diffs },
    );
    expect(a.clusters.map((c) => c.cluster).sort()).toEqual(["alpha", "bravo", "charlie"]);
    expect(a.stale).toEqual([]);
    for (const c of a.clusters) {
      expect(c.dashboardUrl).toBe(`https://lens.${c.cluster}.example.com/`);
      // the trend's last point: this calm demo's per-node locality
      expect(c.trend.localityRatio.length).toBe(c.trend.ghosts.length);
      expect(c.trend.localityRatio.filter((x) => x !== null).at(-1)).toBe(1);
      expect(c.lastPollAt).not.toBeNull();
      expect(Date.now() - c.lastPollAt!).toBeLessThan((STALE_AFTER_S + 2) * 1000);
      // the calm demo: per-node locality 1, every source up
      expect(c.roles["per-node"]?.localityRatio).toBe(1);
    }
    console.info(`fleet rows: ${JSON.stringify(a.clusters.map((c) => ({ cluster: c.cluster, status: c.status, roles: c.roles, monitors: c.monitors, nodesWithoutCollector: c.nodesWithoutCollector })))}`);
  });

  it("shows a fault injected in one cluster within two scrape intervals of its dashboard showing it", async () => {
    const bravo = dashboards.get("bravo")!;
    const control = controlClient({ control: bravo.control, controlToken: bravo.controlToken }, { timeoutMs: 5000 });
    const { node } = nodeWithTargets(await control.truth(), 0);
    // legacy tracking: the TA keeps the not-Ready collector, its targets become ghosts
    await control.fault({ fault: "collector-not-ready", node });
    const ghostsIn = (m: Awaited<ReturnType<typeof metrics>>) => m.value("allocation_lens_targets", { cluster: "bravo", role: "per-node", class: "ghost" }) ?? 0;
    const [onDashboard, inFleet] = await Promise.all([
      waitFor("bravo's /metrics to show ghosts", async () => ghostsIn(await metrics(bravo)) > 0 && Date.now(), { timeoutMs: 30_000, intervalMs: 100 }),
      waitFor("the fleet answer to show bravo's ghosts", async () => ((row(await answer(), "bravo")?.roles["per-node"]?.ghosts ?? 0) > 0 ? Date.now() : false), { timeoutMs: 30_000, intervalMs: 100 }),
    ]);
    const lag = inFleet - onDashboard;
    console.info(`fault: on bravo's /metrics at +0 ms, in the fleet answer at +${lag} ms (scrape interval ${SCRAPE_S} s, fleet refresh ${REFRESH_S} s)`);
    expect(lag).toBeLessThanOrEqual(2 * SCRAPE_S * 1000);
    const a = await answer();
    expect(a.clusters[0]).toMatchObject({ cluster: "bravo", status: "bad", problems: [expect.stringMatching(/^\d+ ghost targets?$/)] });
    expect(a.clusters.slice(1).map((c) => c.status)).toEqual(["ok", "ok"]);
    // and the figure is the dashboard's
    await waitFor("bravo's ghosts to agree with its summary", async () => (await differences(await answer(), bravo)).length === 0, { timeoutMs: 20_000, intervalMs: 250 });
    expect(row(a, "intruder")).toBeUndefined();
    await control.heal();
    await waitFor("bravo to heal in the fleet", async () => row(await answer(), "bravo")?.status === "ok", { timeoutMs: 30_000, intervalMs: 250 });
  });

  it("shows a cluster whose dashboard stopped as stopped, worst first, with its last figures", async () => {
    const before = row(await answer(), "charlie")!;
    await dashboards.get("charlie")!.proc.kill();
    const stoppedAt = Date.now();
    const a = await waitFor("charlie to show as stopped", async () => {
      const x = await answer();
      return row(x, "charlie")?.status === "stopped" && x;
    }, { timeoutMs: (STALE_AFTER_S + 3 * SCRAPE_S + 10) * 1000, intervalMs: 250 });
    console.info(`charlie stopped: shown as stopped after ${Date.now() - stoppedAt} ms`);
    expect(a.clusters[0].cluster).toBe("charlie");
    expect(a.clusters[0].problems[0]).toMatch(/^series stopped/);
    expect(a.clusters[0].roles).toEqual(before.roles);
    expect(a.clusters[0].seenAt).toBeNull();
    expect(a.clusters[0].lastPollAt).toBeGreaterThanOrEqual(before.lastPollAt!);
    expect(a.clusters.length).toBe(3);
  });

  it("keeps the last answer, marked with the error, once Prometheus is stopped", async () => {
    const last = await answer();
    await prom.kill();
    const down = await waitFor("the fleet answer to carry the backend's error", async () => {
      const x = await answer();
      return x.stale.length > 0 && x;
    }, { timeoutMs: 20_000, intervalMs: 250 });
    expect(down.clusters).toEqual(last.clusters);
    expect(down.at).toBe(last.at);
    expect(down.stale).toEqual([
      expect.objectContaining({ source: expect.stringContaining("fleet prometheus http://127.0.0.1:"), state: "stale", lastSuccess: last.at, error: expect.objectContaining({ kind: "network", hint: expect.stringMatching(/fleet\.prometheus\.url/) }) }),
    ]);
    // the bearer token went in the Authorization header only: never into an answer
    expect(answered.length).toBeGreaterThan(10);
    expect(answered.some((a) => a.includes(TOKEN))).toBe(false);
  });
});
