/** Checks of per-node allocation: an agent on every node, one per node, the TA agreeing with the strategy, locality. */
import { ROLES } from "@/lib/model";
import type { Check, CheckStatus, Ctx } from "./context";
import { LOCALITY_FAIL } from "./context";
import { mk, na, notYet, pct, plural, verdict } from "./util";

function perNodeApplies(c: Ctx): string | null {
  if (!c.a.roles["per-node"]) return "no per-node TA in this cluster";
  const strategy = c.sum("per-node").strategy;
  if (strategy && strategy !== "per-node") return `the per-node TA runs strategy ${strategy}`;
  return null;
}

export function nodesWithoutCollector(c: Ctx): Check {
  const base = { id: "nodes-without-collector", title: "Nodes without a per-node agent", view: "/nodes" } as const;
  const title = base.title;
  const why = perNodeApplies(c);
  if (why) return na(base.id, title, why, base.view);
  if (!c.podsKnown("per-node")) return notYet(base, "Agent pods have not been listed yet.", "Wait.");
  const withTargets = new Set(c.a.nodesWithoutCollector);
  const affected = c.a.nodes.filter((n) => n.ready && !n.collectors.some((x) => x.role === "per-node"));
  const total = (n: (typeof c.a.nodes)[number]) => Object.values(n.targets).reduce((s, v) => s + v, 0);
  const flavor = c.flavor("per-node");
  const unassigned = c.sum("per-node").unassigned ?? 0;
  const status: CheckStatus = !affected.length ? "pass" : flavor === "upstream" || unassigned > 0 ? "fail" : "warn";
  return mk({
    ...base,
    status,
    summary: !affected.length
      ? "Every Ready node runs a per-node agent pod."
      : `${plural(affected.length, "Ready node")} ${affected.length === 1 ? "has" : "have"} no per-node agent pod: ${
          flavor === "upstream"
            ? "upstream per-node leaves every target there unassigned (no fallback for targets with a node)."
            : unassigned > 0
              ? `the TA reports ${plural(unassigned, "unassigned target")}.`
              : "their targets are scraped across nodes by the fallback."
        }`,
    evidence: affected.map(
      (n) => `${n.name} (${n.zone ?? "no zone"}): ${withTargets.has(n.name) ? `${plural(total(n), "target")} scraped from another node` : "no agent pod"}`,
    ),
    fix: "The DaemonSet has no pod there: compare the nodes' taints with the agent's tolerations (kubectl describe node <node> | grep -A3 Taints), check its nodeSelector/affinity, and look for a Pending agent pod (kubectl get pods -o wide --field-selector spec.nodeName=<node>).",
  });
}

export function multiplePodsPerNode(c: Ctx): Check {
  const base = { id: "multiple-pods-per-node", title: "Two agent pods on one node", view: "/nodes", fix: "Transient during a DaemonSet rollout with maxSurge. If it lasts, an old pod is stuck terminating (finalizers, kubectl get pod -o yaml) or the rollout is stalled (kubectl rollout status ds/<agent>); a TA that keeps targets on a deleted or not-Ready pod needs a restart and an upgrade." } as const;
  const nodes = c.a.nodes.filter((n) => n.multiplePods);
  let status: CheckStatus = nodes.length ? "warn" : "pass";
  const evidence: string[] = [];
  // the collectors holding each node's own targets, per role: one pass over the targets (during a surge rollout at
  // 5,000 nodes most nodes have two pods, and a pass per node was quadratic: seconds per poll)
  const holdersOf = new Map<string, Set<string>>();
  if (nodes.length) {
    const wanted = new Set(nodes.map((n) => n.name));
    for (const t of c.a.targets) {
      if (!t.node || t.collectorNode !== t.node || !t.collector || !wanted.has(t.node)) continue;
      const k = `${t.role}\u0000${t.node}`;
      let set = holdersOf.get(k);
      if (!set) holdersOf.set(k, (set = new Set()));
      set.add(t.collector);
    }
  }
  for (const n of nodes) {
    for (const r of ROLES) {
      const pods = n.collectors.filter((x) => x.role === r).sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      if (pods.length < 2) continue;
      const eligible = pods.filter((x) => x.eligible);
      const winner = eligible.length > 1 ? `${eligible[0].id} wins (smaller name)` : eligible.length ? `${eligible[0].id} is the eligible one` : null;
      const holders = holdersOf.get(`${r}\u0000${n.name}`) ?? new Set<string>();
      const stuck = pods.filter((x) => !x.eligible && holders.has(x.id));
      if (stuck.length) status = "fail";
      evidence.push(
        `${n.name} (${r}): ${pods.map((x) => `${x.id}${x.eligible ? "" : ` (${x.reason ?? "not eligible"})`}`).join(", ")}; ${
          stuck.length ? `targets held by ${stuck.map((x) => x.id).join(", ")}, which cannot scrape` : (winner ?? "none eligible")
        }`,
      );
    }
  }
  return verdict(base, status, evidence, {
    pass: "No node runs two agent pods of one role.",
    fail: "On a node with two agent pods, the node's targets sit on the pod that cannot scrape.",
    warn: `${plural(nodes.length, "node")} ${nodes.length === 1 ? "runs" : "run"} two agent pods of one role (rollout surge): the TA keeps the lexicographically smaller pod name.`,
  });
}

