/**
 * Pure reshaping for the node map view: URL filters over the zones of a NodesView, tile labels and memo signatures, the
 * density of the tile grid, and the cross-node flow rows. No I/O, no React: components/nodes/* render what this returns.
 */
import type { NodeRow, NodeState } from "@/lib/analysis/types";
import type { Flow, NodesView } from "@/lib/views/nodes";
import { formatCount as fmt, plural } from "@/lib/format";

/** Worst first: the order of the legend and of the state filter. */
export const NODE_STATES: readonly NodeState[] = ["ghosts", "no_collector", "degraded", "healthy", "idle"] as const;

export const STATE_META: Record<NodeState, { label: string; hint: string }> = {
  healthy: { label: "healthy", hint: "an eligible collector on the node scrapes its targets locally" },
  degraded: { label: "degraded", hint: "the node's collector is not eligible, or some of its targets are scraped on another node" },
  no_collector: { label: "no collector", hint: "targets on the node but no per-node agent pod" },
  ghosts: { label: "holding ghosts", hint: "targets assigned to a collector that is not eligible: nobody scrapes them" },
  idle: { label: "idle", hint: "no targets on the node" },
};

export interface NodeFilters {
  zone: string | null;
  states: readonly NodeState[];
  q: string;
}

export const isFiltered = (f: NodeFilters): boolean => Boolean(f.zone) || f.states.length > 0 || f.q.trim() !== "";

export interface FilteredZone {
  zone: string;
  nodes: NodeRow[];
  /** nodes of this zone before filtering */
  total: number;
}

export interface FilteredMap {
  zones: FilteredZone[];
  shown: number;
  total: number;
  hidden: number;
  /** nodes of each state among those the zone and text filters keep (the state filter aside): the legend's counts */
  byState: Record<NodeState, number>;
}

/** Matches the node name or one of its collector pods (to find the node of a pod), case-insensitively. */
export function matchesText(n: NodeRow, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  return n.name.toLowerCase().includes(needle) || n.collectors.some((c) => c.id.toLowerCase().includes(needle));
}

export function filterNodeMap(zones: NodesView["zones"], f: NodeFilters): FilteredMap {
  const byState: Record<NodeState, number> = { healthy: 0, degraded: 0, no_collector: 0, ghosts: 0, idle: 0 };
  const states = new Set(f.states);
  let shown = 0;
  let total = 0;
  const out: FilteredZone[] = [];
  for (const z of zones) {
    total += z.nodes.length;
    if (f.zone && z.zone !== f.zone) continue;
    const inScope = f.q.trim() ? z.nodes.filter((n) => matchesText(n, f.q)) : z.nodes;
    for (const n of inScope) byState[n.state]++;
    const nodes = states.size ? inScope.filter((n) => states.has(n.state)) : inScope;
    shown += nodes.length;
    if (nodes.length) out.push({ zone: z.zone, nodes, total: z.nodes.length });
  }
  return { zones: out, shown, total, hidden: total - shown, byState };
}

/** The longest dot-suffix every name shares (".ec2.internal"), stripped from tile captions; never the whole name. */
export function commonSuffix(names: readonly string[]): string {
  if (names.length < 2) return "";
  let parts = names[0].split(".").slice(1);
  for (const name of names) {
    const p = name.split(".");
    let k = 0;
    while (k < parts.length && k < p.length - 1 && parts[parts.length - 1 - k] === p[p.length - 1 - k]) k++;
    parts = parts.slice(parts.length - k);
    if (!parts.length) return "";
  }
  return `.${parts.join(".")}`;
}

export const shortName = (name: string, suffix: string): string => (suffix && name.endsWith(suffix) && name.length > suffix.length ? name.slice(0, -suffix.length) : name);

export const nodeTargetCount = (n: NodeRow): number => n.targets.local + n.targets.cross_node + n.targets.cross_zone + n.targets.nodeless + n.targets.ghost;


