/**
 * The generated rule files on Debian's real promtool: `promtool check rules` on every one of them (the plain file, the
 * kustomize component's PrometheusRule, the Helm chart's rendered by a real helm with `alerts.enabled`), and
 * `promtool test rules` with a firing and a quiet case for every alert, the expected annotations rendered by
 * lib/alerts/template.ts (what the Alerts view shows), so Prometheus' Go templates and the view are held to each other.
 *
 * Without promtool (or helm, for the chart's file) the tests are skipped naming the reason; with
 * ALLOCATION_LENS_REQUIRE_PEERS=1 a missing one is a failure.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { generatedFiles, HELM_RULE, PLAIN_RULES } from "@/lib/alerts/files";
import { ALERT_RULES, DEFAULT_URLS, type AlertRule } from "@/lib/alerts/rules";
import { render } from "@/lib/alerts/template";
import { helmPath, requirePeers } from "../../scripts/peers.mjs";
import { validateObject, type Obj } from "@/test/deploy/manifests-support";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PROMTOOL = process.env.PROMTOOL ?? "/usr/bin/promtool";
const HAS_PROMTOOL = fs.existsSync(PROMTOOL);
if (!HAS_PROMTOOL && requirePeers()) throw new Error(`${PROMTOOL} is missing (Debian's prometheus package): the rule files cannot be checked`);
if (!HAS_PROMTOOL) console.warn(`skipping the promtool tests: ${PROMTOOL} is missing (apt-get install prometheus)`);

const made: string[] = [];
/** a temporary directory, removed after the file's tests */
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-rules-"));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function promtool(args: string[], cwd: string): { status: number; out: string } {
  const r = spawnSync(PROMTOOL, args, { cwd, encoding: "utf8" });
  return { status: r.status ?? 1, out: `${r.stdout}${r.stderr}` };
}

function checkRules(groups: unknown): { status: number; out: string } {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, "rules.yaml"), YAML.stringify({ groups }));
  return promtool(["check", "rules", "rules.yaml"], dir);
}

const rule = (name: string): AlertRule => ALERT_RULES.find((r) => r.alert === name)!;

interface Case {
  alert: string;
  /** input series (promtool's `series` and `values`), sampled every minute */
  series: Record<string, string>;
  at: string;
  /** labels of each expected alert besides severity, and its value; [] for a quiet case */
  expect: { labels: Record<string, string>; value: number }[];
}

const C = { cluster: "prod-eu-1" };
const PN = { ...C, role: "per-node" };
const ghost = `allocation_lens_ghost_targets{cluster="prod-eu-1",role="per-node",collector="agent-a"}`;
const monitors = (o: string) => `allocation_lens_monitors{cluster="prod-eu-1",ownership="${o}"}`;
const unassigned = `allocation_lens_unassigned_targets{cluster="prod-eu-1",role="per-node"}`;
const reported = `allocation_lens_ta_unassigned_reported{cluster="prod-eu-1",role="per-node"}`;
const locality = (role: string) => `allocation_lens_locality_ratio{cluster="prod-eu-1",role="${role}"}`;
const source = `allocation_lens_source_up{cluster="prod-eu-1",source="ta/per-node"}`;
const lastPoll = `allocation_lens_last_poll_timestamp_seconds{cluster="prod-eu-1",instance="a:3000",job="allocation-lens"}`;
const lastPollB = `allocation_lens_last_poll_timestamp_seconds{cluster="prod-eu-1",instance="b:3000",job="allocation-lens"}`;
const interval = `allocation_lens_poll_interval_seconds{cluster="prod-eu-1",instance="a:3000",job="allocation-lens"}`;
const flips = `allocation_lens_collector_readiness_transitions_total{cluster="prod-eu-1",role="per-node",pod="agent-x",node="node-1"}`;
const nodesWithout = `allocation_lens_nodes_without_collector{cluster="prod-eu-1"}`;
const headroom = (role: string) => `allocation_lens_ta_ring_headroom{cluster="prod-eu-1",role="${role}"}`;