export function perNodeDrift(c: Ctx): Check {
  const base = { id: "per-node-drift", title: "Per-node TA agrees with the per-node strategy", view: "/nodes", fix: "A TA applies collector changes at most every 5 s, so drift for one poll is lag. If it persists, the TA's collector set is stale (a pod deleted or replaced while its watch was closed): restart the TA, and upgrade to a version that re-lists on every watch session." } as const;
  const why = perNodeApplies(c);
  if (why) return na(base.id, base.title, why, base.view);
  const drifted = c.a.targets.filter((t) => t.role === "per-node" && t.expected);
  const by = new Map<string, { node: string; collector: string; expected: string; n: number; ghost: boolean }>();
  for (const t of drifted) {
    const k = `${t.node}\u0000${t.collector}`;
    const e = by.get(k) ?? { node: t.node ?? "?", collector: t.collector, expected: t.expected!, n: 0, ghost: t.class === "ghost" };
    e.n++;
    by.set(k, e);
  }
  const ghost = [...by.values()].some((e) => e.ghost);
  const status: CheckStatus = !drifted.length ? "pass" : ghost ? "fail" : "warn";
  const evidence = [...by.values()]
    .sort((x, y) => Number(y.ghost) - Number(x.ghost) || y.n - x.n)
    .map((e) => `${e.node}: ${plural(e.n, "target")} on ${e.collector}${e.ghost ? " (cannot scrape)" : ""}, expected ${e.expected}`);
  return verdict(base, status, evidence, {
    pass: "Every per-node target sits on the collector the strategy picks from the Kubernetes view.",
    fail: "The per-node TA keeps targets on a pod that cannot scrape while an eligible pod runs on their node: its collector registry is stale.",
    warn: `${plural(drifted.length, "target")} sit on another collector than the strategy picks (the TA has not caught up yet).`,
  });
}

export function crossNodeScraping(c: Ctx): Check {
  const base = { id: "cross-node-scraping", title: "Per-node scraping stays on the node", view: "/nodes" } as const;
  const why = perNodeApplies(c);
  if (why) return na(base.id, base.title, `${why}, so no locality is expected`, base.view);
  const s = c.sum("per-node");
  const cross = s.classes.cross_node + s.classes.cross_zone;
  if (s.localityRatio === null || cross + s.classes.local === 0) return na(base.id, base.title, "the per-node TA has no target with a node", base.view);
  const status: CheckStatus = s.localityRatio < LOCALITY_FAIL ? "fail" : cross > 0 ? "warn" : "pass";
  const nodes = c.a.nodes
    .filter((n) => n.scrapedElsewhere > 0)
    .sort((x, y) => y.scrapedElsewhere - x.scrapedElsewhere)
    .map((n) => {
      const pn = n.collectors.filter((x) => x.role === "per-node");
      const why = !pn.length ? "no agent pod" : pn.some((x) => x.eligible) ? "agent eligible" : `agent ${pn.map((x) => x.reason ?? "not eligible").join(", ")}`;
      return `${n.name} (${n.zone ?? "no zone"}): ${plural(n.scrapedElsewhere, "target")} scraped from another node (${why})`;
    });
  return mk({
    ...base,
    status,
    summary:
      status === "pass"
        ? `Locality ${pct(s.localityRatio)}: every node-bound target is scraped on its own node.`
        : `Locality ${pct(s.localityRatio)}: ${plural(s.classes.cross_node, "target")} cross nodes and ${plural(s.classes.cross_zone, "target")} cross zones (the fallback is in use${
            status === "fail" ? ", or the TA is not allocating per node" : ""
          }).${s.classes.cross_zone ? " Cross-zone scrapes cost inter-AZ transfer." : ""}`,
    evidence: [`per-node: ${s.classes.local} local, ${s.classes.cross_node} cross-node, ${s.classes.cross_zone} cross-zone`, ...nodes],
    fix: "Targets leave their node when its agent pod is missing or not eligible: see Nodes without a per-node agent and Registered collectors that cannot scrape. Locality that stays low with every agent eligible means the TA does not run allocationStrategy: per-node (the webhook accepts it only with mode: daemonset).",
  });
}
