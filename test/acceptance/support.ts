/**
 * Support for the live data plane's acceptance tests: an in-process demo cluster (real wire protocols on loopback: Kubernetes
 * API, TAs over HTTP or mTLS, control API) read by the dashboard's PRODUCTION path: `getRuntime()` with
 * ALLOCATION_LENS_CONFIG pointing at the demo's generated configuration, the history started as `server/boot.ts` does, the
 * route handlers of `app/api/v1/*` called with real `Request`s, and `/metrics` through its route.
 *
 * `getRuntime()` is a process-wide singleton: one runtime per test file (vitest runs each file in its own fork).
 * Every wait is bounded; `stop()` closes the runtime, the history and the demo.
 */
import fs from "node:fs";
import YAML from "yaml";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { expect } from "vitest";
import type { Role, TargetClass } from "@/lib/model";
import * as api from "@/lib/api/schemas";
import { startDemoCluster, type DemoCluster, type DemoOptions } from "@allocation-lens/demo-cluster/internal/cluster";
import type { Runtime } from "@/server/runtime";
import type { Snapshot } from "@/lib/snapshot";
import { controlClient, type DemoControl, type Truth } from "@allocation-lens/demo-cluster";
import { sleep, waitFor } from "@allocation-lens/test-support/wait";

export { sleep, waitFor, type Truth };

export interface Lens {
  demo: DemoCluster;
  runtime: Runtime;
  cluster: string;
  /** poll interval of the dashboard, ms */
  intervalMs: number;
  /** GET one API path (`/api/v1/...`, `/metrics`, `/api/healthz`) through its route handler */
  get<T = unknown>(pathAndQuery: string): Promise<{ status: number; body: T; text: string; headers: Headers }>;
  /** the parsed /metrics exposition */
  metrics(): Promise<MetricSamples>;
  truth(): Promise<Truth>;
  /** the demo's control API, with its token */
  control: DemoControl;
  /** the snapshot of the latest poll that nextSnapshot() waited for */
  latest(): Snapshot;
  /** resolves with (a copy of) the first snapshot taken after now */
  nextSnapshot(timeoutMs?: number): Promise<Snapshot>;
  stop(): Promise<void>;
}

