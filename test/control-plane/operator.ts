/**
 * An operator (upstream's OpenTelemetry Operator or the CloudWatch agent operator, each built from its own source) run
 * against the demo's real kube-apiserver with webhooks off, under a ClusterRole of exactly the rules of its own
 * config/rbac/role.yaml. Its custom resources with a Target Allocator, written by a user who may write them and nothing
 * else, become by the operator's own hand the ConfigMaps, Deployments and Services a TA is made of. The dashboard, told
 * to discover TAs in that namespace only, must find each with the role, flavor, strategy, collector selector and TLS the
 * operator wrote. Nothing runs the pods (there is no controller manager): reading the TAs themselves fails there, with
 * the reason, as on a cluster whose TA pods are not scheduled yet.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import type { Flavor, Role } from "@/lib/model";
import { DIALING_SUBRESOURCES, type ExtraIdentity, type PolicyRule } from "@allocation-lens/demo-cluster/internal/kube-real/rbac";
import type { KubeRealBinaries, OperatorFiles } from "@allocation-lens/test-support/real-ta";
import { KUBECTL } from "@/test/deploy/manifests-support";
import { startLens, waitFor, type Lens } from "@/test/acceptance/support";

export interface OperatorCase {
  flavor: Flavor;
  /** the namespace the custom resources go in (created by the installer identity) */
  namespace: string;
  /** the operator's user on the API server */
  user: string;
  /**
   * run it as in a pod: under a ServiceAccount of this name (in `namespace`), its token and the server's CA where a pod
   * finds them (/var/run/secrets/kubernetes.io/serviceaccount, in a mount namespace of its own over a private /run) and
   * KUBERNETES_SERVICE_HOST/PORT; otherwise it gets a client certificate's kubeconfig
   */
  serviceAccount?: string;
  /** the operator's flags beyond the kubeconfig (webhooks off, its listeners on loopback) */
  args: string[];
  env?: Record<string, string>;
  /** who writes the custom resources */
  author: ExtraIdentity;
  /** the custom resources, as a user writes them */
  resources: Record<string, unknown>[];
  /** each TA the operator must make, and what discovery must say of it */
  tas: { configMap: string; service: string; deployment: string; role: Role; strategy: string; fallbackStrategy: string | null; mtls: boolean }[];
  /** a resource the operator reconciles with (`create deployments.apps`) and one only the author may do, for can-i */
  granted: [string, string];
  refused: [string, string];
}

/** The TA configuration's collector selector as the operator wrote it: upstream's matchLabels or the fork's label_selector. */
function writtenSelector(conf: Record<string, unknown>): Record<string, string> | undefined {
  const cs = conf.collector_selector as { matchlabels?: Record<string, string>; matchLabels?: Record<string, string> } | undefined;
  return cs?.matchlabels ?? cs?.matchLabels ?? (conf.label_selector as Record<string, string> | undefined);
}

