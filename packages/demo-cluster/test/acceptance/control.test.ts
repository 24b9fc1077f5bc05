/**
 * The control API contract (docs/ARCHITECTURE.md, "Fault injection"). Unknown faults and parameters are 400s
 * naming the problem; every named fault answers 200 and has its visible effect on /truth, on a TA or on the Kubernetes
 * API; DELETE /faults heals everything back to the calm truth. One demo process, healed and checked after every test.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import http from "node:http";
import {
  controlAuth,
  fault,
  heal,
  kubeGet,
  nodeAt,
  normalizeTruth,
  perNodeCollectorOn,
  postFault,
  queryEscape,
  startDemo,
  taGet,
  taJobs,
  taJobTargets,
  truth,
  type Demo,
  type TaInfo,
} from "./harness";
import { waitFor } from "@allocation-lens/test-support/wait";

type Pods = { items: { metadata: { name: string; namespace: string; labels?: Record<string, string> }; spec: { nodeName?: string } }[] };

const isMonitorJob = (j: string) => /^(serviceMonitor|podMonitor)\//.test(j);

describe("control API", () => {
  let demo: Demo;
  let calm: ReturnType<typeof normalizeTruth>;
  let calmJobs: Record<"per-node" | "cluster-scraper", string[]>;
  let perNode: TaInfo;
  let scraper: TaInfo;

  beforeAll(async () => {
    demo = await startDemo(["--nodes", "6", "--seed", "21"]);
    perNode = demo.info.targetAllocators["per-node"]!;
    scraper = demo.info.targetAllocators["cluster-scraper"]!;
    calm = normalizeTruth(await truth(demo.info));
    calmJobs = { "per-node": await taJobs(perNode), "cluster-scraper": await taJobs(scraper) };
  });

  afterEach(async () => {
    const a = await heal(demo.info);
    expect(a.status).toBe(200);
    let last: unknown;
    await waitFor(
      "the calm truth after DELETE /faults",
      async () => JSON.stringify((last = normalizeTruth(await truth(demo.info)))) === JSON.stringify(calm),
      { timeoutMs: 15_000, last: () => last },
    );
    // the TAs answer promptly and well-formed again, with the calm jobs
    const started = Date.now();
    expect({ "per-node": await taJobs(perNode), "cluster-scraper": await taJobs(scraper) }).toEqual(calmJobs);
    expect(Date.now() - started).toBeLessThan(2000); // ta-slow below is 2500 ms
    expect((await (await fetch(`${demo.info.control}/faults`, { headers: controlAuth(demo.info) })).json()) as unknown).toEqual({ active: [] });
  });
  afterAll(async () => demo?.stop());

  describe("validation", () => {
    it.each([
      [{ fault: "collector-on-fire", node: "x" }, /collector-on-fire/],
      [{ node: "x" }, /unknown fault/],
      [{ fault: "ta-slow", role: "per-node", ms: 10, colour: "red" }, /colour/],
      [{ fault: "collector-not-ready" }, /node/],
      [{ fault: "ta-slow", role: "everyone", ms: 10 }, /role/],
      [{ fault: "collector-not-ready", node: "no-such-node" }, /no-such-node/],
      [{ fault: "node-remove", node: "no-such-node" }, /no-such-node/],
      [{ fault: "crd-missing", kind: "Deployment" }, /kind/],
    ])("%j -> 400 naming the problem", async (body, naming) => {
      const a = await postFault(demo.info, body);
      expect(a.status).toBe(400);
      expect(a.json<{ error: string }>().error).toMatch(naming);
    });

    it("a body that is not JSON is a 400", async () => {
      const r = await fetch(`${demo.info.control}/faults`, { method: "POST", headers: controlAuth(demo.info), body: "{fault:", signal: AbortSignal.timeout(5000) });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toMatch(/JSON/);
    });

    it("GET /faults lists what was applied", async () => {
      await fault(demo.info, { fault: "ta-slow", role: "cluster-scraper", ms: 1 });
      expect((await (await fetch(`${demo.info.control}/faults`, { headers: controlAuth(demo.info) })).json()) as unknown).toEqual({ active: [{ fault: "ta-slow", role: "cluster-scraper", ms: 1 }] });
    });
  });

  describe("access: a page the demo's user visits cannot drive it (CSRF, DNS rebinding)", () => {
    /** A raw request with exactly these headers (fetch would set Host and may add Origin itself). */
    const call = (method: string, path: string, headers: Record<string, string>, body?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const u = new URL(demo.info.control);
        const req = http.request({ host: u.hostname, port: u.port, method, path, headers, agent: false, setHost: false }, (res) => {
          let text = "";
          res.on("data", (c) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on("error", reject);
        req.end(body);
      });
    const host = () => new URL(demo.info.control).host;
    const fault = JSON.stringify({ fault: "ta-outage", role: "per-node", seconds: 30 });

    it("the JSON line and the generated configuration carry the per-run token; the file is private", async () => {
      expect(demo.info.controlToken).toMatch(/^[A-Za-z0-9_-]{32,}$/);
      const file = String(demo.info.controlTokenFile);
      expect(fs.readFileSync(file, "utf8").trim()).toBe(demo.info.controlToken);
      expect(fs.statSync(file).mode & 0o077).toBe(0);
      expect(fs.readFileSync(demo.info.dashboardConfig, "utf8")).toContain(`controlTokenFile: ${file}`);
      expect(fs.readFileSync(demo.info.dashboardConfig, "utf8")).not.toContain(demo.info.controlToken);
    });

    it("refuses every route without the token, or with a wrong one (401), and applies nothing", async () => {
      for (const [method, path, body] of [["POST", "/faults", fault], ["DELETE", "/faults"], ["GET", "/faults"], ["GET", "/truth"], ["POST", "/scenario", '{"name":"demo"}']] as const) {
        for (const auth of [{}, { Authorization: "Bearer wrong" }, { Authorization: `Bearer ${demo.info.controlToken}x` }] as Record<string, string>[]) {
          const r = await call(method, path, { Host: host(), "Content-Type": "application/json", ...auth }, body);
          expect(r.status, `${method} ${path} ${JSON.stringify(auth)}`).toBe(401);
          expect(r.body).not.toContain(demo.info.controlToken);
        }
      }
      expect((await call("GET", "/faults", { Host: host(), ...controlAuth(demo.info) })).body).toContain('"active":[]');
    });

    it("refuses, with the right token, a Host that is not its own loopback host:port (a DNS-rebound name) and a foreign Origin", async () => {
      const auth = { ...controlAuth(demo.info), "Content-Type": "application/json" };
      const port = new URL(demo.info.control).port;
      for (const h of [`evil.example:${port}`, `localhost.evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, "127.0.0.1"]) {
        expect((await call("POST", "/faults", { ...auth, Host: h }, fault)).status, h).toBe(403);
      }
      for (const o of ["http://evil.example", "null", `http://localhost:${port}`, `https://${host()}`]) {
        expect((await call("POST", "/faults", { ...auth, Host: host(), Origin: o }, fault)).status, o).toBe(403);
      }
      expect((await call("GET", "/faults", { ...auth, Host: host(), Origin: `http://${host()}` })).status).toBe(200);
      expect((await call("GET", "/faults", { ...controlAuth(demo.info), Host: host() })).body).toContain('"active":[]');
    });
  });

  describe("each fault has its visible effect", () => {
    it("collector-not-ready: the pod turns not Ready in Kubernetes and leaves the TA", async () => {
      const t0 = await truth(demo.info);
      const node = nodeAt(t0, 0);
      const pod = perNodeCollectorOn(t0, node)!.id;
      await fault(demo.info, { fault: "collector-not-ready", node });
      const p = await kubeGet<{ status: { phase: string; conditions: { type: string; status: string }[] } }>(demo.info, `/api/v1/namespaces/amazon-cloudwatch/pods/${pod}`);
      expect(p.body.status.phase).toBe("Running");
      expect(p.body.status.conditions.find((c) => c.type === "Ready")?.status).toBe("False");
      await waitFor("the pod to be unregistered", async () => !(await truth(demo.info)).registered["per-node"]!.includes(pod));
    });

    it("collector-crashloop: the pod restarts, is not eligible, and leaves the TA", async () => {
      const t0 = await truth(demo.info);
      const node = nodeAt(t0, 1);
      const pod = perNodeCollectorOn(t0, node)!.id;
      await fault(demo.info, { fault: "collector-crashloop", node });
      const p = await kubeGet<{ status: { containerStatuses?: { restartCount: number }[] } }>(demo.info, `/api/v1/namespaces/amazon-cloudwatch/pods/${pod}`);
      expect(p.body.status.containerStatuses?.[0]?.restartCount).toBeGreaterThan(0);
      const t = await waitFor("the crash-looping pod to be unregistered", async () => {
        const t = await truth(demo.info);
        return t.registered["per-node"]!.includes(pod) ? undefined : t;
      });
      expect(t.collectors.find((c) => c.id === pod)!.eligible).toBe(false);
      expect(t.targets.filter((x) => x.collector === pod)).toEqual([]);
    });

    it("node-add {zone}: a node in that zone with its agent pod, registered by the TA", async () => {
      const did = await fault(demo.info, { fault: "node-add", zone: "us-east-1b" });
      const node = /node (\S+) added/.exec(did)?.[1];
      expect(node, did).toBeTruthy();
      const n = await kubeGet<{ metadata: { labels: Record<string, string> } }>(demo.info, `/api/v1/nodes/${node}`);
      expect(n.status).toBe(200);
      expect(n.body.metadata.labels["topology.kubernetes.io/zone"]).toBe("us-east-1b");
      const pods = await kubeGet<Pods>(demo.info, "/api/v1/namespaces/amazon-cloudwatch/pods");
      const agents = pods.body.items.filter((p) => p.spec.nodeName === node);
      expect(agents).toHaveLength(1);
      const t = await waitFor("the new agent to be registered", async () => {
        const t = await truth(demo.info);
        return t.registered["per-node"]!.includes(agents[0].metadata.name) ? t : undefined;
      });
      expect(perNodeCollectorOn(t, node!)).toMatchObject({ id: agents[0].metadata.name, eligible: true });
      expect(t.collectors.filter((c) => c.role === "per-node")).toHaveLength(7);
    });

    it("node-remove: the node and its pods are gone, and so are its targets", async () => {
      const t0 = await truth(demo.info);
      const node = nodeAt(t0, 4);
      const pod = perNodeCollectorOn(t0, node)!.id;
      expect(t0.targets.some((x) => x.node === node)).toBe(true);
      await fault(demo.info, { fault: "node-remove", node });
      expect((await kubeGet(demo.info, `/api/v1/nodes/${node}`)).status).toBe(404);
      const pods = await kubeGet<Pods>(demo.info, "/api/v1/pods");
      expect(pods.body.items.filter((p) => p.spec.nodeName === node)).toEqual([]);
      const t = await waitFor("the node's targets and collector to leave the TA", async () => {
        const t = await truth(demo.info);
        return !t.targets.some((x) => x.node === node) && !t.registered["per-node"]!.includes(pod) ? t : undefined;
      });
      expect(t.collectors.some((c) => c.node === node)).toBe(false);
      expect(t.unassigned).toEqual({ "per-node": 0, "cluster-scraper": 0 });
    });

    it("rollout {per-node}: two agent pods on a node for a while, then the new pod takes the node's targets", async () => {
      await fault(demo.info, { fault: "rollout", role: "per-node" });
      const pods = await waitFor("two per-node agent pods on one node", async () => {
        const t = await truth(demo.info);
        const byNode = new Map<string, string[]>();
        for (const c of t.collectors.filter((c) => c.role === "per-node")) byNode.set(c.node, [...(byNode.get(c.node) ?? []), c.id]);
        return [...byNode.entries()].find(([, ids]) => ids.length === 2);
      });
      const [node, ids] = pods;
      const k = await kubeGet<Pods>(demo.info, "/api/v1/namespaces/amazon-cloudwatch/pods");
      const onNode = k.body.items.filter((p) => p.spec.nodeName === node && p.metadata.labels?.["app.kubernetes.io/component"] === "amazon-cloudwatch-agent");
      expect(onNode.map((p) => p.metadata.name).sort()).toEqual(expect.arrayContaining([...ids].sort()));
      // node targets are held by exactly one of its pods at a time, and end up on the new revision's pod
      const holdersOn = async () => new Set((await truth(demo.info)).targets.filter((x) => x.role === "per-node" && x.node === node).map((x) => x.collector));
      expect((await holdersOn()).size).toBe(1);
      const calmIds = new Set(calm.collectors.map((c) => (JSON.parse(c) as { id: string }).id));
      const fresh = ids.find((id) => !calmIds.has(id))!;
      expect(fresh).toBeTruthy();
      await waitFor(`the new pod ${fresh} to hold ${node}'s targets`, async () => {
        const h = await holdersOn();
        return h.size === 1 && h.has(fresh);
      }, { timeoutMs: 10_000 });
    });

    it("annotate-monitor: the monitor's jobs move from the per-node TA to the cluster-scraper TA, and back", async () => {
      const job = calmJobs["per-node"].find((j) => j.startsWith("serviceMonitor/"))!;
      const [, namespace, name] = job.split("/");
      const jobsOf = (list: string[]) => list.filter((j) => j.startsWith(`serviceMonitor/${namespace}/${name}/`));
      const own = jobsOf(calmJobs["per-node"]);
      expect(own.length).toBeGreaterThan(0);
      expect(jobsOf(calmJobs["cluster-scraper"])).toEqual([]);
      await fault(demo.info, { fault: "annotate-monitor", namespace, name, value: "cluster-scraper" });
      const m = await kubeGet<{ metadata: { annotations: Record<string, string> } }>(demo.info, `/apis/monitoring.coreos.com/v1/namespaces/${namespace}/servicemonitors/${name}`);
      expect(m.body.metadata.annotations["cloudwatch.aws.amazon.com/scraper"]).toBe("cluster-scraper");
      await waitFor("the monitor's jobs to move to the cluster-scraper TA", async () => {
        const [p, s] = [await taJobs(perNode), await taJobs(scraper)];
        return jobsOf(p).length === 0 && JSON.stringify(jobsOf(s)) === JSON.stringify(own);
      });
      const t = await truth(demo.info);
      expect(new Set(t.targets.filter((x) => own.includes(x.job)).map((x) => x.role))).toEqual(new Set(["cluster-scraper"]));
    });

    it("routing-off {cluster-scraper}: that TA lists every monitor job (double scrape)", async () => {
      const perNodeMonitors = calmJobs["per-node"].filter(isMonitorJob);
      expect(perNodeMonitors.length).toBeGreaterThan(0);
      expect(calmJobs["cluster-scraper"].filter((j) => perNodeMonitors.includes(j))).toEqual([]);
      await fault(demo.info, { fault: "routing-off", role: "cluster-scraper" });
      const s = await waitFor("the cluster-scraper TA to list the per-node monitors", async () => {
        const s = await taJobs(scraper);
        return perNodeMonitors.every((j) => s.includes(j)) ? s : undefined;
      });
      expect(s.filter(isMonitorJob).sort()).toEqual([...new Set([...perNodeMonitors, ...calmJobs["cluster-scraper"].filter(isMonitorJob)])].sort());
      expect(await taJobs(perNode)).toEqual(calmJobs["per-node"]);
    });

    it("ta-outage: the TA refuses connections, then recovers by itself", async () => {
      const applied = Date.now();
      await fault(demo.info, { fault: "ta-outage", role: "per-node", seconds: 2 });
      await expect(taGet(perNode, "/livez", 2000)).rejects.toThrow();
      expect((await taGet(scraper, "/livez")).status).toBe(200);
      await waitFor("the TA to answer again", async () => (await taGet(perNode, "/livez", 1000)).status === 200, { timeoutMs: 8000, intervalMs: 250 });
      expect(Date.now() - applied).toBeGreaterThanOrEqual(1500);
    });

    it("ta-slow: answers are delayed by the given ms", async () => {
      await fault(demo.info, { fault: "ta-slow", role: "per-node", ms: 2500 });
      const started = Date.now();
      expect((await taGet(perNode, "/jobs", 5000)).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2400);
      const s = Date.now();
      await taGet(scraper, "/jobs");
      expect(Date.now() - s).toBeLessThan(2000); // the other TA is not slowed
    });

    it("ta-malformed: /jobs is 200 with invalid JSON", async () => {
      await fault(demo.info, { fault: "ta-malformed", role: "per-node" });
      const a = await taGet(perNode, "/jobs");
      expect(a.status).toBe(200);
      expect(() => JSON.parse(a.body)).toThrow();
      const sd = await taGet(perNode, `/jobs/${queryEscape(calmJobs["per-node"][0])}/targets`);
      const parsed = (() => {
        try {
          return JSON.parse(sd.body) as Record<string, { targets: unknown }>;
        } catch {
          return null;
        }
      })();
      expect(parsed === null || Object.values(parsed).some((v) => !Array.isArray(v.targets))).toBe(true);
    });

    it("crd-missing {PodMonitor}: the Kubernetes API answers 404 and the TAs drop podMonitor jobs", async () => {
      expect(calmJobs["per-node"].some((j) => j.startsWith("podMonitor/"))).toBe(true);
      expect((await kubeGet(demo.info, "/apis/monitoring.coreos.com/v1/podmonitors")).status).toBe(200);
      await fault(demo.info, { fault: "crd-missing", kind: "PodMonitor" });
      expect((await kubeGet(demo.info, "/apis/monitoring.coreos.com/v1/podmonitors")).status).toBe(404);
      expect((await kubeGet(demo.info, "/apis/monitoring.coreos.com/v1/servicemonitors")).status).toBe(200);
      await waitFor("no podMonitor job in either TA", async () => {
        const all = [...(await taJobs(perNode)), ...(await taJobs(scraper))];
        return !all.some((j) => j.startsWith("podMonitor/"));
      });
      const t = await truth(demo.info);
      expect(t.targets.filter((x) => x.job.startsWith("podMonitor/"))).toEqual([]);
      expect(t.targets.some((x) => x.job.startsWith("serviceMonitor/"))).toBe(true);
    });

    it("hostile-target {per-node}: a job whose name carries markup, served and addressable", async () => {
      await fault(demo.info, { fault: "hostile-target", role: "per-node" });
      const job = await waitFor("a job with markup in the per-node TA", async () => (await taJobs(perNode)).find((j) => j.includes("<img")));
      expect(job).toMatch(/["'<>]/);
      expect(job).toContain("../");
      expect(job).toContain("%2F");
      const t = await truth(demo.info);
      const target = t.targets.find((x) => x.job === job);
      expect(target?.collector).toBeTruthy();
      const map = await taJobTargets(perNode, job);
      expect(map[target!.collector!]).toEqual([target!.address]);
      expect(await taJobs(scraper)).toEqual(calmJobs["cluster-scraper"]);
    });
  });
});
