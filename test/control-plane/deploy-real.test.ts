/**
 * The deploy manifests and the Helm chart on a real kube-apiserver (the demo's `--kube real`, cloudwatch flavor): every
 * kustomization under deploy/ is applied with server-side apply, and the chart is installed with its default values and
 * with each documented values file, by an installer identity that holds what they grant and nothing more (no escalate,
 * no bind, no system:masters). Then the dashboard runs under the token of the ServiceAccount the chart creates (a
 * TokenRequest), so that its informers run under exactly the RBAC the chart grants: its polls meet no 403; what the
 * ServiceAccount may do (`kubectl auth can-i --list`) is held to the calls the code makes; and the chart's ClusterRole
 * with one verb removed makes the dashboard report that 403.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import { parseConfig } from "@/lib/config/schema";
import { kubeApiCalls } from "@/server/kube/informers";
import { helmPath } from "../../scripts/peers.mjs";
import { kubeRealSuite } from "@allocation-lens/test-support/real-ta";
import { KUBECTL, ROOT, kustomizations } from "@/test/deploy/manifests-support";
import { startLens, waitFor, type Lens } from "@/test/acceptance/support";

const CHART = path.join(ROOT, "deploy/helm/allocation-lens");
const HELM = helmPath();
const VALUE_SETS: [string, string | undefined][] = [
  ["defaults", undefined],
  ...fs
    .readdirSync(path.join(CHART, "examples"))
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f): [string, string] => [f.replace(/\.yaml$/, ""), path.join(CHART, "examples", f)]),
];
/** the release of the default values, whose ServiceAccount the dashboard runs as */
const RELEASE = "allocation-lens-defaults";

/** Rules RBAC's bootstrap policy grants every authenticated user (system:basic-user, system:discovery): not the chart's. */
const EVERYONES = new Set([
  "certificates.k8s.io/clustertrustbundles get",
  "certificates.k8s.io/clustertrustbundles list",
  "certificates.k8s.io/clustertrustbundles watch",
  "authorization.k8s.io/selfsubjectaccessreviews create", "authorization.k8s.io/selfsubjectrulesreviews create", "authentication.k8s.io/selfsubjectreviews create"]);

/** the problems the last call of sourceProblems saw (for a wait's message) */
let lastProblems: string[] = [];

/** Every problem a source reports (`<source>: <status> <message>`), from the summary's sources. */
async function sourceProblems(lens: Lens): Promise<string[]> {
  const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
  lastProblems = s.sources.filter((x) => x.state !== "ok" || x.error).map((x) => `${x.source}: ${x.state} ${x.error?.status ?? ""} ${x.error?.message ?? ""}`.trim());
  return lastProblems;
}

