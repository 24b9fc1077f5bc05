/** Checks on what the dashboard reads: the Target Allocators and the Kubernetes API (reachability, readiness, RBAC, CRDs). */
import type { SourceErrorKind } from "@/lib/source-error";
import { parseSource, type Check, type CheckStatus, type Ctx, type SourceLike } from "./context";
import { formatAge, isMonitorSource, mk, notYet, plural, verdict, worst } from "./util";

const parseRole = (source: string) => {
  const p = parseSource(source);
  return p.kind === "ta" ? p.role : source;
};

const TA_FIX: Partial<Record<SourceErrorKind, string>> = {
  network:
    "Check that the TA pod runs and its Service exists (kubectl get pods,svc -n <namespace> -l app.kubernetes.io/component=opentelemetry-targetallocator, or the cloudwatch <agent>-target-allocator-service), that the URL in the dashboard configuration names that Service and port, and that no NetworkPolicy blocks the dashboard.",
  timeout:
    "The TA answers too slowly: check its CPU and memory limits (kubectl top pod) and raise timeoutSeconds (a deadline per request) or pollTimeoutSeconds (per poll of the TA) only if it is merely large.",
  tls: "A cloudwatch TA requires mTLS (TLS 1.3, client certificate): configure tls.ca (the CA of the TA's server certificate) and tls.cert/tls.key signed by the TA's client CA; upstream serves HTTPS only on :8443.",
  forbidden:
    "The TA (or a proxy in front of it) refuses the dashboard's credentials: check bearerTokenFile and the client certificate. When the error names a Kubernetes verb and resource (a port-forward, a Secret), the Kubernetes user lacks it: grant what it names in the TA's namespace (docs/security.md, RBAC for laptop use).",
  parse: "The answer is not what a TA serves: check that the URL points at the TA and not at an ingress or proxy page.",
  schema: "The TA answered an unexpected shape: check the TA version against docs/target-allocator.md (a changed upstream shows here first).",
  http: "The TA answered an HTTP error: read its logs (kubectl logs <ta-pod>).",
  not_found: "The path does not exist on that server: check the URL points at the TA's Service, not at a collector.",
  too_large: "The TA serves more than a limit allows (maxResponseBytes per answer, maxBytesPerPoll per poll, maxJobs): raise the one the error names for this TA if that much is real.",
  config: "Fix the TA entry of this cluster in the dashboard configuration.",
};

function sourceLine(s: SourceLike, nowMs: number): string {
  const e = s.error;
  const age = s.lastSuccess ? `; last success ${formatAge(nowMs - s.lastSuccess)} ago` : "; never succeeded";
  return `${s.source}: ${e ? `${e.kind}${e.status ? ` ${e.status}` : ""}: ${e.message}` : s.state}${age}`;
}

function sourceStatus(s: SourceLike): CheckStatus {
  return s.state === "ok" ? "pass" : s.state === "starting" ? "unknown" : s.state === "stale" ? "warn" : "fail";
}

export function taReachable(c: Ctx): Check {
  const base = { id: "ta-reachable", title: "Target Allocators reachable", view: "/diagnostics" } as const;
  const tas = c.sources.filter((x) => x.p.kind === "ta").map((x) => x.s);
  if (!tas.length) return notYet(base, "No Target Allocator source has reported yet.");
  const status = worst(tas.map(sourceStatus));
  const bad = tas.filter((s) => s.state !== "ok");
  const kinds = [...new Set(bad.map((s) => s.error?.kind).filter((k): k is SourceErrorKind => Boolean(k)))];
  const hints = [...new Set(bad.map((s) => s.error?.hint).filter(Boolean))];
  const fix = [...hints, ...kinds.map((k) => TA_FIX[k]).filter(Boolean)].join(" ") || "Nothing to do.";
  const latencies = tas.map((s) => `${parseRole(s.source)} in ${s.latencyMs != null ? Math.round(s.latencyMs) : "?"} ms`);
  return verdict({ ...base, fix }, status, bad.map((s) => sourceLine(s, c.input.nowMs)), {
    pass: `Every TA answered at the last poll (${latencies.join(", ")}).`,
    unknown: "The first poll of a TA has not finished yet.",
    warn: `${plural(bad.length, "TA")} failed at the last poll; its last good data is shown.`,
    fail: `${plural(bad.filter((s) => s.state === "error").length, "TA")} cannot be read and never could: nothing about its allocation is known.`,
  });
}

export function taReady(c: Ctx): Check {
  const base = { id: "ta-ready", title: "Target Allocators ready (/readyz)", view: "/diagnostics", fix: "Read the TA's logs (kubectl logs deploy/<name>-targetallocator): a config error, image pull failure or missing RBAC on the objects its scrape configs discover keeps it unready; check its ConfigMap and its pod's resources." } as const;
  if (!c.roles.length) return notYet(base, "No TA role in the analysis.");
  const notReady = c.roles.filter((r) => c.sum(r).taReady === false);
  const unknown = c.roles.filter((r) => c.sum(r).taReady === null);
  const status: CheckStatus = notReady.length ? "fail" : unknown.length ? "unknown" : "pass";
  const evidence = [...notReady.map((r) => `${r}: /readyz is not 200`), ...unknown.map((r) => `${r}: never read`)];
  return verdict(base, status, evidence, {
    fail: `${notReady.join(", ")}: /readyz answers 503, the TA has not loaded its first scrape configuration.`,
    unknown: `No /readyz answer yet from ${unknown.join(", ")}.`,
    pass: "Every TA answers 200 on /readyz.",
  });
}