export interface StartOptions extends Partial<DemoOptions> {
  /** runs once the demo is up, before the dashboard starts (to install objects into its API, say) */
  prepare?: (demo: DemoCluster) => Promise<void> | void;
  /** rewrite the demo's generated dashboard configuration before the dashboard reads it */
  configure?: (config: Record<string, any>) => Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A route module as Next loads it; handlers differ in their parameters (none, the request, the request and params). */
type RouteModule = { GET: unknown };
type Handler = (request: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;

/** The route module and its params for an API path, as Next's router would resolve it. */
async function route(pathname: string): Promise<{ mod: RouteModule; params?: Record<string, string> }> {
  const m = /^\/api\/v1\/nodes\/([^/]+)$/.exec(pathname);
  if (m) return { mod: await import("@/app/api/v1/nodes/[name]/route"), params: { name: decodeURIComponent(m[1]) } };
  switch (pathname) {
    case "/api/v1/clusters":
      return { mod: await import("@/app/api/v1/clusters/route") };
    case "/api/v1/summary":
      return { mod: await import("@/app/api/v1/summary/route") };
    case "/api/v1/nodes":
      return { mod: await import("@/app/api/v1/nodes/route") };
    case "/api/v1/collectors":
      return { mod: await import("@/app/api/v1/collectors/route") };
    case "/api/v1/monitors":
      return { mod: await import("@/app/api/v1/monitors/route") };
    case "/api/v1/targets":
      return { mod: await import("@/app/api/v1/targets/route") };
    case "/api/v1/lost":
      return { mod: await import("@/app/api/v1/lost/route") };
    case "/api/v1/churn":
      return { mod: await import("@/app/api/v1/churn/route") };
    case "/api/v1/diagnostics":
      return { mod: await import("@/app/api/v1/diagnostics/route") };
    case "/api/v1/alerts":
      return { mod: await import("@/app/api/v1/alerts/route") };
    case "/api/v1/fleet":
      return { mod: await import("@/app/api/v1/fleet/route") };
    case "/metrics":
      return { mod: await import("@/app/metrics/route") };
    case "/api/healthz":
      return { mod: await import("@/app/api/healthz/route") };
    case "/api/readyz":
      return { mod: await import("@/app/api/readyz/route") };
  }
  throw new Error(`no route for ${pathname} in the acceptance support`);
}

export async function startLens(options: StartOptions = {}): Promise<Lens> {
  const { configure, prepare, ...demoOptions } = options;
  const demo = await startDemoCluster({ pollInterval: 1, nodes: 6, seed: 7, ...demoOptions });
  try {
    await prepare?.(demo);
    if (configure) {
      const doc = YAML.parse(fs.readFileSync(demo.info.dashboardConfig, "utf8"));
      fs.writeFileSync(demo.info.dashboardConfig, YAML.stringify(configure(doc)));
    }
    process.env.ALLOCATION_LENS_CONFIG = demo.info.dashboardConfig;
    const { getRuntime } = await import("@/server/runtime");
    const runtime = await getRuntime();
    const poller = [...runtime.pollers.values()][0];
    const cluster = poller.config.name;
    const intervalMs = poller.config.pollIntervalSeconds * 1000;
    // The snapshots live in the poll worker: the test asks for a copy of each one it waits for.
    let last: Snapshot | undefined;
    const nextSnapshot = (timeoutMs = 10 * intervalMs) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          off();
          reject(new Error(`no poll finished within ${timeoutMs} ms`));
        }, timeoutMs);
        const off = poller.onSnapshot(() => {
          clearTimeout(timer);
          off();
          resolve();
        });
      }).then(async () => (last = await poller.snapshot()));
    const control = controlClient(demo.info, { timeoutMs: 5000 });
    const lens: Lens = {
      demo,
      runtime,
      cluster,
      intervalMs,
      async get<T>(pathAndQuery: string) {
        const url = new URL(pathAndQuery, "http://lens.test");
        const { mod, params } = await route(url.pathname);
        const res = await (mod.GET as Handler)(new Request(url), params ? { params: Promise.resolve(params) } : undefined);
        const text = await res.text();
        let body: unknown = text;
        if ((res.headers.get("content-type") ?? "").includes("json")) body = JSON.parse(text);
        return { status: res.status, body: body as T, text, headers: res.headers };
      },
      async metrics() {
        const r = await lens.get<string>("/metrics");
        expect(r.status).toBe(200);
        return parseMetrics(r.text);
      },
      // GET <control>/truth, the ground truth as the control API serves it
      truth: () => control.truth(),
      control,
      latest: () => {
        if (!last) throw new Error("no snapshot yet");
        return last;
      },
      nextSnapshot,
      async stop() {
        await runtime.stop();
        await demo.close();
      },
    };
    // Two full polls: the first one may race the informers' initial lists.
    await poller.next(120_000);
    await nextSnapshot();
    return lens;
  } catch (e) {
    await demo.close();
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// /metrics

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export class MetricSamples {
  constructor(readonly samples: Sample[]) {}
  /** every sample of `name` whose labels include `labels` */
  all(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  }
  /** the value of the one sample of `name` with `labels`; undefined when there is none */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const found = this.all(name, labels);
    if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} series`);
    return found[0]?.value;
  }
}

/** Prometheus text exposition -> samples, with the same parser the TA client uses. */
export function parseMetrics(text: string): MetricSamples {
  const families = parsePrometheusTextFormat(text) as { name: string; metrics: { value?: string; labels?: Record<string, string> }[] }[];
  const samples: Sample[] = [];
  for (const f of families) for (const m of f.metrics) if (m.value !== undefined) samples.push({ name: f.name, labels: m.labels ?? {}, value: Number(m.value) });
  return new MetricSamples(samples);
}

// ---------------------------------------------------------------------------------------------------------------------
// ground truth -> expectations

export type ClassCounts = Record<TargetClass, number>;

/** The class of every assigned target of the truth, computed independently of lib/analysis from the truth and node zones. */
export function expectedClasses(t: Truth, zoneOf: ReadonlyMap<string, string | null>): Partial<Record<Role, ClassCounts>> {
  const out: Partial<Record<Role, ClassCounts>> = {};
  const collectors = new Map(t.collectors.map((c) => [`${c.role}/${c.id}`, c]));
  for (const x of t.targets) {
    if (!x.collector) continue;
    const counts = (out[x.role] ??= { ghost: 0, nodeless: 0, local: 0, cross_zone: 0, cross_node: 0 });
    const c = collectors.get(`${x.role}/${x.collector}`);
    if (!c || !c.eligible) counts.ghost++;
    else if (!x.node) counts.nodeless++;
    else if (c.node === x.node) counts.local++;
    else if (zoneOf.get(x.node) && zoneOf.get(c.node) && zoneOf.get(x.node) !== zoneOf.get(c.node)) counts.cross_zone++;
    else counts.cross_node++;
  }
  return out;
}

export function zonesOf(demo: DemoCluster): Map<string, string | null> {
  return new Map(demo.store.list("nodes").map((n) => [n.metadata.name, n.metadata.labels?.["topology.kubernetes.io/zone"] ?? null]));
}

export interface TargetRowLike {
  role: Role;
  job: string;
  address: string;
  collector: string;
  class: TargetClass;
}

/** Every target row through GET /api/v1/targets, page by page. */
export async function allTargets(lens: Lens, query = ""): Promise<TargetRowLike[]> {
  const rows: TargetRowLike[] = [];
  for (let offset = 0; offset < 100_000; ) {
    const r = await lens.get<{ matched: number; rows: TargetRowLike[] }>(`/api/v1/targets?limit=1000&offset=${offset}${query ? `&${query}` : ""}`);
    expect(r.status).toBe(200);
    rows.push(...r.body.rows);
    offset += 1000;
    if (offset >= r.body.matched) break;
  }
  return rows;
}

/**
 * Waits until `probe` holds, and asserts it took at most two poll intervals (plus `slackMs` for the informer and the poll
 * itself) counted from `since`: the moment the demo's truth showed the fault.
 */
export async function withinTwoPolls<T>(lens: Lens, what: string, since: number, probe: () => Promise<T | undefined | false>, slackMs = 1500): Promise<T> {
  const budget = 2 * lens.intervalMs + slackMs;
  let last: unknown;
  const value = await waitFor(what, async () => (last = await probe()), {
    timeoutMs: budget + 5000,
    intervalMs: 50,
    last: () => (last === false || last === undefined ? { summary: lens.latest().analysis.roles } : last),
  });
  const took = Date.now() - since;
  expect(took, `${what}: seen after ${took} ms, budget ${budget} ms (two poll intervals + slack)`).toBeLessThanOrEqual(budget);
  return value;
}

// ---------------------------------------------------------------------------------------------------------------------
// faults

interface SummaryLike {
  roles: Partial<Record<Role, { targets: number; classes: ClassCounts; localityRatio: number | null; drift: number; unassigned: number | null; unassignedReported: number | null }>>;
  monitors: Record<string, number> | null;
  sources: { source: string; state: string }[];
}

/** The summary as the API serves it. */
export async function summary(lens: Lens): Promise<SummaryLike> {
  const r = await lens.get<SummaryLike>("/api/v1/summary");
  expect(r.status).toBe(200);
  return r.body;
}

/** DELETE <control>/faults, then wait (bounded) until the API shows the calm cluster again. */
export async function healAndSettle(lens: Lens, timeoutMs = 25_000): Promise<void> {
  await lens.control.heal();
  let last: unknown;
  await waitFor(
    "the API to show the calm cluster again after DELETE /faults",
    async () => {
      const s = (last = await summary(lens));
      const pn = s.roles["per-node"]!;
      return (
        s.sources.every((x) => x.state === "ok") &&
        Object.values(s.roles).every((r) => r!.classes.ghost === 0 && r!.drift === 0) &&
        pn.localityRatio === 1 &&
        (s.monitors === null || (s.monitors.double === 0 && s.monitors.orphaned === 0 && s.monitors.misrouted === 0))
      );
    },
    { timeoutMs, intervalMs: 200, last: () => last },
  );
}

/** POST <control>/faults; returns when the demo answered 200 (the `did` text), throws otherwise. */
export async function inject(lens: Lens, body: Record<string, unknown>): Promise<string> {
  return (await lens.control.fault(body)).did;
}

/** Waits (bounded) until the demo's truth satisfies `probe`; returns the moment it did and that truth. */
export async function truthShows(lens: Lens, what: string, probe: (t: Truth) => boolean, timeoutMs = 15_000): Promise<{ at: number; truth: Truth }> {
  let t: Truth | undefined;
  await waitFor(`the demo's truth to show ${what}`, async () => probe((t = await lens.truth())), { timeoutMs, intervalMs: 50 });
  return { at: Date.now(), truth: t! };
}

