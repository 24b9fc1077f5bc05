/**
 * Diagnostics: every manual troubleshooting step of a Target Allocator setup (kubectl get pods/svc/crd, curl /readyz, /jobs,
 * /jobs/<job>/targets?collector_id=...) and every failure found in the review of the per-node change (seed 000: stale or
 * not-Ready collectors keeping a node's targets, pods deleted between watch sessions, rollout surge), turned into checks
 * computed from one snapshot. Pure: no I/O, time comes in as nowMs.
 *
 * The checks keep a stable logical order (sources, collectors, targets, nodes, monitors, load, churn); views sort by status.
 */
import type { Flavor, Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import type { Analysis, MonitorRow, RoleSummary, TargetRow } from "@/lib/analysis/types";
import type { SourceErrorInfo, SourceErrorKind } from "@/lib/source-error";

export type CheckStatus = "pass" | "warn" | "fail" | "unknown";

export interface Check {
  id: string;
  title: string;
  status: CheckStatus;
  summary: string;
  /** concrete facts: pod names, node names, counts; at most MAX_EVIDENCE items plus "and N more" */
  evidence: string[];
  fix: string;
  /** the dashboard page that explains it */
  view: string;
}

export interface SourceLike {
  source: string;
  state: "starting" | "ok" | "stale" | "error";
  lastSuccess?: number | null;
  latencyMs?: number | null;
  error: SourceErrorInfo | null;
}

export interface FlappingCollector {
  pod: string;
  role: Role;
  node: string | null;
  transitions: number;
}

export interface ChurnLike {
  flapping: readonly FlappingCollector[];
}

/** The dashboard's own collector selector per role (from its configuration), named when no pod matches it. */
export interface CollectorSelector {
  namespace: string;
  selector: Readonly<Record<string, string>>;
}

export interface DiagnoseInput {
  analysis: Analysis;
  sources: readonly SourceLike[];
  /** defaults to each role summary's flavor */
  flavorByRole?: Partial<Record<Role, Flavor>>;
  selectors?: Partial<Record<Role, CollectorSelector>>;
  /** readiness churn, when the history store has it; null or absent: the flapping check is unknown */
  churn?: ChurnLike | null;
  nowMs: number;
}

export const MAX_EVIDENCE = 10;
/** Load imbalance (max/mean of targets per collector) for hashing strategies: upstream's bounded load is 1.1. */
export const IMBALANCE_WARN = 1.25;
export const IMBALANCE_FAIL = 2;
/** Below this mean of targets per collector, imbalance is noise. */
export const IMBALANCE_MIN_MEAN = 5;
/** Per-node locality below this ratio means per-node allocation is not doing its job. */
export const LOCALITY_FAIL = 0.5;
/** Readiness transitions of one collector in the churn window: from FLAP_WARN it flaps, from FLAP_FAIL it fails. */
export const FLAP_WARN = 3;
export const FLAP_FAIL = 10;

export const CHECK_IDS = [
  "ta-reachable",
  "ta-ready",
  "kube-reachable",
  "kube-rbac",
  "monitor-crds",
  "collectors-discovered",
  "collectors-missing-from-ta",
  "collectors-unknown-to-kubernetes",
  "collectors-not-eligible",
  "ghost-targets",
  "unassigned-targets",
  "unassigned-gauge",
  "nodes-without-collector",
  "multiple-pods-per-node",
  "per-node-drift",
  "cross-node-scraping",
  "monitors-double",
  "monitors-orphaned",
  "monitors-misrouted",
  "jobs-without-targets",
  "duplicate-targets",
  "load-imbalance",
  "collector-flapping",
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

const RANK: Record<CheckStatus, number> = { pass: 0, unknown: 1, warn: 2, fail: 3 };

/** The most severe of some statuses (fail > warn > unknown > pass); pass for none. */
export function worst(statuses: readonly CheckStatus[]): CheckStatus {
  return statuses.reduce<CheckStatus>((w, s) => (RANK[s] > RANK[w] ? s : w), "pass");
}

/** At most `max` items, then "and N more". */
export function cap(items: readonly string[], max = MAX_EVIDENCE): string[] {
  return items.length <= max ? [...items] : [...items.slice(0, max), `and ${items.length - max} more`];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const pct = (r: number) => `${(r * 100).toFixed(1)} %`;

export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

type Parsed = { kind: "ta"; role: Role } | { kind: "kube"; what: string } | { kind: "other" };

/** Source names are `<cluster>/ta/<role>` and `<cluster>/kube/<what>` (pods/<role>, nodes, servicemonitors, podmonitors). */
export function parseSource(source: string): Parsed {
  const ta = /\/ta\/(per-node|cluster-scraper)$/.exec(source);
  if (ta) return { kind: "ta", role: ta[1] as Role };
  const kube = /\/kube\/(.+)$/.exec(source);
  if (kube) return { kind: "kube", what: kube[1] };
  return { kind: "other" };
}

const parseRole = (source: string) => {
  const p = parseSource(source);
  return p.kind === "ta" ? p.role : source;
};

const TA_FIX: Partial<Record<SourceErrorKind, string>> = {
  network:
    "Check that the TA pod runs and its Service exists (kubectl get pods,svc -n <namespace> -l app.kubernetes.io/component=opentelemetry-targetallocator, or the cloudwatch <agent>-target-allocator-service), that the URL in the dashboard configuration names that Service and port, and that no NetworkPolicy blocks the dashboard.",
  timeout: "The TA answers too slowly: check its CPU and memory limits (kubectl top pod) and raise timeoutSeconds only if it is merely large.",
  tls: "A cloudwatch TA requires mTLS (TLS 1.3, client certificate): configure tls.ca (the CA of the TA's server certificate) and tls.cert/tls.key signed by the TA's client CA; upstream serves HTTPS only on :8443.",
  forbidden: "The TA (or a proxy in front of it) refuses the dashboard's credentials: check bearerTokenFile and the client certificate.",
  parse: "The answer is not what a TA serves: check that the URL points at the TA and not at an ingress or proxy page.",
  schema: "The TA answered an unexpected shape: check the TA version against the reference (a changed upstream shows here first).",
  http: "The TA answered an HTTP error: read its logs (kubectl logs <ta-pod>).",
  not_found: "The path does not exist on that server: check the URL points at the TA's Service, not at a collector.",
  too_large: "The TA's answer exceeds maxResponseBytes: raise it for this cluster.",
  config: "Fix the TA entry of this cluster in the dashboard configuration.",
};

interface Ctx {
  a: Analysis;
  roles: Role[];
  sum: (r: Role) => RoleSummary;
  flavor: (r: Role) => Flavor;
  sources: { s: SourceLike; p: Parsed }[];
  podsKnown: (r: Role) => boolean;
  input: DiagnoseInput;
}

type Make = Omit<Check, "evidence"> & { evidence?: string[] };
const mk = (c: Make): Check => ({ ...c, evidence: cap(c.evidence ?? []) });

function na(id: CheckId, title: string, why: string, view: string, fix = "Nothing to do."): Check {
  return mk({ id, title, status: "pass", summary: `Not applicable: ${why}.`, fix, view });
}

function sourceLine(s: SourceLike, nowMs: number): string {
  const e = s.error;
  const age = s.lastSuccess ? `; last success ${formatAge(nowMs - s.lastSuccess)} ago` : "; never succeeded";
  return `${s.source}: ${e ? `${e.kind}${e.status ? ` ${e.status}` : ""}: ${e.message}` : s.state}${age}`;
}

function sourceStatus(s: SourceLike): CheckStatus {
  return s.state === "ok" ? "pass" : s.state === "starting" ? "unknown" : s.state === "stale" ? "warn" : "fail";
}

// ---- sources --------------------------------------------------------------------------------------------------------------

function taReachable(c: Ctx): Check {
  const base = { id: "ta-reachable", title: "Target Allocators reachable", view: "/diagnostics" } as const;
  const tas = c.sources.filter((x) => x.p.kind === "ta").map((x) => x.s);
  if (!tas.length) return mk({ ...base, status: "unknown", summary: "No Target Allocator source has reported yet.", fix: "Wait for the first poll." });
  const status = worst(tas.map(sourceStatus));
  const bad = tas.filter((s) => s.state !== "ok");
  const kinds = [...new Set(bad.map((s) => s.error?.kind).filter((k): k is SourceErrorKind => Boolean(k)))];
  const hints = [...new Set(bad.map((s) => s.error?.hint).filter(Boolean))];
  const fix = [...hints, ...kinds.map((k) => TA_FIX[k]).filter(Boolean)].join(" ") || "Nothing to do.";
  const summary =
    status === "pass"
      ? `Every TA answered at the last poll (${tas.map((s) => `${parseRole(s.source)} in ${s.latencyMs != null ? Math.round(s.latencyMs) : "?"} ms`).join(", ")}).`
      : status === "unknown"
        ? "The first poll of a TA has not finished yet."
        : status === "warn"
          ? `${plural(bad.length, "TA")} failed at the last poll; its last good data is shown.`
          : `${plural(bad.filter((s) => s.state === "error").length, "TA")} cannot be read and never could: nothing about its allocation is known.`;
  return mk({ ...base, status, summary, evidence: bad.map((s) => sourceLine(s, c.input.nowMs)), fix });
}

function taReady(c: Ctx): Check {
  const base = { id: "ta-ready", title: "Target Allocators ready (/readyz)", view: "/diagnostics" } as const;
  if (!c.roles.length) return mk({ ...base, status: "unknown", summary: "No TA role in the analysis.", fix: "Wait for the first poll." });
  const notReady = c.roles.filter((r) => c.sum(r).taReady === false);
  const unknown = c.roles.filter((r) => c.sum(r).taReady === null);
  const status: CheckStatus = notReady.length ? "fail" : unknown.length ? "unknown" : "pass";
  return mk({
    ...base,
    status,
    summary:
      status === "fail"
        ? `${notReady.join(", ")}: /readyz answers 503, the TA has not loaded its first scrape configuration.`
        : status === "unknown"
          ? `No /readyz answer yet from ${unknown.join(", ")}.`
          : "Every TA answers 200 on /readyz.",
    evidence: [...notReady.map((r) => `${r}: /readyz is not 200`), ...unknown.map((r) => `${r}: never read`)],
    fix:
      "Read the TA's logs (kubectl logs deploy/<name>-targetallocator): a config error, image pull failure or missing RBAC on the objects its scrape configs discover keeps it unready; check its ConfigMap and its pod's resources.",
  });
}

const isMonitorSource = (what: string) => what === "servicemonitors" || what === "podmonitors";

function kubeReachable(c: Ctx): Check {
  const base = { id: "kube-reachable", title: "Kubernetes API reachable", view: "/diagnostics" } as const;
  const kube = c.sources.filter((x) => x.p.kind === "kube").map((x) => x.s);
  const relevant = kube.filter((s) => !(s.error && (s.error.kind === "forbidden" || s.error.kind === "not_found")));
  if (!kube.length) return mk({ ...base, status: "unknown", summary: "No Kubernetes source has reported yet.", fix: "Wait for the informers to list." });
  const status = worst(relevant.map(sourceStatus));
  const bad = relevant.filter((s) => s.state !== "ok");
  return mk({
    ...base,
    status,
    summary:
      status === "pass"
        ? "Every Kubernetes list/watch is up to date (RBAC and CRD problems are separate checks)."
        : status === "unknown"
          ? "Some Kubernetes informers have not listed yet."
          : `${plural(bad.length, "Kubernetes informer")} ${status === "fail" ? "never listed" : "lost its watch; the last listed objects are used"}.`,
    evidence: bad.map((s) => sourceLine(s, c.input.nowMs)),
    fix: "Check the kubeconfig/context or in-cluster service account of this cluster and that the API server is reachable from the dashboard (kubectl --context <ctx> get --raw /version).",
  });
}

function kubeRbac(c: Ctx): Check {
  const base = { id: "kube-rbac", title: "Kubernetes RBAC", view: "/diagnostics" } as const;
  const kube = c.sources.filter((x) => x.p.kind === "kube").map((x) => x.s);
  const forbidden = kube.filter((s) => s.error?.kind === "forbidden");
  if (forbidden.length) {
    return mk({
      ...base,
      status: "fail",
      summary: `The dashboard's service account may not list/watch ${plural(forbidden.length, "resource")}.`,
      evidence: forbidden.map((s) => `${s.source}: ${s.error!.message}`),
      fix: [...new Set(forbidden.map((s) => s.error!.hint).filter(Boolean))].join(" ") || "Grant get, list and watch on pods, nodes, servicemonitors and podmonitors in the dashboard's ClusterRole.",
    });
  }
  const answered = kube.filter((s) => s.state !== "starting");
  return mk({
    ...base,
    status: answered.length ? "pass" : "unknown",
    summary: answered.length ? "No Kubernetes read was refused." : "No Kubernetes source has answered yet.",
    fix: "Nothing to do.",
  });
}

function monitorCrds(c: Ctx): Check {
  const base = { id: "monitor-crds", title: "ServiceMonitor and PodMonitor CRDs installed", view: "/ownership" } as const;
  const mons = c.sources.filter((x) => x.p.kind === "kube" && isMonitorSource(x.p.what)).map((x) => x.s);
  const missing = mons.filter((s) => s.error?.kind === "not_found");
  const fix =
    "Install the monitoring.coreos.com/v1 CRDs (prometheus-operator's bundle or kube-prometheus-stack): kubectl get crd servicemonitors.monitoring.coreos.com podmonitors.monitoring.coreos.com. A TA starts a monitor informer only for CRDs present when it starts: restart the TAs after installing them.";
  if (missing.length) {
    const both = missing.length >= 2;
    return mk({
      ...base,
      status: both ? "fail" : "warn",
      summary: both
        ? "Neither the ServiceMonitor nor the PodMonitor CRD is installed: no monitor can be scraped, only static scrape configs."
        : `${missing.map((s) => s.error!.message).join("; ")}: monitors of that kind cannot exist.`,
      evidence: missing.map((s) => `${s.source}: ${s.error!.message}`),
      fix,
    });
  }
  if (!mons.length || mons.some((s) => s.state === "starting") || mons.every((s) => s.state === "error"))
    return mk({ ...base, status: "unknown", summary: "The monitor CRDs have not been read yet.", fix });
  return mk({ ...base, status: "pass", summary: "Both CRDs are installed and readable.", fix: "Nothing to do." });
}

// ---- collectors -----------------------------------------------------------------------------------------------------------

const selectorText = (s: CollectorSelector) =>
  `${Object.entries(s.selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(",") || "(empty selector)"} in namespace ${s.namespace}`;

const collectorsOf = (c: Ctx, r: Role) => c.a.collectors.filter((x) => x.role === r);

function collectorsDiscovered(c: Ctx): Check {
  const base = { id: "collectors-discovered", title: "Agent pods found", view: "/collectors" } as const;
  if (!c.roles.length) return mk({ ...base, status: "unknown", summary: "No TA role in the analysis.", fix: "Wait for the first poll." });
  const statuses: CheckStatus[] = [];
  const evidence: string[] = [];
  const problems: string[] = [];
  for (const r of c.roles) {
    const s = c.sum(r);
    const sel = c.input.selectors?.[r];
    if (!c.podsKnown(r)) {
      statuses.push("unknown");
      evidence.push(`${r}: agent pods not listed yet`);
    } else if (s.collectorsTotal === 0) {
      statuses.push("fail");
      problems.push(`${r}: no pod matches ${sel ? selectorText(sel) : "the configured selector"}`);
    } else if (s.collectorsEligible === 0) {
      statuses.push("fail");
      const reasons = collectorsOf(c, r)
        .filter((x) => x.inKubernetes)
        .map((x) => `${x.id}: ${x.reason ?? "not eligible"}`);
      problems.push(`${r}: ${plural(s.collectorsTotal, "agent pod")}, none eligible (${reasons.slice(0, 3).join("; ")})`);
    } else {
      statuses.push("pass");
      evidence.push(`${r}: ${plural(s.collectorsTotal, "agent pod")}, ${s.collectorsEligible} eligible`);
    }
  }
  const status = worst(statuses);
  return mk({
    ...base,
    status,
    summary:
      status === "fail"
        ? "A TA role has no eligible agent pod: nothing can scrape its targets."
        : status === "unknown"
          ? "Agent pods have not been listed yet."
          : "Every role has eligible agent pods.",
    evidence: [...problems, ...evidence],
    fix: "Compare the selector with the agent pods' labels (kubectl get pods -n <namespace> --show-labels). The operators label them app.kubernetes.io/managed-by=opentelemetry-operator (or amazon-cloudwatch-agent-operator), app.kubernetes.io/instance=<ns>.<name>, app.kubernetes.io/component=opentelemetry-collector (or amazon-cloudwatch-agent). If pods exist but none is eligible, kubectl describe pod / logs --previous shows why they are not Running and Ready.",
  });
}

function collectorsMissingFromTa(c: Ctx): Check {
  const base = { id: "collectors-missing-from-ta", title: "Every eligible agent pod registered with its TA", view: "/collectors" } as const;
  const statuses: CheckStatus[] = [];
  const evidence: string[] = [];
  for (const r of c.roles) {
    const s = c.sum(r);
    if (s.taReady === null || !c.podsKnown(r)) {
      statuses.push("unknown");
      continue;
    }
    if (s.jobs === 0) {
      statuses.push("unknown");
      evidence.push(`${r}: the TA serves no job, and it lists its collectors only under its jobs`);
      continue;
    }
    const listed = collectorsOf(c, r).filter((x) => x.inTa && x.eligible).length;
    if (s.missingFromTa.length && listed === 0) {
      statuses.push("fail");
      evidence.push(`${r}: the TA lists none of the ${s.collectorsEligible} eligible agent pods`);
    } else if (s.missingFromTa.length) statuses.push("warn");
    else statuses.push("pass");
    const node = (id: string) => collectorsOf(c, r).find((x) => x.id === id)?.node ?? "no node";
    evidence.push(...s.missingFromTa.map((id) => `${r}: ${id} (${node(id)}) eligible but not listed by the TA`));
  }
  const status = c.roles.length ? worst(statuses) : "unknown";
  return mk({
    ...base,
    status,
    summary:
      status === "fail"
        ? "A TA discovers none of the agent pods: its collector selector or namespace does not match them."
        : status === "warn"
          ? "Some eligible agent pods are not listed by their TA yet: they get no targets."
          : status === "unknown"
            ? "Not known: a TA or the agent pods have not been read."
            : "Every eligible agent pod is listed by its TA.",
    evidence,
    fix: "A TA applies collector changes at most every 5 s: a new pod missing for one poll is lag. If it persists, the TA's pod watch has stalled (restart the TA) or its collector selector differs from the pods' labels (compare the TA's config collector_selector with kubectl get pods --show-labels).",
  });
}

function collectorsUnknownToKubernetes(c: Ctx): Check {
  const base = { id: "collectors-unknown-to-kubernetes", title: "TA collectors that Kubernetes does not know", view: "/collectors" } as const;
  const statuses: CheckStatus[] = [];
  const evidence: string[] = [];
  for (const r of c.roles) {
    if (!c.podsKnown(r)) {
      statuses.push("unknown");
      continue;
    }
    const rows = collectorsOf(c, r).filter((x) => x.inTa && !x.inKubernetes);
    statuses.push(rows.some((x) => x.targets > 0) ? "fail" : rows.length ? "warn" : "pass");
    evidence.push(...rows.map((x) => `${r}: ${x.id} holds ${plural(x.targets, "target")} and is not a pod matching the selector`));
  }
  const status = c.roles.length ? worst(statuses) : "unknown";
  const all = c.roles.some((r) => {
    const inTa = collectorsOf(c, r).filter((x) => x.inTa);
    return inTa.length > 0 && inTa.every((x) => !x.inKubernetes);
  });
  return mk({
    ...base,
    status,
    summary:
      status === "fail"
        ? "A TA assigns targets to pods that do not exist: nothing scrapes them and its unassigned gauge stays at 0."
        : status === "warn"
          ? "A TA lists pods that do not exist (they hold no targets)."
          : status === "unknown"
            ? "Agent pods have not been listed yet."
            : "Every collector a TA lists is a known agent pod.",
    evidence,
    fix: all
      ? "None of the TA's collectors is known: the dashboard's collector selector/namespace probably differs from the TA's; align them in the dashboard configuration."
      : "A pod deleted while the TA's watch was closed stays registered in TAs without a fresh List per watch session (the cloudwatch fork before #415): restart the TA to rebuild its collector set, and upgrade it.",
  });
}

function collectorsNotEligible(c: Ctx): Check {
  const base = { id: "collectors-not-eligible", title: "Registered collectors that cannot scrape", view: "/collectors" } as const;
  const statuses: CheckStatus[] = [];
  const evidence: string[] = [];
  let held = 0;
  for (const r of c.roles) {
    if (!c.podsKnown(r)) {
      statuses.push("unknown");
      continue;
    }
    const rows = collectorsOf(c, r).filter((x) => x.inTa && x.inKubernetes && !x.eligible);
    held += rows.reduce((s, x) => s + x.targets, 0);
    statuses.push(rows.some((x) => x.targets > 0) ? "fail" : rows.length ? "warn" : "pass");
    evidence.push(
      ...rows.map(
        (x) =>
          `${r}: ${x.id} on ${x.node ?? "no node"}: ${x.reason ?? "not eligible"}${x.restarts ? `, ${plural(x.restarts, "restart")}` : ""}; holds ${plural(x.targets, "target")}`,
      ),
    );
  }
  const status = c.roles.length ? worst(statuses) : "unknown";
  const upstream = c.roles.some((r) => c.flavor(r) === "upstream");
  return mk({
    ...base,
    status,
    summary:
      status === "fail"
        ? `Agent pods that are not Ready, crash-looping or terminating are still registered and hold ${plural(held, "target")}: nothing scrapes them, and the TA's unassigned gauge does not count them.`
        : status === "warn"
          ? "Some registered agent pods are not eligible (they hold no targets yet)."
          : status === "unknown"
            ? "Agent pods have not been listed yet."
            : "Every collector the TAs list is eligible.",
    evidence,
    fix:
      "Fix or delete the pod (kubectl describe pod, kubectl logs --previous for a crash loop). A cloudwatch TA with #415 drops a pod as soon as it stops being Running and Ready; one that keeps it runs an older image: upgrade, or restart the TA to re-list." +
      (upstream ? " Upstream keeps a not-Ready pod for collector_not_ready_grace_period (30 s by default) and a terminating one until it is deleted." : ""),
  });
}

function ghostTargets(c: Ctx): Check {
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
  if (!c.roles.length) return mk({ ...base, status: "unknown", summary: "No TA has been read.", fix: "Wait for the first poll." });
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

// ---- unassigned ------------------------------------------------------------------------------------------------------------

function unassignedTargets(c: Ctx): Check {
  const base = { id: "unassigned-targets", title: "Unassigned targets", view: "/nodes" } as const;
  const statuses: CheckStatus[] = [];
  const evidence: string[] = [];
  const fixes = new Set<string>();
  for (const r of c.roles) {
    const s = c.sum(r);
    if (s.unassigned === null) {
      statuses.push("unknown");
      evidence.push(`${r}: the TA's metrics do not give the count`);
      continue;
    }
    statuses.push(s.unassigned > 0 ? "fail" : "pass");
    if (s.unassigned <= 0) continue;
    evidence.push(`${r}: ${plural(s.unassigned, "unassigned target")} (${c.flavor(r)}, strategy ${s.strategy ?? "unknown"})`);
    if (s.strategy === "per-node" || (s.strategy === null && r === "per-node")) {
      fixes.add(
        c.flavor(r) === "upstream"
          ? "Upstream per-node leaves targets without a node unassigned unless allocation_fallback_strategy: consistent-hashing is set, and always leaves targets whose node has no collector unassigned: set the fallback and run the DaemonSet on every node."
          : "The cloudwatch per-node TA falls back to consistent-hashing for nodeless targets and nodes without a collector: unassigned targets mean no fallback is configured (look for the one-time warning in the TA's log) or no eligible collector at all.",
      );
    } else fixes.add("A hashing TA leaves targets unassigned only when it has no allocatable collector: see Agent pods found.");
  }
  const status = c.roles.length ? worst(statuses) : "unknown";
  return mk({
    ...base,
    status,
    summary:
      status === "fail"
        ? "Some targets are known to a TA but assigned to no collector: nothing scrapes them, and the TA's JSON does not list them."
        : status === "unknown"
          ? "The live unassigned count is not known for every TA."
          : "Every target a TA knows is assigned.",
    evidence,
    fix: [...fixes].join(" ") || "Nothing to do.",
  });
}

function unassignedGauge(c: Ctx): Check {
  const base = { id: "unassigned-gauge", title: "The TA's own unassigned gauge matches the live count", view: "/diagnostics" } as const;
  const statuses: CheckStatus[] = [];
  const evidence: string[] = [];
  for (const r of c.roles) {
    const s = c.sum(r);
    if (s.unassigned === null) {
      statuses.push("unknown");
      continue;
    }
    if (s.unassignedReported === null) {
      // Upstream exports its gauge only once an assignment has failed: absent reads as 0 to an alert.
      statuses.push(s.unassigned > 0 ? "fail" : "pass");
      if (s.unassigned > 0) evidence.push(`${r}: the TA exports no unassigned gauge, the live count is ${s.unassigned}`);
      continue;
    }
    if (s.unassignedReported === s.unassigned) {
      statuses.push("pass");
      continue;
    }
    // An alert on the TA's gauge stays silent while targets are lost: a blind spot. A stale non-zero gauge is only noise.
    statuses.push(s.unassignedReported < s.unassigned ? "fail" : "warn");
    evidence.push(`${r}: the TA's gauge reads ${s.unassignedReported}, the live count is ${s.unassigned}`);
  }
  const status = c.roles.length ? worst(statuses) : "unknown";
  return mk({
    ...base,
    status,
    summary:
      status === "fail"
        ? "A TA's unassigned gauge reads lower than the live count: alerts on it miss targets that nothing scrapes."
        : status === "warn"
          ? "A TA's unassigned gauge is stale (upstream writes it only when an assignment fails and never resets it): alerts on it fire falsely."
          : status === "unknown"
            ? "The TA's metrics do not give both numbers."
            : "The TA's gauge matches the live count.",
    evidence,
    fix: "Alert on allocation_lens_unassigned_targets, or compute targets_remaining - sum(targets_per_collector) from the TA's metrics, rather than on upstream's sticky opentelemetry_allocator_targets_unassigned.",
  });
}

// ---- nodes -----------------------------------------------------------------------------------------------------------------

function perNodeApplies(c: Ctx): string | null {
  if (!c.a.roles["per-node"]) return "no per-node TA in this cluster";
  const strategy = c.sum("per-node").strategy;
  if (strategy && strategy !== "per-node") return `the per-node TA runs strategy ${strategy}`;
  return null;
}

function nodesWithoutCollector(c: Ctx): Check {
  const base = { id: "nodes-without-collector", title: "Nodes without a per-node agent", view: "/nodes" } as const;
  const title = base.title;
  const why = perNodeApplies(c);
  if (why) return na(base.id, title, why, base.view);
  if (!c.podsKnown("per-node")) return mk({ ...base, status: "unknown", summary: "Agent pods have not been listed yet.", fix: "Wait." });
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

function multiplePodsPerNode(c: Ctx): Check {
  const base = { id: "multiple-pods-per-node", title: "Two agent pods on one node", view: "/nodes" } as const;
  const nodes = c.a.nodes.filter((n) => n.multiplePods);
  let status: CheckStatus = nodes.length ? "warn" : "pass";
  const evidence: string[] = [];
  for (const n of nodes) {
    for (const r of ROLES) {
      const pods = n.collectors.filter((x) => x.role === r).sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      if (pods.length < 2) continue;
      const eligible = pods.filter((x) => x.eligible);
      const winner = eligible.length > 1 ? `${eligible[0].id} wins (smaller name)` : eligible.length ? `${eligible[0].id} is the eligible one` : null;
      const holders = new Set(c.a.targets.filter((t) => t.role === r && t.node === n.name && t.collectorNode === n.name).map((t) => t.collector));
      const stuck = pods.filter((x) => !x.eligible && holders.has(x.id));
      if (stuck.length) status = "fail";
      evidence.push(
        `${n.name} (${r}): ${pods.map((x) => `${x.id}${x.eligible ? "" : ` (${x.reason ?? "not eligible"})`}`).join(", ")}; ${
          stuck.length ? `targets held by ${stuck.map((x) => x.id).join(", ")}, which cannot scrape` : (winner ?? "none eligible")
        }`,
      );
    }
  }
  return mk({
    ...base,
    status,
    summary:
      status === "pass"
        ? "No node runs two agent pods of one role."
        : status === "fail"
          ? "On a node with two agent pods, the node's targets sit on the pod that cannot scrape."
          : `${plural(nodes.length, "node")} ${nodes.length === 1 ? "runs" : "run"} two agent pods of one role (rollout surge): the TA keeps the lexicographically smaller pod name.`,
    evidence,
    fix: "Transient during a DaemonSet rollout with maxSurge. If it lasts, an old pod is stuck terminating (finalizers, kubectl get pod -o yaml) or the rollout is stalled (kubectl rollout status ds/<agent>); a TA that keeps targets on a deleted or not-Ready pod needs a restart and an upgrade.",
  });
}

function perNodeDrift(c: Ctx): Check {
  const base = { id: "per-node-drift", title: "Per-node TA agrees with the per-node strategy", view: "/nodes" } as const;
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
  return mk({
    ...base,
    status,
    summary:
      status === "pass"
        ? "Every per-node target sits on the collector the strategy picks from the Kubernetes view."
        : status === "fail"
          ? "The per-node TA keeps targets on a pod that cannot scrape while an eligible pod runs on their node: its collector registry is stale."
          : `${plural(drifted.length, "target")} sit on another collector than the strategy picks (the TA has not caught up yet).`,
    evidence: [...by.values()]
      .sort((x, y) => Number(y.ghost) - Number(x.ghost) || y.n - x.n)
      .map((e) => `${e.node}: ${plural(e.n, "target")} on ${e.collector}${e.ghost ? " (cannot scrape)" : ""}, expected ${e.expected}`),
    fix: "A TA applies collector changes at most every 5 s, so drift for one poll is lag. If it persists, the TA's collector set is stale (a pod deleted or replaced while its watch was closed): restart the TA, and upgrade to a version that re-lists on every watch session.",
  });
}

function crossNodeScraping(c: Ctx): Check {
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

// ---- monitors --------------------------------------------------------------------------------------------------------------

const LEGACY_KEY = "cloudwatch.aws/scraper";
const monitorName = (m: MonitorRow) => `${m.kind} ${m.namespace}/${m.name}`;

function monitorCheck(c: Ctx, ownership: "double" | "orphaned" | "misrouted"): Check {
  const meta = {
    double: {
      id: "monitors-double" as const,
      title: "Monitors scraped twice",
      bad: "are held by both TAs: every series is scraped twice",
      fix: "One TA keeps every monitor: routing is off there. Set scraperRole: cluster-scraper (TA config scraper_role) on the cluster-scraper agent and run a TA image with annotation routing on both; every other TA role keeps only unannotated monitors.",
    },
    orphaned: {
      id: "monitors-orphaned" as const,
      title: "Monitors nobody scrapes",
      bad: "are in neither TA: nothing scrapes them",
      fix: "Neither TA selected it: check the TAs' prometheusCR serviceMonitorSelector/podMonitorSelector and namespace selectors against the monitor's labels and namespace, and restart a TA that started before the CRD existed.",
    },
    misrouted: {
      id: "monitors-misrouted" as const,
      title: "Monitors scraped by the wrong agent",
      bad: "are held only by the TA their annotation does not route them to",
      fix: "Annotate cloudwatch.aws.amazon.com/scraper: cluster-scraper exactly (the earlier draft key cloudwatch.aws/scraper is ignored) to route a monitor to the cluster-scraper, remove it for per-node; if the annotation is right, the TA's scraper_role is misconfigured.",
    },
  }[ownership];
  const base = { id: meta.id, title: meta.title, view: "/ownership" };
  if (!c.a.monitors || !c.a.monitorCounts)
    return mk({ ...base, status: "unknown", summary: "Monitors could not be read (CRDs missing or not listed yet).", fix: "See ServiceMonitor and PodMonitor CRDs installed." });
  // A kind whose CRD is gone can still sit in the informer's cache: its monitors no longer exist, so they are not judged.
  const gone = new Set(
    c.sources
      .filter((x) => x.p.kind === "kube" && isMonitorSource(x.p.what) && x.s.error?.kind === "not_found")
      .map((x) => (x.p.kind === "kube" && x.p.what === "servicemonitors" ? "ServiceMonitor" : "PodMonitor")),
  );
  const rows = c.a.monitors.filter((m) => m.ownership === ownership && !gone.has(m.kind));
  // Annotated for a role whose TA this dashboard does not read: another agent may well scrape it.
  const elsewhere = (m: MonitorRow) => ownership === "orphaned" && m.annotation === "cluster-scraper" && !c.a.roles["cluster-scraper"];
  const status: CheckStatus = rows.some((m) => !elsewhere(m)) ? "fail" : rows.length ? "warn" : "pass";
  const ignored = c.a.monitors.filter((m) => gone.has(m.kind)).length;
  return mk({
    ...base,
    status,
    summary:
      (status === "warn"
        ? `${plural(rows.length, "monitor")} annotated for the cluster-scraper ${rows.length === 1 ? "is" : "are"} in no TA this dashboard reads: add the cluster-scraper's TA to the configuration to know whether it scrapes ${rows.length === 1 ? "it" : "them"}.`
        : rows.length
          ? `${plural(rows.length, "monitor")} ${meta.bad}.` : `No monitor of ${c.a.monitors.length - ignored} is ${ownership}.`) +
      (ignored ? ` ${plural(ignored, "cached monitor")} of a kind whose CRD is not installed ${ignored === 1 ? "is" : "are"} ignored.` : ""),
    evidence: rows.map((m) => {
      const ann = m.annotation === null ? "no annotation" : `annotation ${JSON.stringify(m.annotation)}`;
      const legacy = m.annotations[LEGACY_KEY] !== undefined ? `, legacy key ${LEGACY_KEY}=${JSON.stringify(m.annotations[LEGACY_KEY])}` : "";
      const held = m.holders.length ? `held by ${m.holders.join(" and ")}` : "held by no TA";
      const routed = elsewhere(m) ? "routed to cluster-scraper (not configured here)" : `routed to ${m.expectedRole}`;
      return `${monitorName(m)}: ${ann}${legacy}; ${routed}, ${held}`;
    }),
    fix: meta.fix,
  });
}

function jobsWithoutTargets(c: Ctx): Check {
  const base = { id: "jobs-without-targets", title: "Jobs with no targets", view: "/ownership" } as const;
  const statuses: CheckStatus[] = [];
  const evidence: string[] = [];
  for (const r of c.roles) {
    const s = c.sum(r);
    if (s.taReady === null) {
      statuses.push("unknown");
      continue;
    }
    const without = s.jobsWithoutTargets;
    if (without === null) {
      statuses.push(s.jobs === 0 ? "fail" : "unknown");
      evidence.push(`${r}: /scrape_configs could not be read, so jobs without targets cannot be listed`);
      continue;
    }
    if (s.jobs === 0) {
      statuses.push("fail");
      evidence.push(
        without.length
          ? `${r}: ${plural(without.length, "scrape config")}, none with a target`
          : `${r}: the TA serves no job at all`,
      );
    } else statuses.push(without.length ? "warn" : "pass");
    evidence.push(...without.map((j) => `${r}: ${j} is in /scrape_configs but not in /jobs`));
  }
  const status = c.roles.length ? worst(statuses) : "unknown";
  return mk({
    ...base,
    status,
    summary:
      status === "fail"
        ? "A TA discovers no target at all: nothing is distributed to its collectors."
        : status === "warn"
          ? "Some scrape configs discover no target (their selector matches no endpoint)."
          : status === "unknown"
            ? "A TA has not been read."
            : "Every scrape config of every TA has targets.",
    evidence,
    fix: "A job with no target means its selector matches no endpoint (opentelemetry-operator #2267): for a ServiceMonitor check selector and namespaceSelector against the Service and that endpoints[].port names a Service port; for a PodMonitor that podMetricsEndpoints[].port names a container port. A TA with no job at all has no scrape config and no monitor selected, or lacks RBAC on endpoints, endpointslices and pods.",
  });
}

// ---- load ------------------------------------------------------------------------------------------------------------------

function duplicateTargets(c: Ctx): Check {
  const base = { id: "duplicate-targets", title: "Targets scraped twice", view: "/targets" } as const;
  if (!c.roles.length) return mk({ ...base, status: "unknown", summary: "No TA has been read.", fix: "Wait for the first poll." });
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

function loadImbalance(c: Ctx): Check {
  const base = { id: "load-imbalance", title: "Load balanced over collectors", view: "/collectors" } as const;
  const statuses: CheckStatus[] = [];
  const evidence: string[] = [];
  for (const r of c.roles) {
    const s = c.sum(r);
    const strategy = s.strategy ?? (r === "cluster-scraper" ? "consistent-hashing" : null);
    if (strategy === null || strategy === "per-node") continue; // per-node load follows how targets spread over nodes
    const rows = collectorsOf(c, r)
      .filter((x) => x.eligible && x.inTa)
      .sort((x, y) => y.targets - x.targets);
    const mean = rows.length ? rows.reduce((t, x) => t + x.targets, 0) / rows.length : 0;
    const m = s.imbalance.maxOverMean;
    if (rows.length < 2 || m === null || mean < IMBALANCE_MIN_MEAN) {
      statuses.push("pass");
      continue;
    }
    statuses.push(m >= IMBALANCE_FAIL ? "fail" : m >= IMBALANCE_WARN ? "warn" : "pass");
    evidence.push(
      `${r} (${strategy}): max/mean ${m.toFixed(2)}, CV ${s.imbalance.cv?.toFixed(2) ?? "?"} over ${rows.length} collectors; busiest ${rows[0].id} (${rows[0].targets}), idlest ${rows.at(-1)!.id} (${rows.at(-1)!.targets})`,
    );
  }
  if (!statuses.length) return na(base.id, base.title, "no TA runs a hashing or least-weighted strategy", base.view);
  const status = worst(statuses);
  return mk({
    ...base,
    status,
    summary:
      status === "pass"
        ? "Targets are spread evenly over the collectors."
        : `The busiest collector has ${status === "fail" ? "at least twice" : "clearly more than"} the mean number of targets: it saturates first.`,
    evidence,
    fix: "consistent-hashing keys the ring by target address only: a few jobs with many targets, or a ring rebuilt while collectors were missing, skew it. Check that every collector is eligible and listed, consider least-weighted, or add replicas.",
  });
}

function collectorFlapping(c: Ctx): Check {
  const base = { id: "collector-flapping", title: "Collector readiness stable", view: "/churn" } as const;
  const churn = c.input.churn;
  if (!churn) return mk({ ...base, status: "unknown", summary: "No readiness history for this cluster yet.", fix: "Wait for the history store to record pod events." });
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

export function diagnose(input: DiagnoseInput): Check[] {
  const a = input.analysis;
  const roles = ROLES.filter((r) => a.roles[r]);
  const sources = input.sources.map((s) => ({ s, p: parseSource(s.source) }));
  const c: Ctx = {
    a,
    roles,
    sum: (r) => a.roles[r]!,
    flavor: (r) => input.flavorByRole?.[r] ?? a.roles[r]?.flavor ?? "upstream",
    sources,
    podsKnown: (r) => {
      const s = sources.find((x) => x.p.kind === "kube" && x.p.what === `pods/${r}`)?.s;
      return !s || s.state === "ok" || (s.state === "stale" && Boolean(s.lastSuccess));
    },
    input,
  };
  return [
    taReachable(c),
    taReady(c),
    kubeReachable(c),
    kubeRbac(c),
    monitorCrds(c),
    collectorsDiscovered(c),
    collectorsMissingFromTa(c),
    collectorsUnknownToKubernetes(c),
    collectorsNotEligible(c),
    ghostTargets(c),
    unassignedTargets(c),
    unassignedGauge(c),
    nodesWithoutCollector(c),
    multiplePodsPerNode(c),
    perNodeDrift(c),
    crossNodeScraping(c),
    monitorCheck(c, "double"),
    monitorCheck(c, "orphaned"),
    monitorCheck(c, "misrouted"),
    jobsWithoutTargets(c),
    duplicateTargets(c),
    loadImbalance(c),
    collectorFlapping(c),
  ];
}
