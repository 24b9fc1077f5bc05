/**
 * The demo's own Kubernetes API held to kube-apiserver. On `--kube real` the demo keeps its own API running beside the
 * real one, and its writer keeps the same world on both; so the same request can go to each, with the same credentials'
 * role (the writer, or the restricted viewer), and the answers can be compared.
 *
 * The requests are those the dashboard (client-node informers), upstream's allocator (client-go informers and
 * prometheus-operator), kubectl (Tables) and Prometheus's Kubernetes discovery make: lists with label and field
 * selectors, pagination, metadata-only lists, Tables, the watch-list protocol, watches from a resourceVersion, and the
 * errors they meet as `Status` bodies (403, 404, 409, 410, 422, 400). What is compared is what those clients read: the
 * envelope (kind, apiVersion, which list metadata is there), which objects come back, every field the demo serves (the
 * real server must hold the same value there; what it adds on its own, its defaults, is not a difference), and for an
 * error its code, reason, message and details. Every difference left is listed in KNOWN below, with its reason, and in
 * docs/faithfulness.md; a new one fails the test.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import http from "node:http";
import https from "node:https";
import * as k8s from "@kubernetes/client-node";
import { startDemoCluster, type DemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";
import { kubeRealSuite } from "@allocation-lens/test-support/real-ta";

interface Answer {
  status: number;
  text: string;
  body: unknown;
}
interface Req {
  method?: string;
  path: string;
  accept?: string;
  body?: unknown;
  viewer?: boolean;
}
type Send = (r: Req) => Promise<Answer>;

const WRITER = "allocation-lens-demo";
const VIEWER = "allocation-lens-demo-no-portforward";
const KUBECTL_TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

/** A client of one API server through client-node's KubeConfig (its TLS and credentials), for one context per role. */
async function sender(kubeconfig: string): Promise<Send> {
  const opts = new Map<string, { server: URL; options: https.RequestOptions }>();
  for (const context of [WRITER, VIEWER]) {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    kc.setCurrentContext(context);
    const options: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(options);
    opts.set(context, { server: new URL(kc.getCurrentCluster()!.server), options });
  }
  return (r) => {
    const { server, options } = opts.get(r.viewer ? VIEWER : WRITER)!;
    const url = new URL(r.path, server);
    const payload = r.body === undefined ? undefined : Buffer.from(JSON.stringify(r.body));
    const lib = url.protocol === "https:" ? https : http;
    return new Promise<Answer>((resolve, reject) => {
      const req = lib.request(
        url,
        {
          ...options,
          method: r.method ?? "GET",
          headers: { ...(options.headers ?? {}), accept: r.accept ?? "application/json", ...(payload ? { "content-type": "application/json", "content-length": payload.length } : {}) },
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let body: unknown = null;
            const lines = text.split("\n").filter((l) => l.trim() !== "");
            try {
              // a watch that the server accepted: one JSON event per line
              body = url.searchParams.get("watch") === "1" && res.statusCode === 200 ? lines.map((l) => JSON.parse(l)) : JSON.parse(text);
            } catch {
              body = null;
            }
            resolve({ status: res.statusCode ?? 0, text, body });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${r.path}: no answer in 30 s`)));
      req.on("error", reject);
      req.end(payload);
    });
  };
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
/** Server-assigned, per-server values: present on both, compared by type only. */
const PER_SERVER = new Set(["uid", "resourceVersion", "creationTimestamp", "continue", "selfLink"]);
/** What only kube-apiserver keeps: server-side apply's bookkeeping and the object generation counters. */
const REAL_ONLY_META = new Set(["managedFields", "generation"]);

/** Every leaf of the demo's value that is missing or different in the real server's value (paths, with both values). */
function fieldDiffs(where: string, demo: unknown, real: unknown, out: string[]): void {
  if (isObj(demo)) {
    if (!isObj(real)) return void out.push(`${where}: demo ${JSON.stringify(demo).slice(0, 80)}, real ${JSON.stringify(real)?.slice(0, 80)}`);
    for (const [k, v] of Object.entries(demo)) {
      if (PER_SERVER.has(k)) {
        if (typeof real[k] !== typeof v) out.push(`${where}.${k}: demo ${typeof v}, real ${typeof real[k]}`);
        continue;
      }
      fieldDiffs(`${where}.${k}`, v, real[k], out);
    }
    return;
  }
  if (Array.isArray(demo)) {
    if (!Array.isArray(real) || real.length !== demo.length) return void out.push(`${where}: demo ${demo.length} entries, real ${Array.isArray(real) ? real.length : typeof real}`);
    demo.forEach((v, i) => fieldDiffs(`${where}[${i}]`, v, real[i], out));
    return;
  }
  if (JSON.stringify(demo) !== JSON.stringify(real)) out.push(`${where}: demo ${JSON.stringify(demo)}, real ${JSON.stringify(real)}`);
}

const itemKey = (o: Json) => {
  const m = (o.metadata ?? {}) as Json;
  return `${m.namespace ? `${m.namespace as string}/` : ""}${m.name as string}`;
};
const metaKeys = (o: unknown) => Object.keys(((o as Json).metadata ?? {}) as Json).filter((k) => !REAL_ONLY_META.has(k)).sort();

/** A Status body as clients read it: the same code, reason, message and details on both. */
function statusDiffs(what: string, demo: Answer, real: Answer, out: string[]): void {
  if (demo.status !== real.status) out.push(`${what}: HTTP ${demo.status} from the demo, ${real.status} from kube-apiserver`);
  const pick = (b: unknown) => {
    const s = (isObj(b) ? b : {}) as Json;
    return { kind: s.kind, apiVersion: s.apiVersion, status: s.status, reason: s.reason, code: s.code, message: s.message, details: s.details };
  };
  const d = pick(demo.body);
  const r = pick(real.body);
  for (const k of Object.keys(d) as (keyof typeof d)[]) if (JSON.stringify(d[k]) !== JSON.stringify(r[k])) out.push(`${what}: Status.${k}: demo ${JSON.stringify(d[k])}, real ${JSON.stringify(r[k])}`);
}

/** Differences known and kept, each with its reason (docs/faithfulness.md, "The demo's API against kube-apiserver"). */
const KNOWN: { match: RegExp; why: string }[] = [
  { match: /^GET \/api\/v1\/namespaces: only on kube-apiserver: kube-node-lease$/, why: "kube-apiserver creates kube-node-lease for the kubelets' heartbeat Leases; the demo runs no kubelet" },
  { match: /^GET \/api\/v1\/services\?.*: only on kube-apiserver: default\/kubernetes$/, why: "the API server's own Service, default/kubernetes: nothing in the demo reads it" },
  {
    match: /^GET \/api\/v1\/configmaps: only on kube-apiserver: kube-system\/extension-apiserver-authentication, kube-system\/kube-apiserver-legacy-service-account-token-tracking$/,
    why: "ConfigMaps kube-apiserver writes for itself in kube-system",
  },
  {
    match: /^list at a compacted resourceVersion \(Exact\): /,
    why: "kube-apiserver's watch cache keeps recent states across an etcd compaction and serves an Exact list from them until it restarts; the demo keeps no old states and answers 410, which sends a client to a fresh list",
  },
  {
    match: /^watch from a compacted resourceVersion: demo 410, real null /,
    why: "kube-apiserver's watch cache replays recent events across an etcd compaction until it restarts (then 410, held in compaction-restart.test.ts); the demo's compaction drops its event log at once",
  },
  { match: /^400 a label selector that does not parse: Status\.message: /, why: "the same 400 BadRequest; the parse error's wording differs (the demo's selector parser is its own)" },
];

kubeRealSuite("the demo's Kubernetes API held to kube-apiserver", (kube) => {
  let demo: DemoCluster;
  let toDemo: Send;
  let toReal: Send;
  const found: string[] = [];
  const both = async (r: Req) => [await toDemo(r), await toReal(r)] as const;

  beforeAll(async () => {
    demo = await startDemoCluster({ kube: "real", kubeReal: kube, flavor: "upstream", nodes: 6, seed: 5 });
    toDemo = await sender(demo.kube.kubeconfigPath);
    toReal = await sender(demo.controlPlane!.kubeconfigs.demo);
  }, 180_000);
  afterAll(async () => {
    await demo?.close();
  });

  /** A list on both: its envelope, its objects, and every field the demo serves. */
  async function compareList(path: string, accept?: string): Promise<[Json, Json]> {
    const [d, r] = await both({ path, accept });
    if (d.status !== 200 || r.status !== 200) {
      statusDiffs(`GET ${path}`, d, r, found);
      return [{}, {}];
    }
    const db = d.body as Json;
    const rb = r.body as Json;
    for (const k of ["kind", "apiVersion"]) if (db[k] !== rb[k]) found.push(`GET ${path}: ${k}: demo ${String(db[k])}, real ${String(rb[k])}`);
    if (JSON.stringify(metaKeys(db)) !== JSON.stringify(metaKeys(rb))) found.push(`GET ${path}: list metadata: demo [${metaKeys(db).join(",")}], real [${metaKeys(rb).join(",")}]`);
    const di = (db.items ?? db.rows ?? []) as Json[];
    const ri = (rb.items ?? rb.rows ?? []) as Json[];
    const names = (xs: Json[]) => xs.map((x) => itemKey((x.object as Json | undefined) ?? x));
    const [dn, rn] = [names(di), names(ri)];
    const onlyReal = rn.filter((n) => !dn.includes(n));
    const onlyDemo = dn.filter((n) => !rn.includes(n));
    if (onlyReal.length) found.push(`GET ${path}: only on kube-apiserver: ${onlyReal.join(", ")}`);
    if (onlyDemo.length) found.push(`GET ${path}: only on the demo: ${onlyDemo.join(", ")}`);
    const common = (xs: string[], other: string[]) => xs.filter((n) => other.includes(n)).join(" ");
    if (common(dn, rn) !== common(rn, dn)) found.push(`GET ${path}: another order: demo ${dn.slice(0, 3).join(", ")}..., real ${rn.slice(0, 3).join(", ")}...`);
    const byKey = new Map(ri.map((x) => [itemKey((x.object as Json | undefined) ?? x), x]));
    const diffs: string[] = [];
    for (const x of di) {
      const y = byKey.get(itemKey((x.object as Json | undefined) ?? x));
      if (y) fieldDiffs("", x, y, diffs);
    }
    // one line per differing field path, over all the objects
    for (const p of new Set(diffs.map((s) => s.replace(/\[\d+\]/g, "[]").split(":")[0]))) found.push(`GET ${path}: field ${p}: ${diffs.find((s) => s.replace(/\[\d+\]/g, "[]").startsWith(`${p}:`))!.split(": ").slice(1).join(": ")}`);
    return [db, rb];
  }

  it("lists, as the dashboard, the allocators and Prometheus's discovery make them: the same objects and fields", async () => {
    const node = demo.store.list("nodes").map((n) => n.metadata.name).sort()[0];
    const agents = Object.entries(demo.world.agents["per-node"].selector).map(([k, v]) => `${k}=${v}`).join(",");
    const ns = demo.world.namespace;
    for (const p of [
      "/api/v1/nodes",
      "/api/v1/namespaces",
      `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(agents)}`,
      `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`,
      `/api/v1/pods?labelSelector=${encodeURIComponent(`${agents.split(",")[0].split("=")[0]}!=x`)}&fieldSelector=${encodeURIComponent("status.phase=Running")}`,
      "/api/v1/services?limit=500&resourceVersion=0",
      "/api/v1/endpoints?limit=500&resourceVersion=0",
      "/apis/discovery.k8s.io/v1/endpointslices?limit=500&resourceVersion=0",
      "/apis/apps/v1/deployments",
      "/apis/apps/v1/daemonsets",
      "/api/v1/configmaps",
      "/apis/monitoring.coreos.com/v1/servicemonitors",
      "/apis/monitoring.coreos.com/v1/podmonitors",
    ]) {
      const [d] = await compareList(p);
      expect(((d.items ?? []) as unknown[]).length, p).toBeGreaterThan(0);
    }
  });

  it("pagination: limit and continue give every object once, with remainingItemCount", async () => {
    const walk = async (send: Send) => {
      const names: string[] = [];
      const remaining: unknown[] = [];
      let cont = "";
      for (let i = 0; i < 100; i++) {
        const a = await send({ path: `/api/v1/pods?limit=40${cont ? `&continue=${encodeURIComponent(cont)}` : ""}` });
        expect(a.status, a.text.slice(0, 200)).toBe(200);
        const b = a.body as { items: Json[]; metadata: { continue?: string; remainingItemCount?: number } };
        names.push(...b.items.map(itemKey));
        remaining.push(b.metadata.remainingItemCount ?? null);
        cont = b.metadata.continue ?? "";
        if (!cont) break;
      }
      return { names, remaining };
    };
    const [d, r] = [await walk(toDemo), await walk(toReal)];
    expect(d.names.length).toBeGreaterThan(40);
    if (JSON.stringify(d) !== JSON.stringify(r)) found.push(`paginated pods: demo ${JSON.stringify(d.remaining)}, real ${JSON.stringify(r.remaining)}; ${d.names.length} and ${r.names.length} objects`);
  });

  it("kubectl's Tables and metadata-only lists", async () => {
    const workloads = [`/apis/apps/v1/namespaces/${demo.world.namespace}/daemonsets?limit=500`, `/apis/apps/v1/namespaces/${demo.world.namespace}/deployments?limit=500`];
    for (const p of ["/api/v1/nodes?limit=500", `/api/v1/namespaces/${demo.world.namespace}/pods?limit=500`, `/apis/coordination.k8s.io/v1/namespaces/${demo.world.namespace}/leases?limit=500`, ...workloads]) {
      const [d, r] = await both({ path: p, accept: KUBECTL_TABLE });
      if (d.status !== 200 || r.status !== 200) {
        statusDiffs(`Table ${p}`, d, r, found);
        continue;
      }
      const cols = (b: unknown) => ((b as Json).columnDefinitions as Json[]).map((c) => `${c.name as string}:${c.type as string}:${c.priority as number}`);
      const db = d.body as Json;
      const rb = r.body as Json;
      for (const k of ["kind", "apiVersion"]) if (db[k] !== rb[k]) found.push(`Table ${p}: ${k}: demo ${String(db[k])}, real ${String(rb[k])}`);
      if (JSON.stringify(cols(db)) !== JSON.stringify(cols(rb))) found.push(`Table ${p}: columns: demo ${cols(db).join(" ")}, real ${cols(rb).join(" ")}`);
      const rows = (b: Json) => (b.rows as Json[]).map((x) => `${((x.object as Json).kind as string) ?? ""} ${String((x.cells as unknown[])[0])}`);
      if (JSON.stringify(rows(db)) !== JSON.stringify(rows(rb))) found.push(`Table ${p}: rows: demo ${rows(db).slice(0, 3).join(", ")}, real ${rows(rb).slice(0, 3).join(", ")}`);
      // the workloads' counts (what `kubectl get ds,deploy` shows): the status the demo's controllers wrote, read back
      if (workloads.includes(p)) {
        // every cell before the Age column (name and counts; the Age of an object the two servers created apart may differ)
        const counts = (b: Json) => {
          const age = (b.columnDefinitions as Json[]).findIndex((c) => c.name === "Age");
          return (b.rows as Json[]).map((x) => (x.cells as unknown[]).slice(0, age).join(" "));
        };
        expect((db.rows as Json[]).length, p).toBeGreaterThan(0);
        if (JSON.stringify(counts(db)) !== JSON.stringify(counts(rb))) found.push(`Table ${p}: cells: demo ${counts(db).join(", ")}, real ${counts(rb).join(", ")}`);
      }
    }
    for (const p of ["/api/v1/namespaces", "/api/v1/secrets", `/api/v1/namespaces/${demo.world.namespace}/pods`]) {
      const [d, r] = await compareList(p, METADATA_LIST);
      expect(d.kind, p).toBe("PartialObjectMetadataList");
      for (const x of [...((d.items as Json[]) ?? []), ...((r.items as Json[]) ?? [])]) expect(Object.keys(x).sort(), p).toEqual(["apiVersion", "kind", "metadata"]);
    }
  });

  /** A watch's events, as JSON lines, until the server ends it (timeoutSeconds) */
  const events = (a: Answer) => (Array.isArray(a.body) ? (a.body as { type: string; object: Json }[]) : []);

  it("the watch-list protocol: every object ADDED, then the initial-events-end bookmark", async () => {
    const p = `/api/v1/namespaces/${demo.world.namespace}/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=2`;
    const [d, r] = await both({ path: p });
    const shape = (a: Answer) => {
      const ev = events(a);
      const added = ev.filter((e) => e.type === "ADDED").map((e) => itemKey(e.object)).sort();
      const end = ev.findIndex((e) => e.type === "BOOKMARK" && (e.object.metadata as Json)?.annotations && ((e.object.metadata as Json).annotations as Json)["k8s.io/initial-events-end"] === "true");
      return { status: a.status, added, endAfterAdded: end >= 0 && ev.slice(0, end).every((e) => e.type === "ADDED"), bookmarkKind: ev[end]?.object.kind, other: ev.filter((e) => e.type !== "ADDED" && e.type !== "BOOKMARK").map((e) => e.type) };
    };
    const [ds, rs] = [shape(d), shape(r)];
    expect(ds.added.length).toBeGreaterThan(0);
    expect(rs.endAfterAdded, r.text.slice(0, 300)).toBe(true);
    for (const k of Object.keys(ds) as (keyof typeof ds)[]) if (JSON.stringify(ds[k]) !== JSON.stringify(rs[k])) found.push(`watch-list: ${k}: demo ${JSON.stringify(ds[k]).slice(0, 120)}, real ${JSON.stringify(rs[k]).slice(0, 120)}`);
  });

  it("a watch from a resourceVersion: a pod made not Ready is one MODIFIED event with the Ready condition False, on both", async () => {
    const ns = demo.world.namespace;
    const agents = Object.entries(demo.world.agents["per-node"].selector).map(([k, v]) => `${k}=${v}`).join(",");
    const list = `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(agents)}`;
    const [dl, rl] = await both({ path: list });
    const rv = (a: Answer) => ((a.body as Json).metadata as Json).resourceVersion as string;
    const node = demo.store.list("nodes").map((n) => n.metadata.name).sort()[1];
    const pod = (dl.body as { items: Json[] }).items.map((x) => x as { metadata: { name: string }; spec: { nodeName: string } }).find((x) => x.spec.nodeName === node)!.metadata.name;
    const watch = (send: Send, from: string) => send({ path: `${list}&watch=1&resourceVersion=${from}&allowWatchBookmarks=true&timeoutSeconds=4` });
    const running = [watch(toDemo, rv(dl)), watch(toReal, rv(rl))];
    demo.faults.apply({ fault: "collector-not-ready", node });
    const [d, r] = await Promise.all(running);
    const seen = (a: Answer) =>
      events(a)
        .filter((e) => e.type !== "BOOKMARK")
        .map((e) => `${e.type} ${itemKey(e.object)} Ready=${(((e.object.status as Json)?.conditions as Json[]) ?? []).find((c) => c.type === "Ready")?.status as string}`);
    expect(seen(d)).toContain(`MODIFIED ${ns}/${pod} Ready=False`);
    if (JSON.stringify(seen(d)) !== JSON.stringify(seen(r))) found.push(`watch from a resourceVersion: demo ${JSON.stringify(seen(d))}, real ${JSON.stringify(seen(r))}`);
    demo.faults.heal();

    // a list at that resourceVersion exactly, and a watch from it, once it is gone: both compacted (the demo's event log, etcd)
    await demo.mirror!.idle();
    demo.store.compact();
    await demo.controlPlane!.compact();
    const [de, re] = [await toDemo({ path: `${list}&resourceVersion=${rv(dl)}&resourceVersionMatch=Exact` }), await toReal({ path: `${list}&resourceVersion=${rv(rl)}&resourceVersionMatch=Exact` })];
    expect(de.status).toBe(410);
    statusDiffs("list at a compacted resourceVersion (Exact)", de, re, found);
    // a watch from it: an ERROR event carrying 410 (or the 410 itself)
    const [dw, rw] = [await watch(toDemo, rv(dl)), await watch(toReal, rv(rl))];
    const expired = (a: Answer) => (a.status === 410 ? 410 : ((events(a).find((e) => e.type === "ERROR")?.object.code as number | undefined) ?? null));
    expect(expired(dw)).toBe(410);
    if (expired(dw) !== expired(rw)) found.push(`watch from a compacted resourceVersion: demo ${expired(dw)}, real ${expired(rw)} (${rw.text.slice(0, 160)})`);
  }, 60_000);

  it("errors as Status bodies: 403, 404, 400, and Leases' 409 and 422", async () => {
    const ns = demo.world.namespace;
    const secretNs = demo.store.list("secrets")[0]?.metadata.namespace ?? ns;
    const cases: [string, Req][] = [
      ["403 a Secret list for the viewer", { path: `/api/v1/namespaces/${secretNs}/secrets`, viewer: true }],
      ["403 a Lease written by the viewer", { method: "POST", path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, viewer: true, body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "viewer" }, spec: {} } }],
      ["404 a pod that is not there", { path: `/api/v1/namespaces/${ns}/pods/no-such-pod` }],
      ["404 a Lease that is not there", { path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/no-such-lease` }],
      ["400 an unknown field selector", { path: `/api/v1/pods?fieldSelector=${encodeURIComponent("spec.noSuchField=x")}` }],
      ["400 a label selector that does not parse", { path: `/api/v1/pods?labelSelector=${encodeURIComponent("a in (")}` }],
    ];
    for (const [what, req] of cases) statusDiffs(what, ...(await both(req)), found);

    const lease = (name: string, spec: Json = { holderIdentity: "probe", leaseDurationSeconds: 15 }, rv?: string) => ({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name, namespace: ns, ...(rv ? { resourceVersion: rv } : {}) },
      spec,
    });
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
    const [dc, rc] = await both({ method: "POST", path: leases, body: lease("differential") });
    expect([dc.status, rc.status], rc.text.slice(0, 300)).toEqual([201, 201]);
    fieldDiffs("created Lease", dc.body, rc.body, found);
    const rvOf = (a: Answer) => ((a.body as Json).metadata as Json).resourceVersion as string;
    const writes: [string, (send: Send, created: Answer) => Promise<Answer>][] = [
      ["409 a Lease created twice", (send) => send({ method: "POST", path: leases, body: lease("differential") })],
      ["422 a Lease with a duration of 0", (send) => send({ method: "POST", path: leases, body: lease("differential-zero", { holderIdentity: "probe", leaseDurationSeconds: 0 }) })],
      ["422 a Lease named with capitals", (send) => send({ method: "POST", path: leases, body: lease("Differential") })],
      ["409 a Lease updated from a stale resourceVersion", (send, c) => send({ method: "PUT", path: `${leases}/differential`, body: lease("differential", { holderIdentity: "other" }, String(Number(rvOf(c)) - 1)) })],
      ["404 a Lease updated that is not there", (send) => send({ method: "PUT", path: `${leases}/differential-absent`, body: lease("differential-absent", { holderIdentity: "other" }, "1") })],
    ];
    for (const [what, write] of writes) statusDiffs(what, await write(toDemo, dc), await write(toReal, rc), found);
    // an update without a resourceVersion (the elector always sends one)
    const [du, ru] = [
      await toDemo({ method: "PUT", path: `${leases}/differential`, body: lease("differential", { holderIdentity: "unconditional" }) }),
      await toReal({ method: "PUT", path: `${leases}/differential`, body: lease("differential", { holderIdentity: "unconditional" }) }),
    ];
    if (du.status !== ru.status) statusDiffs("a Lease updated without a resourceVersion", du, ru, found);
    for (const send of [toDemo, toReal]) await send({ method: "DELETE", path: `${leases}/differential` });
  });

  it("discovery: every resource the demo serves, with the real server's kind, scope and verbs", async () => {
    const [dg, rg] = await both({ path: "/apis" });
    const groups = (a: Answer) => new Map(((a.body as Json).groups as Json[]).map((g) => [g.name as string, (g.preferredVersion as Json).groupVersion as string]));
    const realGroups = groups(rg);
    for (const [g, v] of groups(dg)) if (realGroups.get(g) !== v) found.push(`/apis: group ${g}: demo prefers ${v}, real ${realGroups.get(g) ?? "does not serve it"}`);
    for (const gv of ["/api/v1", ...[...groups(dg).values()].map((v) => `/apis/${v}`)]) {
      const [d, r] = await both({ path: gv });
      const res = (a: Answer) => new Map(((a.body as Json).resources as Json[]).map((x) => [x.name as string, x]));
      const real = res(r);
      for (const [name, x] of res(d)) {
        const y = real.get(name);
        if (!y) {
          found.push(`${gv}: ${name}: not served by kube-apiserver`);
          continue;
        }
        for (const k of ["kind", "namespaced"]) if (x[k] !== y[k]) found.push(`${gv}: ${name}.${k}: demo ${String(x[k])}, real ${String(y[k])}`);
        const extra = ((x.verbs as string[]) ?? []).filter((v) => !((y.verbs as string[]) ?? []).includes(v));
        if (extra.length) found.push(`${gv}: ${name}: verbs the real server does not have: ${extra.join(",")}`);
      }
    }
  });

  it("every difference is a known one, written down with its reason", () => {
    const unknown = found.filter((f) => !KNOWN.some((k) => k.match.test(f)));
    const unused = KNOWN.filter((k) => !found.some((f) => k.match.test(f)));
    console.log(`differential: ${found.length} differences, ${found.length - unknown.length} known:\n${found.join("\n")}`);
    expect(unknown).toEqual([]);
    expect(unused.map((k) => k.why)).toEqual([]);
  });
});
