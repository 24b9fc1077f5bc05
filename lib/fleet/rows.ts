/**
 * The fleet view's rows from the backend's answers to lib/fleet/queries.ts: one row per cluster, its status and the
 * problems that make it, sorted worst first. Pure: the answers, the clock and the settings in, rows out. Label values and
 * sample values come from the backend: unknown roles and ownerships are ignored, non-finite values read as missing.
 */
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import type { FleetRow, FleetStatus, FleetTrend } from "@/lib/api/schemas";
import { FLEET_STATUSES } from "@/lib/api/schemas";
import type { Matrix, Vector } from "@/lib/prometheus/schemas";
import { LOCALITY_FAIL } from "@/lib/analysis/checks/context";
import { formatElapsed, formatPercent, plural } from "@/lib/format";
import { dashboardLink } from "@/lib/fleet/link";
import type { FleetQueries } from "@/lib/fleet/queries";
import { FLEET_LOOKBACK_MS, FLEET_TREND_POINTS } from "@/lib/fleet/window";

export type { FleetRow, FleetStatus } from "@/lib/api/schemas";

/** rows an answer holds at most (the backend's answer size is bounded by fleet.prometheus.maxResponseBytes) */
export const FLEET_MAX_CLUSTERS = 1000;

type InstantKey = Exclude<keyof FleetQueries, "trendGhosts" | "trendLocality" | "stopped">;
export type FleetResults = Record<InstantKey, Vector> & { trendGhosts: Matrix; trendLocality: Matrix };

export interface FleetRowOptions {
  nowMs: number;
  staleAfterMs: number;
  dashboardUrl?: string;
  maxClusters?: number;
}

const isRole = (v: string | undefined): v is Role => ROLES.includes(v as Role);