const CASES: Case[] = [
  { alert: "AllocationLensGhostTargets", series: { [ghost]: "0 3x20" }, at: "10m", expect: [{ labels: { ...PN, collector: "agent-a" }, value: 3 }] },
  // ghosts for less than 5 minutes: upstream's grace period, not yet an alert
  { alert: "AllocationLensGhostTargets", series: { [ghost]: "0x7 3x3" }, at: "10m", expect: [] },
  { alert: "AllocationLensMonitorScrapedTwice", series: { [monitors("double")]: "2x20", [monitors("ok")]: "9x20" }, at: "15m", expect: [{ labels: { ...C, ownership: "double" }, value: 2 }] },
  { alert: "AllocationLensMonitorScrapedTwice", series: { [monitors("double")]: "0x20" }, at: "15m", expect: [] },
  { alert: "AllocationLensMonitorOrphaned", series: { [monitors("orphaned")]: "1x20" }, at: "15m", expect: [{ labels: { ...C, ownership: "orphaned" }, value: 1 }] },
  { alert: "AllocationLensMonitorOrphaned", series: { [monitors("orphaned")]: "0x20", [monitors("double")]: "4x20" }, at: "15m", expect: [] },
  { alert: "AllocationLensMonitorMisrouted", series: { [monitors("misrouted")]: "5x20" }, at: "15m", expect: [{ labels: { ...C, ownership: "misrouted" }, value: 5 }] },
  { alert: "AllocationLensMonitorMisrouted", series: { [monitors("misrouted")]: "0x20" }, at: "15m", expect: [] },
  { alert: "AllocationLensUnassignedTargets", series: { [unassigned]: "0 40x10" }, at: "10m", expect: [{ labels: PN, value: 40 }] },
  // unassigned for two minutes: a TA re-allocating after a collector left
  { alert: "AllocationLensUnassignedTargets", series: { [unassigned]: "0x8 40x2" }, at: "10m", expect: [] },
  // upstream's sticky gauge: 40 after the targets were placed again
  { alert: "AllocationLensTaUnassignedGaugeWrong", series: { [unassigned]: "40x2 0x20", [reported]: "40x22" }, at: "20m", expect: [{ labels: PN, value: 40 }] },
  { alert: "AllocationLensTaUnassignedGaugeWrong", series: { [unassigned]: "40x2 0x20", [reported]: "40x2 0x20" }, at: "20m", expect: [] },
  { alert: "AllocationLensLocalityLow", series: { [locality("per-node")]: "0.8x30", [locality("cluster-scraper")]: "0.1x30" }, at: "20m", expect: [{ labels: PN, value: 0.8 }] },
  { alert: "AllocationLensLocalityLow", series: { [locality("per-node")]: "0.95x30" }, at: "20m", expect: [] },
  { alert: "AllocationLensSourceDown", series: { [source]: "1 0x10" }, at: "10m", expect: [{ labels: { ...C, source: "ta/per-node" }, value: 0 }] },
  { alert: "AllocationLensSourceDown", series: { [source]: "0x3 1x7" }, at: "10m", expect: [] },
  // the dashboard stopped (or stopped polling) after 5 minutes: its last poll's timestamp stays 300
  { alert: "AllocationLensPollLate", series: { [lastPoll]: "0+60x5", [interval]: "30x5" }, at: "10m", expect: [{ labels: C, value: 300 }] },
  // two replicas: only the holder's gauge moves; the other's last value does not make the cluster late
  { alert: "AllocationLensPollLate", series: { [lastPoll]: "0+60x10", [lastPollB]: "0+60x2", [interval]: "30x10" }, at: "10m", expect: [] },
  { alert: "AllocationLensCollectorFlapping", series: { [flips]: "0+1x80" }, at: "70m", expect: [{ labels: { ...PN, pod: "agent-x", node: "node-1" }, value: 60 }] },
  { alert: "AllocationLensCollectorFlapping", series: { [flips]: "0 1 2 2x40" }, at: "40m", expect: [] },
  { alert: "AllocationLensNodesWithoutCollector", series: { [nodesWithout]: "2x20" }, at: "15m", expect: [{ labels: C, value: 2 }] },
  { alert: "AllocationLensNodesWithoutCollector", series: { [nodesWithout]: "0x20" }, at: "15m", expect: [] },
  { alert: "AllocationLensTaRingNearLimit", series: { [headroom("per-node")]: "61x30", [headroom("cluster-scraper")]: "1058x30" }, at: "20m", expect: [{ labels: PN, value: 61 }] },
  // at the limit and beyond it is the critical alert's, not this one's
  { alert: "AllocationLensTaRingNearLimit", series: { [headroom("per-node")]: "-1x30" }, at: "20m", expect: [] },
  { alert: "AllocationLensTaRingOverLimit", series: { [headroom("per-node")]: "-39x30" }, at: "5m", expect: [{ labels: PN, value: -39 }] },
  { alert: "AllocationLensTaRingOverLimit", series: { [headroom("per-node")]: "0x30" }, at: "5m", expect: [] },
];

