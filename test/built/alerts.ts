/**
 * Support for the alerting rules' acceptance tests: the dashboard of `startLens` (in-process) served on a loopback port
 * for a real Prometheus (Debian's, v2.42: static targets), which scrapes it every second and evaluates the rules of
 * lib/alerts/rules.ts with short `for:` durations generated for the test; what Prometheus says of them through
 * /api/v1/alerts and /api/v1/rules; the Alerts view (GET /api/v1/alerts) beside it. Loopback only; every wait is bounded
 * and waits for a state (an evaluation after a moment, an alert set), never for a fixed time.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { ALERT_RULES, durationMs, ruleGroups, type AlertParams, type AlertRule, DEFAULT_ALERT_PARAMS } from "@/lib/alerts/rules";
import { alertsViewSchema, type AlertsView } from "@/lib/api/schemas";
import { requirePeers } from "../../scripts/peers.mjs";
import { startProcess, type Proc } from "@allocation-lens/test-support/processes";
import { waitFor, waitForHttp } from "@allocation-lens/test-support/wait";
import { startLens, type Lens, type StartOptions } from "@/test/acceptance/support";

export const PROMETHEUS = process.env.PROMETHEUS ?? "/usr/bin/prometheus";
export const HAS_PROMETHEUS = fs.existsSync(PROMETHEUS);
if (!HAS_PROMETHEUS && requirePeers()) throw new Error(`${PROMETHEUS} is missing (Debian's prometheus package): the alerting rules cannot be tested`);
if (!HAS_PROMETHEUS) console.warn(`skipping the alerting rules' acceptance tests: ${PROMETHEUS} is missing (apt-get install prometheus)`);

/** The parameters of the test: a poll a second, flips counted over a minute. */
export const TEST_PARAMS: AlertParams = {
  ...DEFAULT_ALERT_PARAMS,
  // one node of six off its node: ~0.83
  localityMin: 0.99,
  // a single flip over a one-minute window reads 60 to 120 an hour; the flapping the test drives, many more
  flappingWindow: "1m",
  flappingPerHour: 300,
  unassignedFor: "3s",
  pollLateIntervals: 5,
};

/** Every non-zero `for` of the rules, in the test. */
export const TEST_FOR = "3s";

/** The rules with the test's `for` (what fires at once still does). */
export function testRules(): AlertRule[] {
  return ALERT_RULES.map((r) => (durationMs(r.for(TEST_PARAMS)) === 0 ? r : { ...r, for: () => TEST_FOR }));
}

/** The dashboard configuration's `alerts`, the same as the test rules': the Alerts view judges as Prometheus does. */
export const TEST_ALERTS_CONFIG = { ...TEST_PARAMS, runbookBaseUrl: "https://runbooks.test/docs/runbooks" };

