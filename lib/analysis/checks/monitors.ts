/** Checks on ServiceMonitors and PodMonitors (held by both TAs, by none, by the wrong one) and on jobs without targets. */
import type { MonitorRow } from "@/lib/analysis/types";
import type { Check, CheckStatus, Ctx } from "./context";
import { isMonitorSource, mk, notYet, perRole, plural, verdict } from "./util";
import { CLUSTER_SCRAPER_VALUE, DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION } from "@/lib/routing";

export const monitorName = (m: MonitorRow) => `${m.kind} ${m.namespace}/${m.name}`;

/**
 * The scraper-annotation keys a monitor carries, each with its value, the recognised ones first; a known spelling the
 * dashboard does not recognise (another key is configured) says so.
 */
export function describeScraperKeys(c: Ctx, m: MonitorRow): string {
  const carried = c.knownScraperKeys.filter((k) => Object.prototype.hasOwnProperty.call(m.annotations, k));
  if (!carried.length) return "no scraper annotation";
  const unrecognised = (k: string) => (c.scraperKeys.includes(k) ? "" : ` (not recognised: scraperAnnotation is ${c.scraperKeys[0]})`);
  return carried.map((k) => `${k}=${JSON.stringify(m.annotations[k])}${unrecognised(k)}`).join(", ");
}

/** A kind whose CRD is gone can still sit in the informer's cache: its monitors no longer exist, so they are not judged. */
export function goneKinds(c: Ctx): Set<MonitorRow["kind"]> {
  return new Set(
    c.sources
      .filter((x) => x.p.kind === "kube" && isMonitorSource(x.p.what) && x.s.error?.kind === "not_found")
      .map((x) => (x.p.kind === "kube" && x.p.what === "servicemonitors" ? "ServiceMonitor" : "PodMonitor")),
  );
}

/** Whether a recognised key of the monitor routes it to the cluster-scraper. */
export const annotatedForClusterScraper = (m: MonitorRow) => m.scraperAnnotations.some((a) => a.value === CLUSTER_SCRAPER_VALUE);

const MONITOR_CHECKS = {
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
    fix: `Annotate ${DEFAULT_SCRAPER_ANNOTATION}: ${CLUSTER_SCRAPER_VALUE} exactly to route a monitor to the cluster-scraper (TAs of the operator's earlier build read ${EARLIER_SCRAPER_ANNOTATION} instead: use the key the running TAs read, see the scraper-annotation-key check), remove it for per-node; a monitor carrying both keys needs the same value under both. If the annotation is right, the TA's scraper_role is misconfigured.`,
  },
};

export function monitorCheck(c: Ctx, ownership: "double" | "orphaned" | "misrouted"): Check {
  const meta = MONITOR_CHECKS[ownership];
  const base = { id: meta.id, title: meta.title, view: "/ownership" };
  if (!c.a.monitors || !c.a.monitorCounts)
    return notYet(base, "Monitors could not be read (CRDs missing or not listed yet).", "See ServiceMonitor and PodMonitor CRDs installed.");
  const gone = goneKinds(c);
  // A TA never read holds nothing that the dashboard knows of: the monitors routed to it are not judged orphaned.
  const neverRead = new Set(c.sources.filter((x) => x.p.kind === "ta" && x.s.state === "error" && x.s.lastSuccess === null).map((x) => (x.p.kind === "ta" ? x.p.role : null)));
  const unjudged = ownership === "orphaned" ? c.a.monitors.filter((m) => m.ownership === "orphaned" && m.expectedRole !== null && neverRead.has(m.expectedRole)) : [];
  const rows = c.a.monitors.filter((m) => m.ownership === ownership && !gone.has(m.kind) && !unjudged.includes(m));
  // Annotated for a role whose TA this dashboard does not read: another agent may well scrape it.
  const elsewhere = (m: MonitorRow) => ownership === "orphaned" && annotatedForClusterScraper(m) && !c.a.roles["cluster-scraper"];
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
      (ignored ? ` ${plural(ignored, "cached monitor")} of a kind whose CRD is not installed ${ignored === 1 ? "is" : "are"} ignored.` : "") +
      (unjudged.length ? ` ${plural(unjudged.length, "monitor")} routed to a TA that has never been read ${unjudged.length === 1 ? "is" : "are"} not judged.` : ""),
    evidence: rows.map((m) => {
      const held = m.holders.length ? `held by ${m.holders.join(" and ")}` : "held by no TA";
      const routed = elsewhere(m)
        ? "routed to cluster-scraper (not configured here)"
        : m.expectedRole === null
          ? "its keys route it to different TAs"
          : `routed to ${m.expectedRole}`;
      return `${monitorName(m)}: ${describeScraperKeys(c, m)}; ${routed}, ${held}`;
    }),
    fix: meta.fix,
  });
}

export function jobsWithoutTargets(c: Ctx): Check {
  const base = { id: "jobs-without-targets", title: "Jobs with no targets", view: "/ownership", fix: "A job with no target means its selector matches no endpoint (a job can be in /scrape_configs and missing from /jobs): for a ServiceMonitor check selector and namespaceSelector against the Service and that endpoints[].port names a Service port; for a PodMonitor that podMetricsEndpoints[].port names a container port. A TA with no job at all has no scrape config and no monitor selected, or lacks RBAC on endpoints, endpointslices and pods." } as const;
  const { status, evidence } = perRole(c, (r, s, evidence): CheckStatus => {
    if (s.taReady === null) return "unknown";
    const without = s.jobsWithoutTargets;
    if (without === null) {
      evidence.push(`${r}: /scrape_configs could not be read, so jobs without targets cannot be listed`);
      return s.jobs === 0 ? "fail" : "unknown";
    }
    const status: CheckStatus = s.jobs === 0 ? "fail" : without.length ? "warn" : "pass";
    if (s.jobs === 0)
      evidence.push(without.length ? `${r}: ${plural(without.length, "scrape config")}, none with a target` : `${r}: the TA serves no job at all`);
    evidence.push(...without.map((j) => `${r}: ${j} is in /scrape_configs but not in /jobs`));
    return status;
  });
  return verdict(base, status, evidence, {
    fail: "A TA discovers no target at all: nothing is distributed to its collectors.",
    warn: "Some scrape configs discover no target (their selector matches no endpoint).",
    unknown: "A TA has not been read.",
    pass: "Every scrape config of every TA has targets.",
  });
}