function num(v: string): number | null {
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** cluster -> value of each sample, keyed further by `label` when given */
function byCluster(v: Vector): Map<string, { metric: Record<string, string>; value: number }[]> {
  const out = new Map<string, { metric: Record<string, string>; value: number }[]>();
  for (const s of v) {
    const cluster = s.metric.cluster;
    const value = num(s.value[1]);
    if (!cluster || value === null) continue;
    out.set(cluster, [...(out.get(cluster) ?? []), { metric: s.metric, value }]);
  }
  return out;
}

const single = (m: Map<string, { value: number }[]>, cluster: string): number | null => m.get(cluster)?.[0]?.value ?? null;

/** the trend's step (ms): the range queries' grid, lib/fleet/queries.ts trendGrid */
const TREND_STEP_MS = FLEET_LOOKBACK_MS / FLEET_TREND_POINTS;
const ratio4 = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * Each cluster's trend in columns: the two range answers merged on their timestamps, a point per step from the first
 * sample to the last (null where one line has none). At most FLEET_TREND_POINTS points, the latest: a backend's odd
 * timestamps cannot make a row longer than the window.
 */
function trendOf(ghosts: Matrix, locality: Matrix, nowMs: number): Map<string, FleetTrend> {
  const samples = new Map<string, { t: number; field: "ghosts" | "localityRatio"; v: number }[]>();
  const put = (m: Matrix, field: "ghosts" | "localityRatio") => {
    for (const s of m) {
      const cluster = s.metric.cluster;
      if (!cluster) continue;
      let list = samples.get(cluster);
      if (!list) samples.set(cluster, (list = []));
      for (const [t, v] of s.values) {
        const n = num(v);
        if (n !== null && Number.isFinite(t)) list.push({ t: Math.round(t * 1000), field, v: field === "ghosts" ? Math.round(n) : ratio4(n) });
      }
    }
  };
  put(ghosts, "ghosts");
  put(locality, "localityRatio");
  const out = new Map<string, FleetTrend>();
  for (const [cluster, list] of samples) {
    if (!list.length) {
      out.set(cluster, emptyTrend(nowMs));
      continue;
    }
    const last = list.reduce((m, p) => Math.max(m, p.t), -Infinity);
    const from = last - (FLEET_TREND_POINTS - 1) * TREND_STEP_MS;
    const start = list.reduce((m, p) => (p.t >= from ? Math.min(m, p.t) : m), last);
    const length = Math.round((last - start) / TREND_STEP_MS) + 1;
    const trend: FleetTrend = { start, stepMs: TREND_STEP_MS, ghosts: new Array(length).fill(null), localityRatio: new Array(length).fill(null) };
    for (const p of list) {
      const i = Math.round((p.t - start) / TREND_STEP_MS);
      if (i >= 0 && i < length) trend[p.field][i] = p.v;
    }
    out.set(cluster, trend);
  }
  return out;
}

const emptyTrend = (nowMs: number): FleetTrend => ({ start: nowMs, stepMs: TREND_STEP_MS, ghosts: [], localityRatio: [] });

const ghostsOf = (r: FleetRow) => Object.values(r.roles).reduce((n, x) => n + (x?.ghosts ?? 0), 0);
const unassignedOf = (r: FleetRow) => Object.values(r.roles).reduce((n, x) => n + (x?.unassigned ?? 0), 0);

/** The row's status and the problems behind it, worst first. */
export function judge(r: Omit<FleetRow, "status" | "problems">, o: Pick<FleetRowOptions, "nowMs" | "staleAfterMs">): { status: FleetStatus; problems: string[] } {
  const bad: string[] = [];
  const warn: string[] = [];
  const row = r as FleetRow;
  const stopped = r.seenAt === null || o.nowMs - r.seenAt > o.staleAfterMs;
  if (stopped) bad.push(r.seenAt === null ? "series stopped: no current sample in the backend" : `series stopped: last sample ${formatElapsed(o.nowMs - r.seenAt)} ago`);
  const ghosts = ghostsOf(row);
  if (ghosts) bad.push(`${plural(ghosts, "ghost target")}`);
  if (r.monitors?.orphaned) bad.push(`${plural(r.monitors.orphaned, "monitor")} orphaned`);
  const down = r.sources.filter((s) => !s.up);
  if (down.length) bad.push(`${plural(down.length, "source")} failing: ${down.map((s) => s.source).join(", ")}`);
  if (!stopped && r.seenAt !== null && r.lastPollAt !== null && r.seenAt - r.lastPollAt > o.staleAfterMs) bad.push(`last poll ${formatElapsed(r.seenAt - r.lastPollAt)} old`);
  const perNode = r.roles["per-node"]?.localityRatio;
  if (perNode !== null && perNode !== undefined && perNode < LOCALITY_FAIL) bad.push(`per-node locality ${formatPercent(perNode)}`);
  if (r.monitors?.double) warn.push(`${plural(r.monitors.double, "monitor")} scraped twice`);
  if (r.monitors?.misrouted) warn.push(`${plural(r.monitors.misrouted, "monitor")} misrouted`);
  const unassigned = unassignedOf(row);
  if (unassigned) warn.push(`${plural(unassigned, "unassigned target")}`);
  if (r.nodesWithoutCollector) warn.push(`${plural(r.nodesWithoutCollector, "node")} without a collector`);
  const status: FleetStatus = stopped ? "stopped" : bad.length ? "bad" : warn.length ? "warn" : "ok";
  return { status, problems: [...bad, ...warn] };
}

/** How much is wrong, for ordering rows of the same status: targets and monitors affected, failing sources, nodes. */
function weight(r: FleetRow): number {
  return ghostsOf(r) + unassignedOf(r) + (r.monitors ? r.monitors.orphaned + r.monitors.double + r.monitors.misrouted : 0) + r.sources.filter((s) => !s.up).length + (r.nodesWithoutCollector ?? 0);
}

/** Worst first: by status (stopped, bad, warn, ok), then by how much is wrong, then the lower per-node locality, then the name. */
export function compareRows(a: FleetRow, b: FleetRow): number {
  const s = FLEET_STATUSES.indexOf(a.status) - FLEET_STATUSES.indexOf(b.status);
  if (s) return s;
  const w = weight(b) - weight(a);
  if (w) return w;
  const la = a.roles["per-node"]?.localityRatio ?? Infinity;
  const lb = b.roles["per-node"]?.localityRatio ?? Infinity;
  if (la !== lb) return la < lb ? -1 : 1;
  return a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0;
}

/** Every cluster found in the answers, one row each, worst first; at most `maxClusters` rows (the rest counted). */
export function toFleetRows(r: FleetResults, o: FleetRowOptions): { rows: FleetRow[]; truncated: number } {
  const locality = byCluster(r.locality);
  const ghosts = byCluster(r.ghosts);
  const unassigned = byCluster(r.unassigned);
  const monitors = byCluster(r.monitors);
  const nodes = byCluster(r.nodesWithoutCollector);
  const sources = byCluster(r.sourceUp);
  const lastPoll = byCluster(r.lastPoll);
  const seen = byCluster(r.seen);
  const trend = trendOf(r.trendGhosts, r.trendLocality, o.nowMs);
  const names = new Set<string>();
  for (const m of [locality, ghosts, unassigned, monitors, nodes, sources, lastPoll, seen]) for (const c of m.keys()) names.add(c);

  const rows: FleetRow[] = [];
  for (const cluster of names) {
    const roles: FleetRow["roles"] = {};
    const role = (name: string | undefined) => (isRole(name) ? (roles[name] ??= { localityRatio: null, ghosts: null, unassigned: null }) : null);
    for (const s of locality.get(cluster) ?? []) {
      const x = role(s.metric.role);
      if (x) x.localityRatio = s.value;
    }
    for (const s of ghosts.get(cluster) ?? []) {
      const x = role(s.metric.role);
      if (x) x.ghosts = Math.round(s.value);
    }
    for (const s of unassigned.get(cluster) ?? []) {
      const x = role(s.metric.role);
      if (x) x.unassigned = Math.round(s.value);
    }
    const own = monitors.get(cluster);
    const count = (o: string) => Math.round(own?.find((s) => s.metric.ownership === o)?.value ?? 0);
    const seenS = single(seen, cluster);
    const pollS = single(lastPoll, cluster);
    const nwc = single(nodes, cluster);
    const base: Omit<FleetRow, "status" | "problems"> = {
      cluster,
      seenAt: seenS === null ? null : Math.round(seenS * 1000),
      lastPollAt: pollS === null ? null : Math.round(pollS * 1000),
      roles,
      monitors: own?.length ? { double: count("double"), orphaned: count("orphaned"), misrouted: count("misrouted") } : null,
      nodesWithoutCollector: nwc === null ? null : Math.round(nwc),
      sources: (sources.get(cluster) ?? [])
        .filter((s) => s.metric.source)
        .map((s) => ({ source: s.metric.source, up: s.value >= 1 }))
        .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0)),
      trend: trend.get(cluster) ?? emptyTrend(o.nowMs),
      dashboardUrl: dashboardLink(o.dashboardUrl, cluster),
    };
    rows.push({ ...base, ...judge(base, o) });
  }
  rows.sort(compareRows);
  const max = o.maxClusters ?? FLEET_MAX_CLUSTERS;
  return { rows: rows.slice(0, max), truncated: Math.max(0, rows.length - max) };
}
