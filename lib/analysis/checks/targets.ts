/** Checks on the targets: held by collectors that cannot scrape, unassigned (live and per the TA's gauge), assigned twice. */
import type { TargetRow } from "@/lib/analysis/types";
import type { Check, CheckStatus, Ctx } from "./context";
import { mk, notYet, perRole, plural, verdict } from "./util";

export function ghostTargets(c: Ctx): Check {
  const base = { id: "ghost-targets", title: "Targets assigned to collectors that cannot scrape (ghosts)", view: "/targets?class=ghost" } as const;
  const ghosts = c.a.targets.filter((t) => t.class === "ghost");
  const by = new Map<string, { t: TargetRow; n: number; nodes: Set<string> }>();
  for (const t of ghosts) {
    const k = `${t.role}\u0000${t.collector}`;
    const e = by.get(k) ?? { t, n: 0, nodes: new Set<string>() };
    e.n++;
    if (t.node) e.nodes.add(t.node);
    by.set(k, e);
  }
  const evidence = [...by.values()]
    .sort((x, y) => y.n - x.n)
    .map(({ t, n, nodes }) => `${t.role}: ${t.collector} (${t.reason ?? "not eligible"}) holds ${plural(n, "target")}${nodes.size ? ` of ${[...nodes].slice(0, 3).join(", ")}${nodes.size > 3 ? "…" : ""}` : ""}`);
  if (!c.roles.length) return notYet(base, "No TA has been read.");
  return mk({
    ...base,
    status: ghosts.length ? "fail" : "pass",
    summary: ghosts.length
      ? `${plural(ghosts.length, "target")} will not be scraped: their collector is gone, terminating or not Ready. They have a collector name, so the TA's unassigned gauge reads 0 for them.`
      : "No target sits on an ineligible collector.",
    evidence,
    fix: "Restart the TA to make it re-list its collectors, fix or delete the stuck agent pod, and upgrade TAs that register pods without checking Running/Ready (see Registered collectors that cannot scrape).",
  });
}

export function unassignedTargets(c: Ctx): Check {
  const base = { id: "unassigned-targets", title: "Unassigned targets", view: "/nodes" } as const;
  const fixes = new Set<string>();
  const { status, evidence } = perRole(c, (r, s, evidence): CheckStatus => {
    if (s.unassigned === null) {
      evidence.push(`${r}: the TA's metrics do not give the count`);
      return "unknown";
    }
    const status: CheckStatus = s.unassigned > 0 ? "fail" : "pass";
    if (s.unassigned <= 0) return status;
    evidence.push(`${r}: ${plural(s.unassigned, "unassigned target")} (${c.flavor(r)}, strategy ${s.strategy ?? "unknown"})`);
    if (s.strategy === "per-node" || (s.strategy === null && r === "per-node")) {
      fixes.add(
        c.flavor(r) === "upstream"
          ? "Upstream per-node leaves targets without a node unassigned unless allocation_fallback_strategy: consistent-hashing is set, and always leaves targets whose node has no collector unassigned: set the fallback and run the DaemonSet on every node."
          : "The cloudwatch per-node TA falls back to consistent-hashing for nodeless targets and nodes without a collector: unassigned targets mean no fallback is configured (look for the one-time warning in the TA's log) or no eligible collector at all.",
      );
    } else fixes.add("A hashing TA leaves targets unassigned only when it has no allocatable collector: see Agent pods found.");
    return status;
  });
  return verdict({ ...base, fix: [...fixes].join(" ") || "Nothing to do." }, status, evidence, {
    fail: "Some targets are known to a TA but assigned to no collector: nothing scrapes them, and the TA's JSON does not list them.",
    unknown: "The live unassigned count is not known for every TA.",
    pass: "Every target a TA knows is assigned.",
  });
}

export function unassignedGauge(c: Ctx): Check {
  const base = { id: "unassigned-gauge", title: "The TA's own unassigned gauge matches the live count", view: "/diagnostics", fix: "Alert on allocation_lens_unassigned_targets, or compute targets_remaining - sum(targets_per_collector) from the TA's metrics, rather than on upstream's sticky opentelemetry_allocator_targets_unassigned." } as const;
  const { status, evidence } = perRole(c, (r, s, evidence): CheckStatus => {
    if (s.unassigned === null) return "unknown";
    if (s.unassignedReported === null) {
      // Upstream exports its gauge only once an assignment has failed: absent reads as 0 to an alert.
      if (s.unassigned > 0) evidence.push(`${r}: the TA exports no unassigned gauge, the live count is ${s.unassigned}`);
      return s.unassigned > 0 ? "fail" : "pass";
    }
    if (s.unassignedReported === s.unassigned) return "pass";
    // An alert on the TA's gauge stays silent while targets are lost: a blind spot. A stale non-zero gauge is only noise.
    evidence.push(`${r}: the TA's gauge reads ${s.unassignedReported}, the live count is ${s.unassigned}`);
    return s.unassignedReported < s.unassigned ? "fail" : "warn";
  });
  return verdict(base, status, evidence, {
    fail: "A TA's unassigned gauge reads lower than the live count: alerts on it miss targets that nothing scrapes.",
    warn: "A TA's unassigned gauge is stale (upstream writes it only when an assignment fails and never resets it): alerts on it fire falsely.",
    unknown: "The TA's metrics do not give both numbers.",
    pass: "The TA's gauge matches the live count.",
  });
}

export function duplicateTargets(c: Ctx): Check {
  const base = { id: "duplicate-targets", title: "Targets scraped twice", view: "/targets" } as const;
  if (!c.roles.length) return notYet(base, "No TA has been read.");
  const d = c.a.duplicates;
  const crossRole = d.filter((x) => new Set(x.holders.map((h) => h.role)).size > 1).length;
  return mk({
    ...base,
    status: d.length ? "fail" : "pass",
    summary: d.length
      ? `${plural(d.length, "target")} (same job and address) ${d.length === 1 ? "is" : "are"} assigned twice: ${crossRole} across both TAs, ${d.length - crossRole} within one TA.`
      : "No job and address is assigned to two collectors.",
    evidence: d.map((x) => `${x.job} ${x.address}: ${x.holders.map((h) => `${h.role}/${h.collector}`).join(", ")}`),
    fix: "Across both TAs: a static scrape config present in both agents' configurations (static configs are not routed) or routing off in one TA; keep the job in one agent only. Within one TA the same target on two collectors is an inconsistent TA: restart it.",
  });
}
