/** Checks on the agent pods: found by the selector, registered with their TA, known to Kubernetes, able to scrape. */
import type { Role } from "@/lib/model";
import type { CollectorRow } from "@/lib/analysis/types";
import type { Check, CheckStatus, CollectorSelector, Ctx } from "./context";
import { collectorsOf, notYet, perRole, plural, verdict } from "./util";

const selectorText = (s: CollectorSelector) =>
  `${Object.entries(s.selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(",") || "(empty selector)"} in namespace ${s.namespace}`;

export function collectorsDiscovered(c: Ctx): Check {
  const base = { id: "collectors-discovered", title: "Agent pods found", view: "/collectors", fix: "Compare the selector with the agent pods' labels (kubectl get pods -n <namespace> --show-labels). The operators label them app.kubernetes.io/managed-by=opentelemetry-operator (or amazon-cloudwatch-agent-operator), app.kubernetes.io/instance=<ns>.<name>, app.kubernetes.io/component=opentelemetry-collector (or amazon-cloudwatch-agent). If pods exist but none is eligible, kubectl describe pod / logs --previous shows why they are not Running and Ready." } as const;
  if (!c.roles.length) return notYet(base, "No TA role in the analysis.");
  const problems: string[] = [];
  const { status, evidence } = perRole(c, (r, s, evidence): CheckStatus => {
    const sel = c.input.selectors?.[r];
    if (!c.podsKnown(r)) {
      evidence.push(`${r}: agent pods not listed yet`);
      return "unknown";
    }
    if (s.collectorsTotal === 0) {
      problems.push(`${r}: no pod matches ${sel ? selectorText(sel) : "the configured selector"}`);
      return "fail";
    }
    if (s.collectorsEligible === 0) {
      const reasons = collectorsOf(c, r)
        .filter((x) => x.inKubernetes)
        .map((x) => `${x.id}: ${x.reason ?? "not eligible"}`);
      problems.push(`${r}: ${plural(s.collectorsTotal, "agent pod")}, none eligible (${reasons.slice(0, 3).join("; ")})`);
      return "fail";
    }
    evidence.push(`${r}: ${plural(s.collectorsTotal, "agent pod")}, ${s.collectorsEligible} eligible`);
    return "pass";
  });
  return verdict(base, status, [...problems, ...evidence], {
    fail: "A TA role has no eligible agent pod: nothing can scrape its targets.",
    unknown: "Agent pods have not been listed yet.",
    pass: "Every role has eligible agent pods.",
  });
}

export function collectorsMissingFromTa(c: Ctx): Check {
  const base = { id: "collectors-missing-from-ta", title: "Every eligible agent pod registered with its TA", view: "/collectors", fix: "A TA applies collector changes at most every 5 s: a new pod missing for one poll is lag. If it persists, the TA's pod watch has stalled (restart the TA) or its collector selector differs from the pods' labels (compare the TA's config collector_selector with kubectl get pods --show-labels)." } as const;
  const nodeOf = (r: Role, id: string) => collectorsOf(c, r).find((x) => x.id === id)?.node ?? "no node";
  const { status, evidence } = perRole(c, (r, s, evidence): CheckStatus => {
    if (s.taReady === null || !c.podsKnown(r)) return "unknown";
    if (s.jobs === 0) {
      evidence.push(`${r}: the TA serves no job, and it lists its collectors only under its jobs`);
      return "unknown";
    }
    const listed = collectorsOf(c, r).filter((x) => x.inTa && x.eligible).length;
    const none = s.missingFromTa.length > 0 && listed === 0;
    if (none) evidence.push(`${r}: the TA lists none of the ${s.collectorsEligible} eligible agent pods`);
    evidence.push(...s.missingFromTa.map((id) => `${r}: ${id} (${nodeOf(r, id)}) eligible but not listed by the TA`));
    return none ? "fail" : s.missingFromTa.length ? "warn" : "pass";
  });
  return verdict(base, status, evidence, {
    fail: "A TA discovers none of the agent pods: its collector selector or namespace does not match them.",
    warn: "Some eligible agent pods are not listed by their TA yet: they get no targets.",
    unknown: "Not known: a TA or the agent pods have not been read.",
    pass: "Every eligible agent pod is listed by its TA.",
  });
}

