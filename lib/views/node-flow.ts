/**
 * Layout of the zone flow picture (a two-column Sankey): target zones on the left, collector zones on the right, one band per
 * (from, to, class) whose thickness is its target count. Pure geometry, so the SVG component only draws what this returns.
 */
import type { TargetClass } from "@/lib/model";
import type { ZoneFlow } from "@/lib/views/nodes";

export const NO_NODE = "(no node)";
export const GHOST = "(ghost)";
export const NO_ZONE = "(no zone)";

/** Stacking order inside a band bundle: the healthy colour first. */
export const FLOW_CLASSES: readonly TargetClass[] = ["local", "cross_node", "cross_zone", "nodeless", "ghost"] as const;

export type FlowNodeKind = "zone" | "no_zone" | "no_node" | "ghost";

export interface FlowNode {
  id: string;
  kind: FlowNodeKind;
  count: number;
  y: number;
  h: number;
}

export interface FlowBand {
  key: string;
  from: string;
  to: string;
  cls: TargetClass;
  count: number;
  /** top of the band at its source and at its target */
  sy: number;
  ty: number;
  h: number;
  path: string;
}

export interface FlowLayout {
  left: FlowNode[];
  right: FlowNode[];
  bands: FlowBand[];
  total: number;
}

export interface FlowGeometry {
  height: number;
  /** x of the right edge of the left bars and of the left edge of the right bars */
  x0: number;
  x1: number;
  gap?: number;
  minBand?: number;
}

const NODE_LABEL: Record<FlowNodeKind, string | null> = { zone: null, no_zone: "no zone", no_node: "no node", ghost: "ghost collector" };

/** The caption of a column entry: the zone, or what a special column means. */
export const flowNodeLabel = (id: string): string => NODE_LABEL[kindOf(id)] ?? id;

export const kindOf = (id: string): FlowNodeKind => (id === NO_NODE ? "no_node" : id === GHOST ? "ghost" : id === NO_ZONE ? "no_zone" : "zone");
const rank = (id: string): number => ({ zone: 0, no_zone: 1, no_node: 2, ghost: 3 })[kindOf(id)];
const byZone = (a: string, b: string) => rank(a) - rank(b) || a.localeCompare(b);

/** Thickness per band: proportional, but never thinner than minBand, so two nodeless targets among 10,000 stay visible. */
function thickness(counts: number[], avail: number, minBand: number): number[] {
  const sum = counts.reduce((s, c) => s + c, 0);
  if (sum === 0) return counts.map(() => 0);
  let k = avail / sum;
  for (let i = 0; i < 4; i++) {
    const small = counts.filter((c) => c * k < minBand);
    const big = sum - small.reduce((s, c) => s + c, 0);
    if (!big) break;
    k = Math.max(0, avail - small.length * minBand) / big;
  }
  return counts.map((c) => Math.max(minBand, c * k));
}

export function bandPath(x0: number, x1: number, sy: number, ty: number, h: number): string {
  const mx = (x0 + x1) / 2;
  const f = (v: number) => Math.round(v * 10) / 10;
  return `M${f(x0)},${f(sy)}C${f(mx)},${f(sy)} ${f(mx)},${f(ty)} ${f(x1)},${f(ty)}L${f(x1)},${f(ty + h)}C${f(mx)},${f(ty + h)} ${f(mx)},${f(sy + h)} ${f(x0)},${f(sy + h)}Z`;
}