export function operatorDiscovery(kube: KubeRealBinaries, op: OperatorFiles, c: OperatorCase): void {
  let lens: Lens;
  let operator: ChildProcess | undefined;
  /** a kubeconfig of the operator's identity (its client certificate, or its ServiceAccount's token) */
  let operatorKubeconfig = "";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lens-operator-"));
  const logFile = path.join(dir, "operator.log");
  const operatorLog = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").trimEnd().split("\n").slice(-12).map((l) => l.slice(0, 600)).join("\n") : "");
  const kubectl = (kc: string, ...args: string[]) => spawnSync(KUBECTL!, ["--kubeconfig", kc, "--cache-dir", path.join(dir, "kubectl"), ...args], { encoding: "utf8", timeout: 60_000, maxBuffer: 16 << 20 });
  const role = YAML.parseAllDocuments(fs.readFileSync(op.role, "utf8")).map((d) => d.toJS() as { kind?: string; rules?: PolicyRule[] }).find((d) => d?.kind === "ClusterRole");
  if (!role?.rules) throw new Error(`${op.role} holds no ClusterRole`);
  const rules = role.rules;
  const get = <T>(kind: string, name: string) => JSON.parse(kubectl(lens.demo.controlPlane!.kubeconfigs.demo, "get", kind, name, "-n", c.namespace, "-o", "json").stdout) as T;

  beforeAll(async () => {
    if (!KUBECTL) throw new Error("kubectl is needed (Debian's kubernetes-client)");
    lens = await startLens({
      flavor: c.flavor,
      nodes: 3,
      kube: "real",
      kubeReal: {
        ...kube,
        crds: [...kube.crds, ...op.crds],
        identities: [{ user: c.user, rules, ...(c.serviceAccount ? { serviceAccount: { namespace: c.namespace, name: c.serviceAccount } } : {}) }, c.author],
      },
      prepare: async (demo) => {
        const cp = demo.controlPlane!;
        const must = (what: string, r: ReturnType<typeof kubectl>) => {
          if (r.status !== 0) throw new Error(`${what}: ${r.stderr}`);
          return r.stdout;
        };
        must("kubectl create namespace", kubectl(cp.kubeconfigs.installer, "create", "namespace", c.namespace));
        const log = fs.openSync(logFile, "a");
        // the operator finds its API server as a pod would, or through its own kubeconfig: never the caller's
        const env: NodeJS.ProcessEnv = { ...process.env, ...c.env };
        delete env.KUBECONFIG;
        if (c.serviceAccount) {
          must("kubectl create serviceaccount", kubectl(cp.kubeconfigs.installer, "create", "serviceaccount", c.serviceAccount, "-n", c.namespace));
          const token = must("kubectl create token", kubectl(cp.kubeconfigs.installer, "create", "token", c.serviceAccount, "-n", c.namespace, "--duration", "1h")).trim();
          operatorKubeconfig = cp.writeTokenKubeconfig(path.join(dir, "kubeconfig-operator.yaml"), token);
          const volume = path.join(dir, "serviceaccount");
          fs.mkdirSync(volume);
          fs.writeFileSync(path.join(volume, "token"), token, { mode: 0o600 });
          fs.writeFileSync(path.join(volume, "ca.crt"), cp.caPem);
          fs.writeFileSync(path.join(volume, "namespace"), c.namespace);
          const api = new URL(cp.url);
          // its own mount namespace: a private /run holding the ServiceAccount volume; the machine's /run is untouched
          const script = 'mount -t tmpfs lens-operator /run && mkdir -p /run/secrets/kubernetes.io && cp -r "$0" /run/secrets/kubernetes.io/serviceaccount && exec "$@"';
          operator = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c", script, volume, op.binary, ...c.args], {
            stdio: ["ignore", log, log],
            env: { ...env, KUBERNETES_SERVICE_HOST: api.hostname.replace(/^\[|\]$/g, ""), KUBERNETES_SERVICE_PORT: api.port },
          });
        } else {
          operatorKubeconfig = cp.kubeconfigs.extra[c.user];
          operator = spawn(op.binary, c.args, { stdio: ["ignore", log, log], env: { ...env, KUBECONFIG: operatorKubeconfig } });
        }
        fs.closeSync(log);
        const exited = new Promise<never>((_, reject) => operator!.once("exit", (code, signal) => reject(new Error(`the operator exited (${code ?? signal}):\n${operatorLog()}`))));
        exited.catch(() => undefined);
        for (const [i, r] of c.resources.entries()) {
          const file = path.join(dir, `resource-${i}.yaml`);
          fs.writeFileSync(file, YAML.stringify(r));
          const applied = kubectl(cp.kubeconfigs.extra[c.author.user], "apply", "--server-side", "-f", file);
          if (applied.status !== 0) throw new Error(`kubectl apply of ${(r.metadata as { name: string }).name}: ${applied.stderr}`);
        }
        const written = waitFor(
          "the operator to write each TA's ConfigMap, Deployment and Service",
          async () => {
            const names = new Set(kubectl(cp.kubeconfigs.demo, "get", "configmaps,deployments,services", "-n", c.namespace, "-o", "name").stdout.trim().split("\n"));
            return c.tas.every((t) => names.has(`configmap/${t.configMap}`) && names.has(`deployment.apps/${t.deployment}`) && names.has(`service/${t.service}`));
          },
          { timeoutMs: 120_000, intervalMs: 500, last: () => operatorLog() },
        );
        // the operator ending first fails at once, with its log
        await Promise.race([written, exited]);
      },
      configure: (doc) => ({ ...doc, clusters: doc.clusters.map((x: Record<string, unknown>) => ({ ...x, targetAllocators: { discover: { namespaces: [c.namespace] } } })) }),
    });
  }, 300_000);

  afterAll(async () => {
    if (operator && operator.exitCode === null) {
      const exited = new Promise((r) => operator!.once("exit", r));
      operator.kill("SIGTERM");
      await exited;
    }
    await lens?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("the server refuses the operator's identity every subresource that dials, and grants what it reconciles with", () => {
    const kc = operatorKubeconfig;
    // `pods/proxy` to kubectl is the pod named proxy: a subresource is asked with --subresource
    const canI = (verb: string, resource: string) => {
      const [name, sub] = resource.split("/");
      return kubectl(kc, "auth", "can-i", verb, name, ...(sub ? ["--subresource", sub] : []), "-n", c.namespace).stdout.trim();
    };
    for (const d of DIALING_SUBRESOURCES) expect(canI(d.verb, d.resource), `${d.verb} ${d.resource}`).toBe("no");
    expect(canI(...c.granted), c.granted.join(" ")).toBe("yes");
    expect(canI(...c.refused), c.refused.join(" ")).toBe("no");
  });

  it("discovery finds each TA with the role, flavor, strategy, selector and TLS the operator wrote", async () => {
    let last: unknown;
    const d = await waitFor(
      `the dashboard's discovery to find ${c.tas.length} TAs`,
      async () => {
        const v = api.diagnosticsViewSchema.parse((await lens.get("/api/v1/diagnostics")).body);
        last = v.discovery;
        return v.discovery?.found.length === c.tas.length ? v.discovery : false;
      },
      { timeoutMs: 60_000, intervalMs: 500, last: () => last },
    );
    expect(d.dropped).toEqual([]);
    for (const t of c.tas) {
      const found = d.found.find((f) => f.configMap === t.configMap);
      expect(found, t.configMap).toBeDefined();
      // what the operator wrote, read back as a user would
      const cm = get<{ metadata: { labels: Record<string, string> }; data: Record<string, string> }>("configmap", t.configMap);
      const conf = YAML.parse(cm.data["targetallocator.yaml"]) as Record<string, unknown>;
      const selector = writtenSelector(conf);
      expect(selector && Object.keys(selector).length, "the operator wrote a collector selector").toBeGreaterThan(0);
      expect(conf.allocation_strategy).toBe(t.strategy);
      expect(found).toMatchObject({
        role: t.role,
        flavor: c.flavor,
        namespace: c.namespace,
        strategy: t.strategy,
        fallbackStrategy: t.fallbackStrategy,
        mtls: t.mtls,
        collectors: { namespace: c.namespace, selector },
      });
      const svc = get<{ spec: { ports: { port: number }[] } }>("service", t.service);
      expect(svc.spec.ports.map((p) => `${c.namespace}/${t.service}:${p.port}`)).toContain(found!.service);
    }
    // the TA pods do not exist (nothing schedules them): each discovered source says why it has no answer
    const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
    for (const t of c.tas) {
      const src = s.sources.find((x) => x.source === `${lens.cluster}/ta/${t.role}`);
      expect(src, t.role).toBeDefined();
      expect(src!.state, t.role).not.toBe("ok");
    }
  }, 120_000);
}
