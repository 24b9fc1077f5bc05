/** Node map, flows and node detail view shapes, reshaped once on the server. */
import type { Role } from "@/lib/model";
import { emptyClassCounts, type Analysis, type NodeRow, type NodeState, type TargetRow } from "@/lib/analysis/types";
import type { Flow, Freshness, NodeDetailView, NodesView, ZoneFlow } from "@/lib/api/schemas";

export type { Flow, NodeDetailView, NodesView, ZoneFlow } from "@/lib/api/schemas";

const emptyStates = (): Record<NodeState, number> => ({ healthy: 0, degraded: 0, no_collector: 0, ghosts: 0, idle: 0 });
const NO_ZONE = "(no zone)";

function addFlow(m: Map<string, ZoneFlow>, key: string, from: string, to: string, t: TargetRow): void {
  let f = m.get(key);
  if (!f) m.set(key, (f = { from, to, count: 0, classes: emptyClassCounts() }));
  f.count++;
  f.classes[t.class]++;
}

const byCount = (m: Map<string, ZoneFlow>): ZoneFlow[] => [...m.values()].sort((x, y) => y.count - x.count || x.from.localeCompare(y.from) || x.to.localeCompare(y.to));

function focusRole(a: Analysis): Role | null {
  return a.roles["per-node"] ? "per-node" : null;
}

const nodesViews = new WeakMap<Analysis, NodesView>();

/**
 * toNodesView once per analysis (one per poll), shared by every request until the next poll: at 5,000 nodes it walks
 * 150,000 targets (~50 ms), and every open node map asks for it every few seconds. Freshness comes from the same snapshot
 * as the analysis, so the cached view is exact; it is replaced when fresh says otherwise.
 */
export function nodesViewFor(a: Analysis, fresh: Freshness): NodesView {
  const cached = nodesViews.get(a);
  if (cached && cached.at === fresh.at && cached.pollIntervalMs === fresh.pollIntervalMs && JSON.stringify(cached.stale) === JSON.stringify(fresh.stale)) return cached;
  const view = toNodesView(a, fresh);
  nodesViews.set(a, view);
  return view;
}

export function toNodesView(a: Analysis, fresh: Freshness, flowCap = 60): NodesView {
  const byZone = new Map<string, NodeRow[]>();
  for (const n of a.nodes) {
    const z = n.zone ?? NO_ZONE;
    let list = byZone.get(z);
    if (!list) byZone.set(z, (list = []));
    list.push(n);
  }
  const role = focusRole(a);
  const zoneFlow = new Map<string, ZoneFlow>();
  const roleFlows = new Map<Role, Map<string, ZoneFlow>>();
  const nodeFlow = new Map<string, number>();
  const totals = { nodes: a.nodes.length, local: 0, crossNode: 0, crossZone: 0, nodeless: 0, ghost: 0 };
  for (const t of a.targets) {
    const from = t.node ? (t.zone ?? NO_ZONE) : "(no node)";
    const to = t.class === "ghost" ? "(ghost)" : (t.collectorZone ?? NO_ZONE);
    const zk = `${from}\u0000${to}`;
    let perRole = roleFlows.get(t.role);
    if (!perRole) roleFlows.set(t.role, (perRole = new Map()));
    addFlow(perRole, zk, from, to, t);
    if (role && t.role !== role) continue;
    if (t.class === "local") totals.local++;
    else if (t.class === "cross_node") totals.crossNode++;
    else if (t.class === "cross_zone") totals.crossZone++;
    else if (t.class === "nodeless") totals.nodeless++;
    else totals.ghost++;
    addFlow(zoneFlow, zk, from, to, t);
    if (t.node && t.collectorNode && t.node !== t.collectorNode) {
      const nk = `${t.node}\u0000${t.collectorNode}`;
      nodeFlow.set(nk, (nodeFlow.get(nk) ?? 0) + 1);
    }
  }
  const split = (m: Map<string, number>): Flow[] =>
    [...m].map(([k, count]) => {
      const [from, to] = k.split("\u0000");
      return { from, to, count };
    });
  return {
    ...fresh,
    cluster: a.cluster,
    zones: [...byZone]
      .sort(([x], [y]) => x.localeCompare(y))
      .map(([zone, nodes]) => {
        const byState = emptyStates();
        for (const n of nodes) byState[n.state]++;
        return { zone, nodes, byState };
      }),
    zoneFlows: byCount(zoneFlow),
    flowRole: role,
    zoneFlowsByRole: Object.fromEntries([...roleFlows].map(([r, m]) => [r, byCount(m)])),
    crossNodeFlows: split(nodeFlow)
      .sort((x, y) => y.count - x.count)
      .slice(0, flowCap),
    totals,
  };
}

export function toNodeDetail(a: Analysis, fresh: Freshness, name: string, cap = 500): NodeDetailView | null {
  const node = a.nodes.find((n) => n.name === name);
  if (!node) return null;
  const collectors = a.collectors.filter((c) => c.node === name);
  const ids = new Set(collectors.map((c) => c.id));
  return {
    ...fresh,
    cluster: a.cluster,
    node,
    collectors,
    targets: a.targets.filter((t) => t.node === name).slice(0, cap),
    scrapedForOthers: a.targets.filter((t) => ids.has(t.collector) && t.node !== name).slice(0, cap),
  };
}
