/** Checks on how the load sits on the collectors: spread evenly by hashing strategies, and not moved by flapping pods. */
import type { Check, CheckStatus, Ctx } from "./context";
import { FLAP_FAIL, FLAP_WARN, IMBALANCE_FAIL, IMBALANCE_MIN_MEAN, IMBALANCE_WARN } from "./context";
import { collectorsOf, mk, na, notYet, perRole, plural, verdict } from "./util";
import { formatDecimal } from "@/lib/format";

export function loadImbalance(c: Ctx): Check {
  const base = { id: "load-imbalance", title: "Load balanced over collectors", view: "/collectors", fix: "consistent-hashing keys the ring by target address only: a few jobs with many targets, or a ring rebuilt while collectors were missing, skew it. Check that every collector is eligible and listed, consider least-weighted, or add replicas." } as const;
  const { status, evidence, judged } = perRole(c, (r, s, evidence): CheckStatus | null => {
    const strategy = s.strategy ?? (r === "cluster-scraper" ? "consistent-hashing" : null);
    if (strategy === null || strategy === "per-node") return null; // per-node load follows how targets spread over nodes
    const rows = collectorsOf(c, r)
      .filter((x) => x.eligible && x.inTa)
      .sort((x, y) => y.targets - x.targets);
    const mean = rows.length ? rows.reduce((t, x) => t + x.targets, 0) / rows.length : 0;
    const m = s.imbalance.maxOverMean;
    if (rows.length < 2 || m === null || mean < IMBALANCE_MIN_MEAN) return "pass";
    evidence.push(
      `${r} (${strategy}): max/mean ${formatDecimal(m, 2)}, CV ${formatDecimal(s.imbalance.cv, 2, "?")} over ${rows.length} collectors; busiest ${rows[0].id} (${rows[0].targets}), idlest ${rows.at(-1)!.id} (${rows.at(-1)!.targets})`,
    );
    return m >= IMBALANCE_FAIL ? "fail" : m >= IMBALANCE_WARN ? "warn" : "pass";
  });
  if (!judged) return na(base.id, base.title, "no TA runs a hashing or least-weighted strategy", base.view);
  const skewed = `The busiest collector has ${status === "fail" ? "at least twice" : "clearly more than"} the mean number of targets: it saturates first.`;
  return verdict(base, status, evidence, { pass: "Targets are spread evenly over the collectors.", warn: skewed, fail: skewed, unknown: skewed });
}

export function collectorFlapping(c: Ctx): Check {
  const base = { id: "collector-flapping", title: "Collector readiness stable", view: "/churn" } as const;
  const churn = c.input.churn;
  if (!churn) return notYet(base, "No readiness history for this cluster yet.", "Wait for the history store to record pod events.");
  const f = churn.flapping.filter((x) => x.transitions >= FLAP_WARN).sort((x, y) => y.transitions - x.transitions);
  const status: CheckStatus = !f.length ? "pass" : f.some((x) => x.transitions >= FLAP_FAIL) ? "fail" : "warn";
  return mk({
    ...base,
    status,
    summary: f.length
      ? `${plural(f.length, "collector")} ${f.length === 1 ? "flaps" : "flap"} between Ready and not Ready: each flap moves ${c.a.roles["per-node"] ? "its node's targets away and back" : "targets over the hash ring"}.`
      : "No collector flaps.",
    evidence: f.map((x) => `${x.role}: ${x.pod} on ${x.node ?? "no node"}: ${plural(x.transitions, "readiness transition")}`),
    fix: "Check the agent's readiness probe thresholds, restarts and OOM kills (kubectl describe pod: Last State), and its CPU/memory limits against the targets it scrapes.",
  });
}