/** Per role, once its pods are listed: the collectors `pick` selects, failing where one of them holds targets. */
function badCollectors(c: Ctx, pick: (x: CollectorRow) => boolean, line: (r: Role, x: CollectorRow) => string) {
  let held = 0;
  const result = perRole(c, (r, _s, evidence): CheckStatus => {
    if (!c.podsKnown(r)) return "unknown";
    const rows = collectorsOf(c, r).filter(pick);
    held += rows.reduce((s, x) => s + x.targets, 0);
    evidence.push(...rows.map((x) => line(r, x)));
    return rows.some((x) => x.targets > 0) ? "fail" : rows.length ? "warn" : "pass";
  });
  return { ...result, held };
}

export function collectorsUnknownToKubernetes(c: Ctx): Check {
  const base = { id: "collectors-unknown-to-kubernetes", title: "TA collectors that Kubernetes does not know", view: "/collectors" } as const;
  const { status, evidence } = badCollectors(
    c,
    (x) => x.inTa && !x.inKubernetes,
    (r, x) => `${r}: ${x.id} holds ${plural(x.targets, "target")} and is not a pod matching the selector`,
  );
  const all = c.roles.some((r) => {
    const inTa = collectorsOf(c, r).filter((x) => x.inTa);
    return inTa.length > 0 && inTa.every((x) => !x.inKubernetes);
  });
  const fix = all
    ? "None of the TA's collectors is known: the dashboard's collector selector/namespace probably differs from the TA's; align them in the dashboard configuration."
    : "A pod deleted while the TA's watch was closed stays registered in TAs without a fresh List per watch session (the cloudwatch fork before it re-listed collectors on every watch session): restart the TA to rebuild its collector set, and upgrade it.";
  return verdict({ ...base, fix }, status, evidence, {
    fail: "A TA assigns targets to pods that do not exist: nothing scrapes them and its unassigned gauge stays at 0.",
    warn: "A TA lists pods that do not exist (they hold no targets).",
    unknown: "Agent pods have not been listed yet.",
    pass: "Every collector a TA lists is a known agent pod.",
  });
}

export function collectorsNotEligible(c: Ctx): Check {
  const base = { id: "collectors-not-eligible", title: "Registered collectors that cannot scrape", view: "/collectors" } as const;
  const { status, evidence, held } = badCollectors(
    c,
    (x) => x.inTa && x.inKubernetes && !x.eligible,
    (r, x) =>
      `${r}: ${x.id} on ${x.node ?? "no node"}: ${x.reason ?? "not eligible"}${x.restarts ? `, ${plural(x.restarts, "restart")}` : ""}; holds ${plural(x.targets, "target")}`,
  );
  const upstream = c.roles.some((r) => c.flavor(r) === "upstream");
  const fix =
    "Fix or delete the pod (kubectl describe pod, kubectl logs --previous for a crash loop). A cloudwatch TA that tracks readiness drops a pod as soon as it stops being Running and Ready; one that keeps it runs an older image: upgrade, or restart the TA to re-list." +
    (upstream ? " Upstream keeps a not-Ready pod for collector_not_ready_grace_period (30 s by default) and a terminating one until it is deleted." : "");
  return verdict({ ...base, fix }, status, evidence, {
    fail: `Agent pods that are not Ready, crash-looping or terminating are still registered and hold ${plural(held, "target")}: nothing scrapes them, and the TA's unassigned gauge does not count them.`,
    warn: "Some registered agent pods are not eligible (they hold no targets yet).",
    unknown: "Agent pods have not been listed yet.",
    pass: "Every collector the TAs list is eligible.",
  });
}
