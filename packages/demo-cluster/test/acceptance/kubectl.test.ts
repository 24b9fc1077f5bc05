/**
 * The real kubectl: with the kubeconfig the demo prints, lists the demo's objects and streams the changes a
 * fault makes (`get pods -A -w`); creates and reads coordination.k8s.io Leases (the dashboard's replicas use them).
 */
import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fault, heal, KUBECTL, nodeAt, perNodeCollectorOn, startDemo, truth, type Demo } from "./harness";
import { startProcess, type Proc } from "@allocation-lens/test-support/processes";
import { waitFor } from "@allocation-lens/test-support/wait";

const run = promisify(execFile);
const HAVE_KUBECTL = existsSync(KUBECTL);
if (!HAVE_KUBECTL) console.warn(`skipping the kubectl acceptance tests: ${KUBECTL} is not installed`);

/** Rows of `kubectl get ... -o custom-columns` without the header. */
const rows = (text: string) =>
  text
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s+/));

describe.skipIf(!HAVE_KUBECTL)("kubectl against the demo cluster", () => {
  let demo: Demo;
  let watchers: Proc[] = [];
  const kubectl = async (...args: string[]) => (await run(KUBECTL, [...base(), ...args], { timeout: 20_000 })).stdout;
  // kubectl's discovery cache goes to the demo's temp dir, not to ~/.kube
  const base = () => ["--kubeconfig", demo.info.kubeconfig, "--cache-dir", path.join(demo.dir, "kubectl-cache")];

  beforeAll(async () => {
    demo = await startDemo(["--nodes", "6", "--seed", "5"]);
  });
  afterEach(async () => {
    await Promise.all(watchers.map((w) => w.kill()));
    watchers = [];
    await heal(demo.info);
  });
  afterAll(async () => demo?.stop());

  it("get nodes,pods -A lists the nodes and agent pods of /truth", async () => {
    const t = await truth(demo.info);
    const out = await kubectl("get", "nodes,pods", "-A");
    // both tables, with kubectl's own columns (server-side Table rendering)
    expect(out).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION/m);
    expect(out).toMatch(/^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/m);
    const nodes = rows(await kubectl("get", "nodes", "-o", "custom-columns=NAME:.metadata.name")).map((r) => r[0]);
    expect(nodes.sort()).toEqual([...new Set(t.collectors.filter((c) => c.role === "per-node").map((c) => c.node))].sort());
    for (const n of nodes) expect(out).toContain(`node/${n}`);
    const pods = rows(await kubectl("get", "pods", "-A", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name,NODE:.spec.nodeName"));
    const podsByName = new Map(pods.map(([ns, name, node]) => [name, { ns, node }]));
    for (const c of t.collectors) {
      expect(podsByName.get(c.id), `collector pod ${c.id}`).toBeDefined();
      expect(podsByName.get(c.id)!.node).toBe(c.node);
      expect(out).toContain(`pod/${c.id}`);
    }
    expect(pods.length).toBeGreaterThan(t.collectors.length); // workloads too
  });

  it("get servicemonitors,podmonitors -A lists every monitor that has jobs in a TA", async () => {
    const t = await truth(demo.info);
    const want = { serviceMonitor: new Set<string>(), podMonitor: new Set<string>() };
    for (const x of t.targets) {
      const m = /^(serviceMonitor|podMonitor)\/([^/]+)\/([^/]+)\/\d+$/.exec(x.job);
      if (m) want[m[1] as keyof typeof want].add(`${m[2]}/${m[3]}`);
    }
    expect(want.serviceMonitor.size).toBeGreaterThan(0);
    expect(want.podMonitor.size).toBeGreaterThan(0);
    const out = await kubectl("get", "servicemonitors,podmonitors", "-A");
    const listed = { serviceMonitor: new Set<string>(), podMonitor: new Set<string>() };
    for (const line of out.split("\n")) {
      const m = /^(\S+)\s+(servicemonitor|podmonitor)\.monitoring\.coreos\.com\/(\S+)/.exec(line);
      if (m) listed[m[2] === "servicemonitor" ? "serviceMonitor" : "podMonitor"].add(`${m[1]}/${m[3]}`);
    }
    for (const kind of ["serviceMonitor", "podMonitor"] as const) {
      for (const m of want[kind]) expect(listed[kind].has(m), `${kind} ${m} in:\n${out}`).toBe(true);
    }
  });

  async function watchPods(): Promise<Proc> {
    const w = startProcess(KUBECTL, [...base(), "get", "pods", "-A", "-w"]);
    watchers.push(w);
    const t = await truth(demo.info);
    // the initial list is printed first: wait until the last agent pod is in it
    await waitFor("the initial list of kubectl get pods -w", () => t.collectors.every((c) => w.output().includes(c.id)), { timeoutMs: 15_000 });
    return w;
  }

  it("get pods -A -w streams a collector turning not Ready (READY 0/1)", async () => {
    const w = await watchPods();
    const t = await truth(demo.info);
    const node = nodeAt(t, 2);
    const pod = perNodeCollectorOn(t, node)!.id;
    const before = w.output().length;
    await fault(demo.info, { fault: "collector-not-ready", node });
    const line = await waitFor(
      `a watch line for ${pod} with READY 0/1`,
      () => w.output().slice(before).split("\n").find((l) => new RegExp(`\\s${pod}\\s+0/1\\s+Running\\s`).test(l)),
      { timeoutMs: 10_000, last: () => w.output().slice(before) },
    );
    expect(line).toMatch(/^amazon-cloudwatch\s/);
    // and the truth agrees
    expect((await truth(demo.info)).collectors.find((c) => c.id === pod)!.eligible).toBe(false);
    // DELETE /faults: the watch shows it Ready again
    const healedAt = w.output().length;
    expect((await heal(demo.info)).status).toBe(200);
    await waitFor(
      `a watch line for ${pod} with READY 1/1`,
      () => w.output().slice(healedAt).split("\n").some((l) => new RegExp(`\\s${pod}\\s+1/1\\s+Running\\s`).test(l)),
      { timeoutMs: 10_000, last: () => w.output().slice(healedAt) },
    );
  });

  it("get podmonitors fails while the PodMonitor CRD is missing, and works again after DELETE /faults", async () => {
    await fault(demo.info, { fault: "crd-missing", kind: "PodMonitor" });
    const err = await kubectl("get", "podmonitors", "-A").then(
      () => null,
      (e: { code?: number; stderr?: string }) => e,
    );
    expect(err, "kubectl get podmonitors succeeded without the CRD").not.toBeNull();
    expect(err!.stderr).toMatch(/podmonitors|could not find the requested resource/);
    expect(await kubectl("get", "servicemonitors", "-A")).toMatch(/servicemonitor|NAME/);
    await heal(demo.info);
    expect(await kubectl("get", "podmonitors", "-A")).toContain("node-exporter");
  });

  it("get pods -A -w streams the pods of an added node", async () => {
    const w = await watchPods();
    const before = w.output().length;
    const did = await fault(demo.info, { fault: "node-add" });
    const node = /node (\S+) added/.exec(did)?.[1];
    expect(node, did).toBeTruthy();
    const t = await waitFor("the new node's collector in /truth", async () => {
      const t = await truth(demo.info);
      return perNodeCollectorOn(t, node!) ? t : undefined;
    });
    const agent = perNodeCollectorOn(t, node!)!.id;
    const line = await waitFor(
      `a watch line for the new agent pod ${agent}`,
      () => w.output().slice(before).split("\n").find((l) => l.includes(agent)),
      { timeoutMs: 10_000, last: () => w.output().slice(before) },
    );
    expect(line).toMatch(/^amazon-cloudwatch\s/);
    // kubectl get node shows it too
    expect(await kubectl("get", "node", node!)).toContain(node!);
  });

  it("create -f, get leases -n NS and get lease NAME -o yaml work on the demo's Leases", async () => {
    const file = path.join(demo.dir, "lease.json");
    const lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "allocation-lens-demo", namespace: "allocation-lens", annotations: { "allocation-lens.io/address": "127.0.0.1:3000" } },
      spec: { holderIdentity: "lens-0", leaseDurationSeconds: 15, acquireTime: "2026-12-01T13:00:00.000000Z", renewTime: "2026-12-01T13:00:05.000000Z", leaseTransitions: 1 },
    };
    writeFileSync(file, JSON.stringify(lease));
    // --validate=false: the demo serves no OpenAPI document for kubectl's client-side schema check
    expect(await kubectl("create", "--validate=false", "-f", file)).toMatch(/lease\.coordination\.k8s\.io\/allocation-lens-demo created/);
    const table = await kubectl("get", "leases", "-n", "allocation-lens");
    expect(table).toMatch(/^NAME\s+HOLDER\s+AGE$/m);
    expect(table).toMatch(/^allocation-lens-demo\s+lens-0\s+\S+$/m);
    const yaml = await kubectl("get", "lease", "allocation-lens-demo", "-n", "allocation-lens", "-o", "yaml");
    expect(yaml).toMatch(/^kind: Lease$/m);
    expect(yaml).toMatch(/holderIdentity: lens-0/);
    expect(yaml).toMatch(/allocation-lens\.io\/address: 127\.0\.0\.1:3000/);
    expect(yaml).toMatch(/renewTime: "2026-12-01T13:00:05\.000000Z"/);
    expect(yaml).toMatch(/resourceVersion: "\d+"/);
    expect(await kubectl("get", "leases", "-A", "-o", "name")).toContain("lease.coordination.k8s.io/allocation-lens-demo");
    await expect(kubectl("get", "lease", "absent", "-n", "allocation-lens")).rejects.toThrow(/NotFound|not found/);
  });
});