/** Serves `GET /metrics` of the in-process dashboard on a loopback port. */
export async function serveMetrics(lens: Lens): Promise<{ target: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    lens.get<string>("/metrics").then(
      (r) => res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "text/plain" }).end(r.text),
      (e: Error) => res.writeHead(500).end(e.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { target: `127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: "firing" | "pending";
  activeAt: string;
  value: string;
}

export interface Prom {
  url: string;
  alerts(): Promise<PromAlert[]>;
  /** resolves once the rule group has been evaluated at least twice after `since` (ms) */
  evaluatedAfter(since: number): Promise<void>;
  stop(): Promise<void>;
}

const NOISE = new Set(["job", "instance"]);
/** An alert as `AlertName{label="value",...}` without the scrape's own labels, for comparing sets. */
export const alertKey = (labels: Record<string, string>) =>
  `${labels.alertname}{${Object.entries(labels)
    .filter(([k]) => k !== "alertname" && !NOISE.has(k))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}="${v}"`)
    .join(",")}}`;

/** Prometheus on loopback, scraping `target` every second and evaluating the test rules with these URLs. */
export async function startPrometheus(target: string, dashboardBaseUrl: string): Promise<Prom> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-alerts-prom-"));
  const groups = ruleGroups(TEST_PARAMS, { runbookBaseUrl: TEST_ALERTS_CONFIG.runbookBaseUrl, dashboardBaseUrl }, testRules());
  fs.writeFileSync(path.join(dir, "rules.yaml"), YAML.stringify({ groups: groups.map((g) => ({ ...g, interval: "1s" })) }));
  const config = {
    global: { scrape_interval: "1s", scrape_timeout: "900ms", evaluation_interval: "1s" },
    rule_files: [path.join(dir, "rules.yaml")],
    scrape_configs: [{ job_name: "allocation-lens", honor_labels: true, static_configs: [{ targets: [target] }] }],
  };
  fs.writeFileSync(path.join(dir, "prometheus.yml"), YAML.stringify(config));
  const { freePort } = await import("@allocation-lens/test-support/ports");
  const port = await freePort();
  const proc: Proc = startProcess(PROMETHEUS, [`--config.file=${path.join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${path.join(dir, "tsdb")}`, `--web.listen-address=127.0.0.1:${port}`]);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/-/ready`, { timeoutMs: 30_000, child: proc.child, what: "prometheus" });
  const get = async <T>(p: string): Promise<T> => {
    const r = await fetch(`${url}${p}`, { signal: AbortSignal.timeout(5000) });
    const body = (await r.json()) as { status: string; data: T };
    if (body.status !== "success") throw new Error(`prometheus ${p}: ${JSON.stringify(body)}`);
    return body.data;
  };
  const prom: Prom = {
    url,
    alerts: async () => (await get<{ alerts: PromAlert[] }>("/api/v1/alerts")).alerts,
    async evaluatedAfter(since) {
      const lastEvaluations: number[] = [];
      await waitFor(
        `two evaluations of the rules after ${new Date(since).toISOString()}`,
        async () => {
          const d = await get<{ groups: { lastEvaluation: string }[] }>("/api/v1/rules");
          const at = Date.parse(d.groups[0]?.lastEvaluation ?? "");
          if (at > since && !lastEvaluations.includes(at)) lastEvaluations.push(at);
          return lastEvaluations.length >= 2;
        },
        { timeoutMs: 20_000, intervalMs: 250 },
      );
    },
    async stop() {
      await proc.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  // the dashboard's series are in: the scrape works
  await waitFor(
    "prometheus to hold the dashboard's series",
    async () => (await get<{ result: unknown[] }>(`/api/v1/query?query=${encodeURIComponent("allocation_lens_last_poll_timestamp_seconds")}`)).result.length > 0,
    { timeoutMs: 30_000, intervalMs: 250 },
  );
  return prom;
}

/** The firing alerts' keys, sorted. */
export async function firing(prom: Prom): Promise<string[]> {
  return (await prom.alerts())
    .filter((a) => a.state === "firing")
    .map((a) => alertKey(a.labels))
    .sort();
}

/**
 * Waits until exactly `expected` (keys as alertKey makes them, severity included) fire, and nothing else fires, and each
 * alert named in `values` has that value (a firing alert keeps firing while its value moves; waiting for the value waits
 * for the state the test made, not one Prometheus evaluated on the way); returns Prometheus' alerts then.
 */
export async function waitForFiring(prom: Prom, expected: string[], timeoutMs = 60_000, values?: Record<string, number>): Promise<PromAlert[]> {
  const want = [...expected].sort();
  let last: string[] = [];
  const valueOk = (a: PromAlert) => values?.[alertKey(a.labels)] === undefined || Number(a.value) === values[alertKey(a.labels)];
  return waitFor(
    `exactly ${want.length ? want.join(", ") : "no alert"} firing${values ? ` with ${JSON.stringify(values)}` : ""}`,
    async () => {
      const all = await prom.alerts();
      const firing = all.filter((a) => a.state === "firing");
      last = firing.map((a) => `${alertKey(a.labels)} = ${a.value}`).sort();
      const keys = firing.map((a) => alertKey(a.labels)).sort();
      return JSON.stringify(keys) === JSON.stringify(want) && firing.every(valueOk) && all;
    },
    { timeoutMs, intervalMs: 250, last: () => last },
  );
}

/**
 * The calm state: no alert firing or pending, over at least two evaluations after the rules' `for` has passed since
 * `since` (what was pending then would be firing by now).
 */
export async function expectQuiet(prom: Prom, timeoutMs = 90_000): Promise<void> {
  let last: string[] = [];
  await waitFor(
    "no alert firing or pending",
    async () => {
      const all = await prom.alerts();
      last = all.map((a) => `${a.state} ${alertKey(a.labels)}`);
      return all.length === 0;
    },
    { timeoutMs, intervalMs: 250, last: () => last },
  );
  const since = Date.now() + durationMs(TEST_FOR);
  await prom.evaluatedAfter(since);
  const after = await prom.alerts();
  if (after.length) throw new Error(`alerts after the calm settled: ${after.map((a) => `${a.state} ${alertKey(a.labels)}`).join(", ")}`);
}

/** The Alerts view of the in-process dashboard, parsed with its schema. */
export async function alertsView(lens: Lens): Promise<AlertsView> {
  const r = await lens.get("/api/v1/alerts");
  if (r.status !== 200) throw new Error(`GET /api/v1/alerts: ${r.status} ${r.text}`);
  return alertsViewSchema.parse(r.body);
}

/** The instances the Alerts view judges active (pending or firing), as alertKey makes them. */
export function viewActive(v: AlertsView): string[] {
  return v.alerts
    .flatMap((a) => a.instances.map((n) => alertKey({ alertname: a.alert, severity: a.severity, ...n.labels })))
    .sort();
}

/** Waits until the Alerts view holds exactly `expected` as active (pending or firing). */
export async function waitForView(lens: Lens, expected: string[], timeoutMs = 30_000): Promise<AlertsView> {
  const want = [...expected].sort();
  let last: string[] = [];
  return waitFor(
    `the Alerts view to hold exactly ${want.length ? want.join(", ") : "nothing"}`,
    async () => {
      const v = await alertsView(lens);
      last = viewActive(v);
      return JSON.stringify(last) === JSON.stringify(want) && v;
    },
    { timeoutMs, intervalMs: 200, last: () => last },
  );
}

/** `AlertName{labels}` with the severity of the rule. */
export function key(alert: string, labels: Record<string, string>): string {
  const rule = ALERT_RULES.find((r) => r.alert === alert);
  if (!rule) throw new Error(`no rule ${alert}`);
  return alertKey({ alertname: alert, severity: rule.severity, ...labels });
}

/**
 * startLens with the test's `alerts` configuration (then `configure`), its /metrics on loopback and Prometheus scraping it,
 * the alerts' dashboard_url starting with `dashboardBaseUrl`; `stop()` stops all three.
 */
export async function startLensWithPrometheus(options: StartOptions, dashboardBaseUrl = "http://dashboard.test"): Promise<{ lens: Lens; prom: Prom; stop(): Promise<void> }> {
  const { configure, ...rest } = options;
  const lens = await startLens({ ...rest, configure: (c) => (configure ?? ((x) => x))({ ...c, alerts: TEST_ALERTS_CONFIG }) });
  let metrics: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  let prom: Prom | undefined;
  const stop = async () => {
    await prom?.stop();
    await metrics?.close();
    await lens.stop();
  };
  try {
    metrics = await serveMetrics(lens);
    prom = await startPrometheus(metrics.target, dashboardBaseUrl);
    return { lens, prom, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