export function layoutZoneFlows(flows: readonly ZoneFlow[], g: FlowGeometry): FlowLayout {
  const gap = g.gap ?? 10;
  const minBand = g.minBand ?? 2;
  const raw: { from: string; to: string; cls: TargetClass; count: number }[] = [];
  for (const f of flows) for (const cls of FLOW_CLASSES) if (f.classes[cls] > 0) raw.push({ from: f.from, to: f.to, cls, count: f.classes[cls] });
  const leftIds = [...new Set(raw.map((r) => r.from))].sort(byZone);
  const rightIds = [...new Set(raw.map((r) => r.to))].sort(byZone);
  const ids = [...new Set([...leftIds, ...rightIds])].sort(byZone);
  const avail = Math.max(0, g.height - gap * (ids.length - 1));
  // A zone sits at the same height in both columns, so a zone that keeps its targets draws a level band; a row takes the
  // taller of its two sides, so the bands get less than the whole height: shrink until the rows fit.
  const counts = raw.map((r) => r.count);
  let budget = avail;
  let bands: ((typeof raw)[number] & { h: number })[] = [];
  let rows: number[] = [];
  for (let i = 0; i < 6; i++) {
    const hs = thickness(counts, budget, minBand);
    bands = raw.map((r, j) => ({ ...r, h: hs[j] }));
    const sumOf = (id: string, side: "from" | "to") => bands.filter((b) => b[side] === id).reduce((s, b) => s + b.h, 0);
    rows = ids.map((id) => Math.max(sumOf(id, "from"), sumOf(id, "to")));
    const used = rows.reduce((s, h) => s + h, 0);
    if (used <= avail + 0.01 || used === 0) break;
    budget *= avail / used;
  }
  const rowY = new Map<string, number>();
  let cursor = 0;
  ids.forEach((id, i) => {
    rowY.set(id, cursor);
    cursor += rows[i] + gap;
  });
  const column = (list: string[], side: "from" | "to"): FlowNode[] =>
    list.map((id) => {
      const mine = bands.filter((b) => b[side] === id);
      return { id, kind: kindOf(id), count: mine.reduce((s, b) => s + b.count, 0), h: mine.reduce((s, b) => s + b.h, 0), y: rowY.get(id)! };
    });
  const left = column(leftIds, "from");
  const right = column(rightIds, "to");
  const li = new Map(leftIds.map((id, i) => [id, i]));
  const ri = new Map(rightIds.map((id, i) => [id, i]));
  const ci = (c: TargetClass) => FLOW_CLASSES.indexOf(c);
  const sy = new Map<string, number>();
  const ty = new Map<string, number>();
  const key = (b: { from: string; to: string; cls: TargetClass }) => `${b.from}\u0000${b.to}\u0000${b.cls}`;
  // Same-zone bands first (level), then in the order of the other column, so bands cross as little as possible.
  const own = (b: { from: string; to: string }) => (b.from === b.to ? 0 : 1);
  for (const n of left) {
    let y = n.y;
    for (const b of bands.filter((x) => x.from === n.id).sort((a, b) => own(a) - own(b) || ri.get(a.to)! - ri.get(b.to)! || ci(a.cls) - ci(b.cls))) {
      sy.set(key(b), y);
      y += b.h;
    }
  }
  for (const n of right) {
    let y = n.y;
    for (const b of bands.filter((x) => x.to === n.id).sort((a, b) => own(a) - own(b) || li.get(a.from)! - li.get(b.from)! || ci(a.cls) - ci(b.cls))) {
      ty.set(key(b), y);
      y += b.h;
    }
  }
  return {
    left,
    right,
    total: bands.reduce((s, b) => s + b.count, 0),
    bands: bands.map((b) => {
      const k = key(b);
      const s = sy.get(k)!;
      const t = ty.get(k)!;
      return { key: k, from: b.from, to: b.to, cls: b.cls, count: b.count, sy: s, ty: t, h: b.h, path: bandPath(g.x0, g.x1, s, t, b.h) };
    }),
  };
}

/** Share of the node-bound targets scraped in their own zone, and how many cross a zone, for the headline over the picture. */
export function flowHeadline(flows: readonly ZoneFlow[]): { local: number; sameZone: number; crossZone: number; ghost: number; nodeless: number; total: number } {
  let local = 0;
  let sameZone = 0;
  let crossZone = 0;
  let ghost = 0;
  let nodeless = 0;
  let total = 0;
  for (const f of flows) {
    total += f.count;
    local += f.classes.local;
    ghost += f.classes.ghost;
    nodeless += f.classes.nodeless;
    crossZone += f.classes.cross_zone;
    sameZone += f.classes.local + (f.from === f.to ? f.classes.cross_node : 0);
  }
  return { local, sameZone, crossZone, ghost, nodeless, total };
}

/** An agent's assigned targets by the zone of their node (the left column of its zone flow): zones first, then no zone, no node. */
export function targetsByZone(flows: readonly ZoneFlow[]): { zone: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const f of flows) counts.set(f.from, (counts.get(f.from) ?? 0) + f.count);
  return [...counts.keys()].sort(byZone).map((zone) => ({ zone, count: counts.get(zone)! }));
}