/** A node with per-node targets, picked deterministically (the `i`th by name). */
export function nodeWithTargets(t: Truth, i: number): { node: string; pod: string; targets: Truth["targets"] } {
  const nodes = [...new Set(t.targets.filter((x) => x.role === "per-node" && x.node).map((x) => x.node!))].sort();
  const node = nodes[i % nodes.length];
  const pod = t.collectors.find((c) => c.role === "per-node" && c.node === node && c.eligible)!.id;
  return { node, pod, targets: t.targets.filter((x) => x.role === "per-node" && x.node === node) };
}

/**
 * The per-node TA killed (`ta-killed`, `downSeconds` 5) and started again: within two polls its source is stale with a
 * network error, the last good data still shown (the summary's targets and classes as `before`); then within two polls
 * of the moment `answers()` first holds (the allocator answering again) the source is ok again.
 */
export async function killedThenRecovered(lens: Lens, answers: () => Promise<boolean>): Promise<void> {
  const before = await summary(lens);
  const source = `${lens.cluster}/ta/per-node`;
  const at = Date.now();
  await inject(lens, { fault: "ta-killed", role: "per-node", downSeconds: 5 });
  const s = await withinTwoPolls(lens, "the per-node TA source stale", at, async () => {
    const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
    return s.sources.find((x) => x.source === source)?.state === "stale" && s;
  });
  const src = s.sources.find((x) => x.source === source)!;
  expect(src.error).toMatchObject({ kind: "network" });
  expect(src.error!.message.length).toBeGreaterThan(0);
  expect(s.roles["per-node"]!.targets).toBe(before.roles["per-node"]!.targets);
  expect(s.roles["per-node"]!.classes).toEqual(before.roles["per-node"]!.classes);
  const page = api.targetsPageSchema.parse((await lens.get("/api/v1/targets?limit=1")).body);
  // every role's targets: the TAs that still answer and the last good data of the one that does not
  expect(page.total).toBe(Object.values(before.roles).reduce((n, r) => n + r!.targets, 0));
  expect(page.stale.map((x) => x.source)).toContain(source);
  const back = await waitFor("the restarted allocator to answer", async () => (await answers().catch(() => false)) && Date.now(), { timeoutMs: 60_000, intervalMs: 100 });
  await withinTwoPolls(lens, "the per-node TA source ok again", back, async () => (await summary(lens)).sources.find((x) => x.source === source)?.state === "ok");
}