/** The alert as promtool should see it: its labels and the annotations rendered for them. */
function expected(r: AlertRule, e: Case["expect"][number]) {
  const plain = YAML.parse(generatedFiles()[PLAIN_RULES]).groups[0].rules.find((x: { alert: string }) => x.alert === r.alert);
  const annotations = Object.fromEntries(Object.entries(plain.annotations as Record<string, string>).map(([k, v]) => [k, render(v, e.labels, e.value)]));
  return { exp_labels: { ...e.labels, severity: r.severity }, exp_annotations: annotations };
}

describe.skipIf(!HAS_PROMTOOL)("the rule files on promtool", () => {
  it("every alert has a firing and a quiet case", () => {
    for (const r of ALERT_RULES) {
      const mine = CASES.filter((c) => c.alert === r.alert);
      expect(mine.some((c) => c.expect.length > 0), `${r.alert} firing`).toBe(true);
      expect(mine.some((c) => c.expect.length === 0), `${r.alert} quiet`).toBe(true);
    }
  });

  it("promtool check rules: the plain file and the kustomize component", () => {
    const r = promtool(["check", "rules", path.join(ROOT, PLAIN_RULES)], ROOT);
    expect(r.out).toContain(`SUCCESS: ${ALERT_RULES.length} rules found`);
    expect(r.status, r.out).toBe(0);
    const component = YAML.parse(fs.readFileSync(path.join(ROOT, "deploy/components/alerts/prometheusrule.yaml"), "utf8"));
    const c = checkRules(component.spec.groups);
    expect(c.status, c.out).toBe(0);
  });

  it("the kustomize component adds the PrometheusRule to the base (kubectl kustomize), in the base's namespace, valid against the CRD's schema", async () => {
    const kubectl = "/usr/bin/kubectl";
    if (!fs.existsSync(kubectl)) {
      if (requirePeers()) throw new Error(`${kubectl} is missing (Debian's kubernetes-client)`);
      console.warn(`skipping the kustomize component check: no ${kubectl}`);
      return;
    }
    const dir = tmp();
    const overlay = { apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: [path.relative(dir, path.join(ROOT, "deploy/base"))], components: [path.relative(dir, path.join(ROOT, "deploy/components/alerts"))] };
    fs.writeFileSync(path.join(dir, "kustomization.yaml"), YAML.stringify(overlay));
    const r = spawnSync(kubectl, ["kustomize", "--load-restrictor", "LoadRestrictionsNone", dir], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const rules = YAML.parseAllDocuments(r.stdout)
      .map((d) => d.toJS())
      .filter((o) => o?.kind === "PrometheusRule");
    expect(rules).toHaveLength(1);
    expect(rules[0].metadata.namespace).toBe("allocation-lens");
    expect(rules[0].spec.groups).toEqual(YAML.parse(generatedFiles()[PLAIN_RULES]).groups);
    // the PrometheusRule CRD's OpenAPI schema (prometheus-operator's, @kubernetes-models/prometheus-operator)
    await expect(validateObject(rules[0] as Obj)).resolves.toBeUndefined();
    await expect(validateObject({ ...rules[0], spec: { groups: [{ name: "x", rules: [{ alert: "X" }] }] } } as Obj), "a rule without expr").rejects.toThrow();
  });

  it("promtool test rules: each alert fires with its labels and annotations, and stays quiet", () => {
    const dir = tmp();
    fs.copyFileSync(path.join(ROOT, PLAIN_RULES), path.join(dir, "rules.yaml"));
    const tests = CASES.map((c) => ({
      name: `${c.alert} ${c.expect.length ? "fires" : "stays quiet"}`,
      interval: "1m",
      input_series: Object.entries(c.series).map(([series, values]) => ({ series, values })),
      alert_rule_test: [{ eval_time: c.at, alertname: c.alert, exp_alerts: c.expect.map((e) => expected(rule(c.alert), e)) }],
    }));
    fs.writeFileSync(path.join(dir, "tests.yaml"), YAML.stringify({ rule_files: ["rules.yaml"], evaluation_interval: "1m", tests }));
    const r = promtool(["test", "rules", "tests.yaml"], dir);
    expect(r.out).toContain("SUCCESS");
    expect(r.status, r.out).toBe(0);
  });

  it("the Helm chart's PrometheusRule, rendered by helm with alerts.enabled, is the plain file's rules, valid against the CRD's schema, and passes promtool", async () => {
    const helm = helmPath();
    if (!fs.existsSync(helm)) {
      if (requirePeers()) throw new Error(`helm is missing (${helm}): scripts/peers.mjs builds it`);
      console.warn(`skipping the Helm PrometheusRule check: no helm at ${helm}`);
      return;
    }
    const env = { ...process.env, HELM_CACHE_HOME: os.tmpdir(), HELM_CONFIG_HOME: os.tmpdir(), HELM_DATA_HOME: os.tmpdir() };
    const chart = path.join(ROOT, "deploy/helm/allocation-lens");
    // --set-json: numbers stay numbers (--set makes 0.75 a string)
    const run = (sets: string[]) => spawnSync(helm, ["template", "al", chart, "--namespace", "monitoring", ...sets.flatMap((s) => (/=-?[0-9.]+$|=true$/.test(s) ? ["--set-json", s] : ["--set", s]))], { encoding: "utf8", env });
    const objects = (out: string) => YAML.parseAllDocuments(out).map((d) => d.toJS()).filter(Boolean) as { kind: string; metadata: { labels: Record<string, string> }; spec: { groups: unknown[] } }[];
    // off by default
    const off = run([]);
    expect(off.status, off.stderr).toBe(0);
    expect(objects(off.stdout).filter((o) => o.kind === "PrometheusRule")).toHaveLength(0);
    const on = run(["alerts.enabled=true", `alerts.dashboardBaseUrl=${DEFAULT_URLS.dashboardBaseUrl}`, "alerts.labels.release=kube-prometheus-stack"]);
    expect(on.status, on.stderr).toBe(0);
    const rules = objects(on.stdout).filter((o) => o.kind === "PrometheusRule");
    expect(rules).toHaveLength(1);
    expect(rules[0].metadata.labels.release).toBe("kube-prometheus-stack");
    expect(rules[0].spec.groups).toEqual(YAML.parse(generatedFiles()[PLAIN_RULES]).groups);
    await expect(validateObject(rules[0] as unknown as Obj)).resolves.toBeUndefined();
    const c = checkRules(rules[0].spec.groups);
    expect(c.status, c.out).toBe(0);
    // other thresholds reach the expressions; without a dashboardBaseUrl the in-cluster Service is linked
    const tuned = run(["alerts.enabled=true", "alerts.localityMin=0.75", "alerts.unassignedFor=10m", "alerts.ringHeadroomWarning=200", "basePath=/lens"]);
    expect(tuned.status, tuned.stderr).toBe(0);
    const text = tuned.stdout;
    for (const o of objects(text).filter((x) => x.kind === "PrometheusRule")) await expect(validateObject(o as unknown as Obj)).resolves.toBeUndefined();
    expect(text).toContain('allocation_lens_locality_ratio{role="per-node"} < 0.75');
    expect(text).toContain("allocation_lens_ta_ring_headroom <= 200");
    expect(text).toMatch(/alert: AllocationLensUnassignedTargets\n\s+expr: .*\n\s+for: "?10m"?\n/);
    expect(text).toContain('dashboard_url: "http://al-allocation-lens.monitoring.svc:80/lens/targets?cluster={{ $labels.cluster | urlquery }}');
    // a value the schema refuses
    expect(run(["alerts.localityMin=2"]).status).not.toBe(0);
    expect(run(["alerts.unassignedFor=soon"]).status).not.toBe(0);
    expect(fs.readFileSync(path.join(ROOT, HELM_RULE), "utf8")).toContain("{{- if .Values.alerts.enabled -}}");
  });
});
