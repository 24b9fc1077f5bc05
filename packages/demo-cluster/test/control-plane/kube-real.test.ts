/**
 * The demo on a real control plane (`npm run demo-cluster -- --kube real --flavor upstream --ta real`): the CLI starts
 * etcd, kube-apiserver and upstream's allocator; the real kubectl, with the kubeconfig it prints, names the server's
 * version and lists the world the demo wrote; RBAC refuses every demo identity what would make the server dial anything,
 * and none of them is in system:masters.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import YAML from "yaml";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { KUBECTL, startDemo, truth, type Demo } from "../acceptance/harness";
import { kubeRealSuite } from "@allocation-lens/test-support/real-ta";
import { DIALING_SUBRESOURCES } from "../../src/kube-real/rbac";

const run = promisify(execFile);

kubeRealSuite("the demo on a real kube-apiserver and etcd", () => {
  let demo: Demo;
  const kubectl = async (kubeconfig: string, ...args: string[]) =>
    run(KUBECTL, ["--kubeconfig", kubeconfig, "--cache-dir", path.join(demo.dir, "kubectl-cache"), ...args], { timeout: 20_000, maxBuffer: 64 << 20 });
  const kubeconfigs = () => ({
    demo: demo.info.kubeconfig,
    targetAllocator: path.join(demo.dir, "control-plane", "kubeconfig-target-allocator.yaml"),
    dashboard: path.join(demo.dir, "control-plane", "kubeconfig-dashboard.yaml"),
  });

  beforeAll(async () => {
    if (!existsSync(KUBECTL)) throw new Error(`${KUBECTL} is not installed (Debian's kubernetes-client)`);
    demo = await startDemo(["--kube", "real", "--flavor", "upstream", "--ta", "real", "--nodes", "12"], 300_000);
  }, 320_000);
  afterAll(async () => {
    await demo?.stop();
  });

  it("prints the real API server's kubeconfig and etcd's URL, both on loopback", () => {
    expect(demo.info.kubeApi).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(demo.info.etcd).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const kc = YAML.parse(readFileSync(demo.info.kubeconfig, "utf8")) as { clusters: { cluster: { server: string } }[] };
    expect(kc.clusters.map((c) => c.cluster.server)).toEqual([demo.info.kubeApi]);
  });

  it("kubectl version names v1.37.2", async () => {
    const { stdout } = await kubectl(demo.info.kubeconfig, "version", "-o", "json");
    expect((JSON.parse(stdout) as { serverVersion: { gitVersion: string } }).serverVersion.gitVersion).toBe("v1.37.2");
  });

  it("kubectl get nodes,pods -A lists the world the demo wrote, every agent pod on its node with its readiness", async () => {
    const t = await truth(demo.info);
    const { stdout } = await kubectl(demo.info.kubeconfig, "get", "nodes,pods", "-A", "-o", "json");
    const items = (JSON.parse(stdout) as { items: { kind: string; metadata: { name: string }; spec: { nodeName?: string }; status: { conditions?: { type: string; status: string }[] } }[] }).items;
    const nodes = items.filter((i) => i.kind === "Node");
    const pods = new Map(items.filter((i) => i.kind === "Pod").map((p) => [p.metadata.name, p]));
    expect(nodes).toHaveLength(12);
    expect(new Set(t.collectors.map((c) => c.node))).toEqual(new Set(nodes.map((n) => n.metadata.name)));
    for (const c of t.collectors) {
      const p = pods.get(c.id);
      expect(p, c.id).toBeDefined();
      expect(p!.spec.nodeName).toBe(c.node);
      // its status came through the status subresource: the Ready condition the demo wrote
      expect(p!.status.conditions?.find((x) => x.type === "Ready")?.status, c.id).toBe(c.eligible ? "True" : "False");
    }
    expect(pods.has(t.taPods["per-node"]!)).toBe(true);
    // the monitors were taken by their CRDs' schemas
    const monitors = await kubectl(demo.info.kubeconfig, "get", "servicemonitors,podmonitors", "-A", "-o", "name");
    expect(monitors.stdout.trim().split("\n").length).toBeGreaterThan(5);
  });

  it("RBAC refuses every demo identity what would make the server connect anywhere, and none is in system:masters", async () => {
    const ns = "opentelemetry";
    const identities = { ...kubeconfigs(), viewer: demo.info.kubeconfig };
    for (const [who, kc] of Object.entries(identities)) {
      const ctx = who === "viewer" ? ["--context", "allocation-lens-demo-no-portforward"] : [];
      const { stdout } = await kubectl(kc, ...ctx, "auth", "whoami", "-o", "json");
      const groups = (JSON.parse(stdout) as { status: { userInfo: { groups?: string[] } } }).status.userInfo.groups ?? [];
      expect(groups, who).not.toContain("system:masters");
      for (const d of DIALING_SUBRESOURCES) {
        // `kubectl auth can-i` asks the server's own authorizer (a SelfSubjectAccessReview): nothing is dialled. It reads
        // "pods/log" as the pod named log: the subresource goes in --subresource
        const [resource, subresource] = d.resource.split("/");
        const scope = resource === "nodes" ? [] : ["-n", ns];
        const answer = await kubectl(kc, ...ctx, "auth", "can-i", d.verb, resource, `--subresource=${subresource}`, ...scope).then(
          (r) => r.stdout.trim(),
          (e: { stdout?: string }) => (e.stdout ?? "").trim(),
        );
        expect(answer, `${who}: ${d.verb} ${d.resource}`).toBe("no");
      }
    }
    // and the check can say yes: the demo's writer may write a pod's status, and create pods (the same verb as exec)
    expect((await kubectl(demo.info.kubeconfig, "auth", "can-i", "update", "pods", "--subresource=status", "-n", ns)).stdout.trim()).toBe("yes");
    expect((await kubectl(demo.info.kubeconfig, "auth", "can-i", "create", "pods", "-n", ns)).stdout.trim()).toBe("yes");
  });
});