kubeRealSuite("the deploy manifests and the Helm chart on a real kube-apiserver, the dashboard under the chart's ServiceAccount", (kube) => {
  let lens: Lens;
  let installer = "";
  let tokenKubeconfig = "";
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "lens-kubectl-"));
  const kubectl = (kc: string, ...args: string[]) => spawnSync(KUBECTL!, ["--kubeconfig", kc, "--cache-dir", cacheDir, ...args], { encoding: "utf8", timeout: 60_000, maxBuffer: 64 << 20 });
  const helm = (...args: string[]) =>
    spawnSync(HELM, [...args, "--kubeconfig", installer], { encoding: "utf8", timeout: 120_000, env: { ...process.env, HELM_CACHE_HOME: cacheDir, HELM_CONFIG_HOME: cacheDir, HELM_DATA_HOME: cacheDir } });
  const applied: Record<string, { status: number | null; stderr: string }> = {};
  const installed: Record<string, { status: number | null; stderr: string }> = {};

  beforeAll(async () => {
    if (!KUBECTL) throw new Error("kubectl is needed (Debian's kubernetes-client)");
    if (!fs.existsSync(HELM)) throw new Error(`helm is not built (${HELM}): node scripts/build-peers.mjs helm`);
    lens = await startLens({
      kube: "real",
      kubeReal: kube,
      flavor: "cloudwatch",
      prepare: async (demo) => {
        installer = demo.controlPlane!.kubeconfigs.installer;
        for (const dir of kustomizations()) {
          const r = kubectl(installer, "apply", "--server-side", "-k", path.join(ROOT, dir));
          applied[dir] = { status: r.status, stderr: r.stderr };
        }
        for (const [name, values] of VALUE_SETS) {
          const release = `allocation-lens-${name}`;
          // the namespaces its objects go to besides its own (the collectors' Role) exist where the collectors run
          const rendered = helm("template", release, CHART, "--namespace", release, ...(values ? ["-f", values] : []));
          const others = new Set(YAML.parseAllDocuments(rendered.stdout).map((d) => (d.toJS() as { metadata?: { namespace?: string } } | null)?.metadata?.namespace).filter((n): n is string => !!n && n !== release));
          for (const ns of others) kubectl(installer, "create", "namespace", ns);
          const r = helm("install", release, CHART, "--namespace", release, "--create-namespace", ...(values ? ["-f", values] : []));
          installed[name] = { status: r.status, stderr: r.stderr };
        }
        // the dashboard as the chart runs it: the default release's ServiceAccount, its token from a TokenRequest
        const token = kubectl(installer, "create", "token", RELEASE, "-n", RELEASE, "--duration", "1h");
        if (token.status !== 0) throw new Error(`kubectl create token: ${token.stderr}`);
        tokenKubeconfig = demo.controlPlane!.writeTokenKubeconfig(path.join(demo.controlPlane!.kubeconfigs.installer, "..", "kubeconfig-chart-sa.yaml"), token.stdout.trim());
      },
      configure: (config) => ({ ...config, clusters: config.clusters.map((c: Record<string, unknown>) => ({ ...c, kubernetes: { kubeconfig: tokenKubeconfig } })) }),
    });
  }, 300_000);
  afterAll(async () => {
    await lens?.stop();
    fs.rmSync(cacheDir, { recursive: true, force: true });
  });

  it("every kustomization applies with server-side apply", () => {
    expect(Object.keys(applied)).toEqual(kustomizations());
    expect(Object.entries(applied).filter(([, r]) => r.status !== 0).map(([dir, r]) => `${dir}: ${r.stderr.trim()}`)).toEqual([]);
  });

  it("the chart installs with its default values and with each documented values file", () => {
    expect(Object.keys(installed)).toEqual(VALUE_SETS.map(([n]) => n));
    expect(Object.entries(installed).filter(([, r]) => r.status !== 0).map(([name, r]) => `${name}: ${r.stderr.trim()}`)).toEqual([]);
  });

  it("the dashboard under the chart's ServiceAccount polls with no 403: every source ok", async () => {
    await waitFor("every source ok", async () => (await sourceProblems(lens)).length === 0, { timeoutMs: 30_000, intervalMs: 500, last: () => lastProblems });
    const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
    expect(s.roles["per-node"]!.collectorsEligible).toBeGreaterThan(0);
    expect(s.sources.some((x) => x.source.includes("/kube/nodes"))).toBe(true);
  });

  it("what the ServiceAccount may do is what the code calls: nothing missing, nothing more (auth can-i --list)", () => {
    const config = parseConfig(YAML.parse(fs.readFileSync(lens.demo.info.dashboardConfig, "utf8")));
    if (!config.ok) throw new Error(config.errors.join("\n"));
    const calls = kubeApiCalls(config.config.clusters[0]);
    const namespaces = [...new Set(calls.map((c) => c.namespace).filter((n): n is string => !!n)), RELEASE];
    const granted = new Set<string>();
    for (const ns of namespaces) {
      const r = kubectl(tokenKubeconfig, "auth", "can-i", "--list", "-n", ns);
      expect(r.status, r.stderr).toBe(0);
      // Resources  Non-Resource URLs  Resource Names  [Verbs]
      for (const line of r.stdout.trim().split("\n").slice(1)) {
        const m = /^(\S+)\s+\[[^\]]*\]\s+\[[^\]]*\]\s+\[([^\]]*)\]/.exec(line);
        if (!m) continue;
        const [resource, group = ""] = m[1].split(/\.(.*)/s);
        for (const verb of m[2].split(/\s+/).filter(Boolean)) granted.add(`${group}/${resource} ${verb}${["pods", "leases"].includes(resource) ? ` in ${ns}` : ""}`);
      }
    }
    const wanted = calls.map((c) => `${c.group}/${c.resource} ${c.verb}${c.namespace ? ` in ${c.namespace}` : ""}`);
    // the Leases of replicas (get, list, create, update in the release's namespace) are the chart's, for `lease`
    const leases = ["get", "list", "create", "update"].map((v) => `coordination.k8s.io/leases ${v} in ${RELEASE}`);
    for (const w of wanted) expect(granted.has(w), `the chart grants ${w}`).toBe(true);
    const more = [...granted].filter((g) => !wanted.includes(g) && !leases.includes(g) && !EVERYONES.has(g));
    expect(more, "granted but never called").toEqual([]);
  });

  it("the chart's ClusterRole without `list` on nodes: the dashboard reports the 403 once its watches start again", async () => {
    const role = JSON.parse(execFileSync(KUBECTL!, ["--kubeconfig", installer, "get", "clusterrole", RELEASE, "-o", "json"], { encoding: "utf8" })) as { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    const without = { ...role, rules: role.rules.map((r) => (r.resources.includes("nodes") ? { ...r, verbs: r.verbs.filter((v) => v !== "list") } : r)) };
    const put = (obj: unknown) => {
      const file = path.join(cacheDir, "clusterrole.json");
      fs.writeFileSync(file, JSON.stringify(obj));
      const r = kubectl(installer, "replace", "-f", file);
      expect(r.status, r.stderr).toBe(0);
    };
    put(without);
    try {
      // an open watch keeps running: a restart of the API server makes every informer list again
      await lens.demo.controlPlane!.restartApiserver();
      const problems = await waitFor("the nodes source to report the 403", async () => {
        const p = await sourceProblems(lens);
        return p.some((x) => /kube\/nodes/.test(x) && /403/.test(x)) && p;
      }, { timeoutMs: 60_000, intervalMs: 500, last: () => lastProblems });
      expect(problems.join("\n")).toMatch(/nodes.*403|403.*nodes/s);
    } finally {
      put({ ...role, metadata: { ...(role as unknown as { metadata: Record<string, unknown> }).metadata, resourceVersion: undefined } });
    }
    await lens.demo.controlPlane!.restartApiserver();
    await waitFor("every source ok again", async () => (await sourceProblems(lens)).length === 0, { timeoutMs: 60_000, intervalMs: 500, last: () => lastProblems });
  }, 150_000);
});