export function kubeReachable(c: Ctx): Check {
  const base = { id: "kube-reachable", title: "Kubernetes API reachable", view: "/diagnostics", fix: "Check the kubeconfig/context or in-cluster service account of this cluster and that the API server is reachable from the dashboard (kubectl --context <ctx> get --raw /version)." } as const;
  const kube = c.sources.filter((x) => x.p.kind === "kube").map((x) => x.s);
  const relevant = kube.filter((s) => !(s.error && (s.error.kind === "forbidden" || s.error.kind === "not_found")));
  if (!kube.length) return notYet(base, "No Kubernetes source has reported yet.", "Wait for the informers to list.");
  const status = worst(relevant.map(sourceStatus));
  const bad = relevant.filter((s) => s.state !== "ok");
  const broken = `${plural(bad.length, "Kubernetes informer")} ${status === "fail" ? "never listed" : "lost its watch; the last listed objects are used"}.`;
  return verdict(base, status, bad.map((s) => sourceLine(s, c.input.nowMs)), {
    pass: "Every Kubernetes list/watch is up to date (RBAC and CRD problems are separate checks).",
    unknown: "Some Kubernetes informers have not listed yet.",
    warn: broken,
    fail: broken,
  });
}

export function kubeRbac(c: Ctx): Check {
  const base = { id: "kube-rbac", title: "Kubernetes RBAC", view: "/diagnostics" } as const;
  const kube = c.sources.filter((x) => x.p.kind === "kube").map((x) => x.s);
  const forbidden = kube.filter((s) => s.error?.kind === "forbidden");
  if (forbidden.length) {
    return mk({
      ...base,
      status: "fail",
      summary: `The dashboard's service account may not list/watch ${plural(forbidden.length, "resource")}.`,
      evidence: forbidden.map((s) => `${s.source}: ${s.error!.message}`),
      fix: [...new Set(forbidden.map((s) => s.error!.hint).filter(Boolean))].join(" ") || "Grant list and watch on pods in the collectors' namespace (Role allocation-lens-collectors), and on nodes, servicemonitors and podmonitors (ClusterRole allocation-lens).",
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

export function monitorCrds(c: Ctx): Check {
  const base = { id: "monitor-crds", title: "ServiceMonitor and PodMonitor CRDs installed", view: "/ownership" } as const;
  const mons = c.sources.filter((x) => x.p.kind === "kube" && isMonitorSource(x.p.what)).map((x) => x.s);
  const missing = mons.filter((s) => s.error?.kind === "not_found");
  const fix = "Install the monitoring.coreos.com/v1 CRDs (prometheus-operator's bundle or kube-prometheus-stack): kubectl get crd servicemonitors.monitoring.coreos.com podmonitors.monitoring.coreos.com. A TA starts a monitor informer only for CRDs present when it starts: restart the TAs after installing them.";
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
    return notYet(base, "The monitor CRDs have not been read yet.", fix);
  return mk({ ...base, status: "pass", summary: "Both CRDs are installed and readable.", fix: "Nothing to do." });
}

/**
 * With `targetAllocators: auto`: whether discovery could read the cluster's Kubernetes API, what it found, and what it
 * dropped. Null (no check) for configured TAs.
 */
export function taDiscovery(c: Ctx): Check | null {
  const d = c.input.discovery;
  const source = c.sources.find((x) => /\/discovery$/.test(x.s.source))?.s;
  if (!d || !source) return null;
  const base = { id: "ta-discovery", title: "Target Allocators discovered", view: "/diagnostics" } as const;
  if (source.state === "starting") return notYet(base, "Discovery has not read the Kubernetes API yet.");
  const found = d.found.map((f) => `${f.role}: ${f.namespace}/${f.configMap}`);
  const evidence = [
    ...(source.state !== "ok" ? [sourceLine(source, c.input.nowMs)] : []),
    ...found,
    ...d.dropped.map((x) => `dropped ${x.object}: ${x.reason}`),
    ...d.problems,
  ];
  const status: CheckStatus = source.state === "error" || (!d.found.length && source.state === "ok") ? "fail" : source.state === "stale" || d.dropped.length || d.problems.length ? "warn" : "pass";
  const fix = source.error?.hint
    ? source.error.hint
    : d.found.length
      ? "Fix or remove what was dropped, or name the TA to read in the configuration (targetAllocators.<role>)."
      : "No ConfigMap with targetallocator.yaml was found where discovery looks: check discover.namespaces, that the operator runs its Target Allocators, and that the Kubernetes user may list configmaps, services and deployments there.";
  return verdict({ ...base, fix }, status, evidence, {
    pass: `Found ${plural(d.found.length, "Target Allocator")} in the Kubernetes API (${d.found.map((f) => f.role).join(", ")}).`,
    warn:
      source.state === "stale"
        ? "The last discovery reading failed; the TAs found before are still read."
        : `Found ${plural(d.found.length, "Target Allocator")}; ${plural(d.dropped.length + d.problems.length, "object")} could not be used.`,
    fail: source.state === "error" ? "Discovery cannot read the Kubernetes API: no Target Allocator is known." : "No Target Allocator was found in the Kubernetes API.",
  });
}
