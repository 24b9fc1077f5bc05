/**
 * history.prometheus: Debian's real Prometheus (v2.42) scrapes the dashboard's real /metrics every second,
 * with its TSDB in a temporary directory, twice (two "replicas" of one job, as two dashboard pods would be: the queries'
 * `max by` must not double count). Readiness flips are driven with the demo's control API (collector-not-ready, then heal);
 * the churn view asked with source=prometheus must agree with the local store's view of the same range (timeline readiness
 * per role, the flapping ranking), fall back to local data naming the error once Prometheus is stopped, and never return
 * or log a /scrape_configs value or the bearer token.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "@/lib/model";
import * as api from "@/lib/api/schemas";
import type { ChurnView } from "@/lib/views/churn";
import { DEMO_SECRET_MARKER } from "@allocation-lens/demo-cluster/internal/world/constants";
import { PROMETHEUS } from "@allocation-lens/demo-cluster/test/acceptance/harness";
import { freePort } from "@allocation-lens/test-support/ports";
import { startProcess, type Proc } from "@allocation-lens/test-support/processes";
import { inject, nodeWithTargets, startLens, waitFor, type Lens } from "@/test/acceptance/support";
import { captureOutput, type Captured } from "@allocation-lens/test-support/capture";

const HAVE_PROMETHEUS = existsSync(PROMETHEUS);
if (!HAVE_PROMETHEUS) console.warn(`skipping the Prometheus history backend test: ${PROMETHEUS} is not installed`);

const TOKEN = "lens-test-bearer-token-7f3a9c";

type Flip = { pod: string; transitions: number };
const flips = (v: ChurnView): Flip[] => v.flapping.map((f) => ({ pod: f.pod, transitions: f.transitions })).sort((a, b) => a.pod.localeCompare(b.pod));
const readinessByRole = (v: ChurnView) => {
  const out: Partial<Record<Role, number>> = {};
  for (const b of v.timeline) for (const [role, x] of Object.entries(b.byRole) as [Role, { readiness: number }][]) out[role] = (out[role] ?? 0) + x.readiness;
  return out;
};

describe.skipIf(!HAVE_PROMETHEUS)("churn from Debian's Prometheus scraping the dashboard", () => {
  let lens: Lens;
  let prom: Proc;
  let dir: string;
  let metricsServer: http.Server;
  let promPort: number;
  let output: Captured | undefined;

  const promQuery = async (q: string) => {
    const r = await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent(q)}`, { signal: AbortSignal.timeout(3000) });
    const body = (await r.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
    return body.data.result;
  };
  const churn = async (query: string) => {
    const r = await lens.get<ChurnView>(`/api/v1/churn?${query}`);
    expect(r.status, r.text).toBe(200);
    api.churnViewSchema.parse(r.body);
    return { view: r.body, text: r.text };
  };

  beforeAll(async () => {
    output = captureOutput({ streams: false });
    dir = await mkdtemp(path.join(os.tmpdir(), "lens-prom-history-"));
    const tokenFile = path.join(dir, "token");
    await writeFile(tokenFile, `${TOKEN}\n`);
    promPort = await freePort();
    lens = await startLens({
      nodes: 5,
      configure: (c) => ({
        ...c,
        history: { ...c.history, prometheus: { url: `http://127.0.0.1:${promPort}/`, bearerTokenFile: tokenFile, headers: { "X-Scope-OrgID": "tenant-1" }, matchers: ['job="allocation-lens"'] } },
      }),
    });
    // the dashboard's real /metrics (its route handler), on loopback
    metricsServer = http.createServer((req, res) => {
      lens.get<string>("/metrics").then(
        (r) => res.writeHead(r.status, { "Content-Type": r.headers.get("content-type") ?? "text/plain" }).end(r.text),
        (e) => res.writeHead(500).end(String(e)),
      );
    });
    await new Promise<void>((resolve) => metricsServer.listen(0, "127.0.0.1", resolve));
    const target = `127.0.0.1:${(metricsServer.address() as AddressInfo).port}`;
    const configFile = path.join(dir, "prometheus.yml");
    await writeFile(
      configFile,
      stringify({
        global: { scrape_interval: "1s", scrape_timeout: "900ms" },
        scrape_configs: [
          // two replicas of the dashboard, as a ServiceMonitor over two pods would give
          { job_name: "allocation-lens", honor_labels: true, static_configs: [{ targets: [target], labels: { replica: "a" } }, { targets: [target], labels: { replica: "b" } }] },
          // another dashboard's series in the same backend, excluded by the configured matcher
          { job_name: "other-lens", static_configs: [{ targets: [target] }] },
        ],
      }),
    );
    prom = startProcess(PROMETHEUS, [`--config.file=${configFile}`, `--storage.tsdb.path=${path.join(dir, "tsdb")}`, `--web.listen-address=127.0.0.1:${promPort}`]);
    await waitFor(
      "Prometheus to scrape both replicas of the dashboard",
      async () => {
        if (prom.child.exitCode !== null) throw new Error(`prometheus exited ${prom.child.exitCode}: ${prom.output().slice(-2000)}`);
        const r = await promQuery(`allocation_lens_readiness_transitions_total{job="allocation-lens"}`);
        return new Set(r.map((x) => x.metric.replica)).size === 2;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  }, 180_000);

  afterAll(async () => {
    await prom?.kill();
    await new Promise((r) => metricsServer?.close(r));
    await lens?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    output?.restore();
  });

  it("agrees with the local store on readiness per role and the flapping ranking, then falls back to local data when Prometheus stops", async () => {
    const from = Date.now() - 500;
    const truth = await lens.truth();
    const a = nodeWithTargets(truth, 0);
    const b = nodeWithTargets(truth, 1);
    const local = (q = "") => churn(`source=local&from=${from}&to=${Date.now()}&buckets=1${q}`);
    const flipsOf = async (pod: string) => (await local()).view.flapping.find((f) => f.pod === pod)?.transitions ?? 0;
    const flip = async (nodes: { node: string; pod: string }[], want: number[]) => {
      for (const n of nodes) await inject(lens, { fault: "collector-not-ready", node: n.node });
      await waitFor("the not-ready flips in the local store", async () => (await Promise.all(nodes.map((n, i) => flipsOf(n.pod).then((x) => x === want[i] - 1)))).every(Boolean), { timeoutMs: 20_000 });
      await lens.control.heal();
      await waitFor("the ready flips in the local store", async () => (await Promise.all(nodes.map((n, i) => flipsOf(n.pod).then((x) => x === want[i])))).every(Boolean), { timeoutMs: 20_000 });
    };
    await flip([a], [2]);
    await flip([a, b], [4, 2]);

    // Prometheus has scraped the final counts
    await waitFor(
      "Prometheus to hold the per-pod flip counts",
      async () => {
        const r = await promQuery(`max by (pod) (allocation_lens_collector_readiness_transitions_total{job="allocation-lens",pod=~"${a.pod}|${b.pod}"})`);
        const by = Object.fromEntries(r.map((x) => [x.metric.pod, Number(x.value[1])]));
        return by[a.pod] === 4 && by[b.pod] === 2;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    await new Promise((r) => setTimeout(r, 1500));
    const to = Date.now();
    const range = `from=${from}&to=${to}&buckets=6`;
    const [fromProm, fromLocal] = [await churn(`source=prometheus&${range}`), await churn(`source=local&${range}`)];
    const p = fromProm.view;
    const l = fromLocal.view;
    expect(p.source, JSON.stringify(p.source)).toMatchObject({ requested: "prometheus", answered: "prometheus", fallback: false, error: null, prometheus: { endpoint: `http://127.0.0.1:${promPort}` } });
    expect(l.source).toMatchObject({ requested: "local", answered: "local", fallback: false });
    expect(l.source.localFrom).not.toBeNull();
    expect(p.backend).toEqual(l.backend); // still the local store

    // readiness per role over the range: 6 local events (all flips), the same from Prometheus (max over the two replicas)
    expect(readinessByRole(l)).toEqual({ "per-node": 6 });
    expect(readinessByRole(p)).toEqual(readinessByRole(l));
    expect(p.timeline).toHaveLength(6);
    expect(p.timeline.map((x) => x.t)).toEqual(l.timeline.map((x) => x.t));
    // the flapping ranking: same pods, same counts, same order
    expect(flips(l)).toEqual([{ pod: a.pod, transitions: 4 }, { pod: b.pod, transitions: 2 }].sort((x, y) => x.pod.localeCompare(y.pod)));
    expect(p.flapping.map((f) => [f.pod, f.transitions, f.role, f.node])).toEqual(l.flapping.map((f) => [f.pod, f.transitions, f.role, f.node]));
    // lastAt: the end of the bucket of the pod's last flip (at or after the event, within one bucket and a scrape)
    const width = (to - from) / 6;
    for (const f of p.flapping) {
      const lf = l.flapping.find((x) => x.pod === f.pod)!;
      expect(f.lastAt).toBeGreaterThanOrEqual(lf.lastAt);
      expect(f.lastAt - lf.lastAt).toBeLessThanOrEqual(width + 2000);
    }
    // series: the locality ratio per role is there for the recent buckets
    expect(p.series.some((s) => typeof s.localityRatio["per-node"] === "number")).toBe(true);
    // events and hot spots come from the local store in both
    expect(p.events).toEqual(l.events);
    expect(p.reassignments).toEqual(l.reassignments);

    // auto: a range starting before local history reads Prometheus; a recent one reads the local store
    const older = await churn(`from=${(l.source.localFrom ?? Date.now()) - 3_600_000}&to=${to}&buckets=12`);
    expect(older.view.source).toMatchObject({ requested: "auto", answered: "prometheus" });
    expect(readinessByRole(older.view)).toEqual({ "per-node": 6 });
    const recent = await churn(`last=5000`);
    expect(recent.view.source).toMatchObject({ requested: "auto", answered: "local" });
    // a range the backend holds nothing of: not zeros presented as "no churn", but local data and the reason
    const before = (l.source.localFrom ?? Date.now()) - 3_600_000;
    const empty = await churn(`source=prometheus&from=${before - 3_600_000}&to=${before}`);
    expect(empty.view.source).toMatchObject({ answered: "local", fallback: true, error: { kind: "not_found", message: expect.stringContaining('job="allocation-lens"') } });

    // what Prometheus stored of the dashboard: no scrape_configs value, no token
    const stored = JSON.stringify(await promQuery(`{__name__=~"allocation_lens_.*"}`));
    expect(stored).toContain("allocation_lens_collector_readiness_transitions_total");
    for (const secret of [TOKEN, DEMO_SECRET_MARKER]) expect(stored.includes(secret), `${secret} in Prometheus`).toBe(false);

    // Prometheus stopped: the local store answers, marked, with the error named (once in the log)
    await prom.kill();
    // answers are cached per poll: the first poll that ends after the kill is the first to ask Prometheus again
    await lens.nextSnapshot();
    const down = await churn(`source=prometheus&${range}`);
    expect(down.view.source).toMatchObject({ answered: "local", fallback: true, error: { kind: "network", message: expect.stringContaining(`prometheus http://127.0.0.1:${promPort}`) } });
    expect(down.view.source.error!.hint).toMatch(/history\.prometheus\.url/);
    expect(readinessByRole(down.view)).toEqual(readinessByRole(l));
    expect(flips(down.view)).toEqual(flips(l));
    const autoDown = await churn(`from=${(l.source.localFrom ?? Date.now()) - 3_600_000}&to=${to}`);
    expect(autoDown.view.source).toMatchObject({ requested: "auto", answered: "local", fallback: true });
    const logged = output!.lines.filter((line) => line.includes("showing local history") && line.includes(`127.0.0.1:${promPort}`));
    // once, not once per request (refused; or reset, should Prometheus drop a socket while shutting down)
    expect(logged.filter((line) => /ECONNREFUSED|ECONNRESET/.test(line)), logged.join("\n")).toHaveLength(1);
    expect(logged.filter((line) => line.includes("no allocation_lens_ series"))).toHaveLength(1);

    // nothing secret in what was returned, logged, or stored in Prometheus
    const returned = [fromProm.text, fromLocal.text, older.text, recent.text, empty.text, down.text, autoDown.text].join("\n");
    for (const secret of [TOKEN, DEMO_SECRET_MARKER]) {
      expect(returned.includes(secret), `${secret} in a response`).toBe(false);
      expect(output!.lines.some((line) => line.includes(secret)), `${secret} in the log`).toBe(false);
    }
  });
});