/** The accessible name of a tile: everything its colour and marks say, in words. */
export function tileLabel(n: NodeRow): string {
  const parts = [`${n.name}: ${STATE_META[n.state].label}`, plural(nodeTargetCount(n), "target")];
  if (n.targets.ghost) parts.push(`${fmt(n.targets.ghost)} ghost`);
  if (n.scrapedElsewhere) parts.push(`${fmt(n.scrapedElsewhere)} scraped on another node`);
  const bad = n.collectors.filter((c) => !c.eligible).length;
  parts.push(plural(n.collectors.length, "agent pod") + (bad ? ` (${bad} not eligible)` : ""));
  if (n.multiplePods) parts.push("two agent pods of one role (rollout)");
  if (!n.ready) parts.push("node not Ready");
  return parts.join(", ");
}

export interface Tile {
  name: string;
  short: string;
  state: NodeState;
  multi: boolean;
  notReady: boolean;
  targets: number;
  pods: number;
  badPods: number;
  /** what is wrong, in a few words, for the caption of a card; null when healthy */
  note: string | null;
  label: string;
}

export function tileNote(n: NodeRow): string | null {
  switch (n.state) {
    case "ghosts":
      return plural(n.targets.ghost, "ghost");
    case "no_collector":
      return "no collector";
    case "degraded":
      return n.scrapedElsewhere ? `${fmt(n.scrapedElsewhere)} elsewhere` : "collector not eligible";
    case "idle":
      return "no targets";
    default:
      return null;
  }
}

export function toTile(n: NodeRow, suffix: string): Tile {
  return {
    name: n.name,
    short: shortName(n.name, suffix),
    state: n.state,
    multi: n.multiplePods,
    notReady: !n.ready,
    targets: nodeTargetCount(n),
    pods: n.collectors.length,
    badPods: n.collectors.filter((c) => !c.eligible).length,
    note: tileNote(n),
    label: tileLabel(n),
  };
}

/**
 * What a zone grid shows, as one string: a poll that changes nothing yields the same signature, so the memoized grid
 * (thousands of buttons) does not re-render at all.
 */
export const zoneSignature = (tiles: readonly Tile[]): string => tiles.map((t) => `${t.label}\u0001${t.short}\u0001${t.note}`).join("\u0000");

export type Density = "cards" | "tiles" | "dense";

/** Cards with captions for a demo-sized cluster, small squares beyond, 10 px squares for thousands. */
export function densityFor(nodes: number): Density {
  if (nodes <= 60) return "cards";
  if (nodes <= 800) return "tiles";
  return "dense";
}

export interface CrossNodeRow extends Flow {
  key: string;
  fromZone: string | null;
  toZone: string | null;
  crossZone: boolean;
}

/** The biggest node -> node flows, with zones looked up, filtered like the map (zone on either side, text on either node). */
export function crossNodeRows(view: Pick<NodesView, "zones" | "crossNodeFlows">, f: Pick<NodeFilters, "zone" | "q">): { rows: CrossNodeRow[]; hidden: number } {
  const zoneOf = new Map<string, string | null>();
  for (const z of view.zones) for (const n of z.nodes) zoneOf.set(n.name, n.zone);
  const needle = f.q.trim().toLowerCase();
  const all = view.crossNodeFlows.map((fl) => {
    const fromZone = zoneOf.get(fl.from) ?? null;
    const toZone = zoneOf.get(fl.to) ?? null;
    return { ...fl, key: `${fl.from}\u0000${fl.to}`, fromZone, toZone, crossZone: Boolean(fromZone && toZone && fromZone !== toZone) };
  });
  const rows = all.filter(
    (r) =>
      (!f.zone || r.fromZone === f.zone || r.toZone === f.zone || ((r.fromZone === null || r.toZone === null) && f.zone === "(no zone)")) &&
      (!needle || r.from.toLowerCase().includes(needle) || r.to.toLowerCase().includes(needle)),
  );
  return { rows, hidden: all.length - rows.length };
}
