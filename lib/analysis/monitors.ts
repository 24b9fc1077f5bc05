/**
 * Monitor ownership (docs/ARCHITECTURE.md): ok, double (jobs in both TAs), orphaned (in neither), misrouted (only in the other).
 * The expected TA comes from the recognised scraper-annotation keys (both spellings unless one is configured); a monitor
 * whose keys disagree has no expected TA (expectedRole null) and, held by one TA, counts as misrouted: one of its own
 * annotations routes it away from that TA, and which one the TAs follow depends on the operator's build.
 * A monitor's jobs are found by their names, serviceMonitor/<ns>/<name>/<idx> and podMonitor/<ns>/<name>/<idx>.
 * A TA lists only jobs with at least one target, so its /scrape_configs keys also count as "holding" the monitor.
 */
import type { Ownership, Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { expectedRoute, parseJobName, recognisedScraperKeys } from "@/lib/routing";
import type { AnalysisInput, MonitorRow } from "@/lib/analysis/types";

const monitorKey = (kind: string, ns: string, name: string) => `${kind}/${ns}/${name}`;

/** Target counts come from each TA's jobs (one step per job, not per target). */
export function analyzeMonitors(input: AnalysisInput): { rows: MonitorRow[]; counts: Record<Ownership, number> } | null {
  if (!input.monitors) return null;
  const holders = new Map<string, { roles: Set<Role>; jobs: Set<string>; targets: Partial<Record<Role, number>> }>();
  const entry = (key: string) => {
    let e = holders.get(key);
    if (!e) holders.set(key, (e = { roles: new Set(), jobs: new Set(), targets: {} }));
    return e;
  };
  const kindOf = (k: string) => (k === "serviceMonitor" || k === "ServiceMonitor" ? "ServiceMonitor" : "PodMonitor");
  for (const role of ROLES) {
    const ta = input.roles[role]?.ta;
    if (!ta) continue;
    for (const job of new Set([...ta.jobs.keys(), ...(ta.scrapeConfigJobs ?? [])])) {
      const parsed = parseJobName(job);
      if (!parsed) continue;
      const e = entry(monitorKey(kindOf(parsed.kind), parsed.namespace, parsed.name));
      e.roles.add(role);
      e.jobs.add(job);
    }
  }
  for (const role of ROLES) {
    for (const [job, assignment] of input.roles[role]?.ta?.jobs ?? []) {
      const parsed = parseJobName(job);
      if (!parsed || assignment.targets.length === 0) continue;
      const e = entry(monitorKey(kindOf(parsed.kind), parsed.namespace, parsed.name));
      e.targets[role] = (e.targets[role] ?? 0) + assignment.targets.length;
    }
  }
  // the roles configured for this cluster (a TA not read yet, or down since the start, is still one of them)
  const present = ROLES.filter((r) => input.roles[r]);
  const keys = recognisedScraperKeys(input.scraperAnnotation);
  const counts: Record<Ownership, number> = { ok: 0, double: 0, orphaned: 0, misrouted: 0 };
  const rows = input.monitors.map((m): MonitorRow => {
    const e = holders.get(monitorKey(m.kind, m.namespace, m.name));
    const held = ROLES.filter((r) => e?.roles.has(r));
    const route = expectedRoute(m.annotations, keys);
    // With a single TA configured (no routing), that TA is the expected owner of everything.
    const expectedRole: Role | null = present.length === 1 ? present[0] : route.role;
    let ownership: Ownership;
    if (held.length === 0) ownership = "orphaned";
    else if (held.length > 1) ownership = "double";
    else ownership = held[0] === expectedRole ? "ok" : "misrouted";
    counts[ownership]++;
    return {
      ...m,
      annotation: route.carried[0]?.value ?? null,
      scraperAnnotations: route.carried,
      expectedRole,
      holders: held,
      ownership,
      targets: e?.targets ?? {},
      jobs: [...(e?.jobs ?? [])].sort(),
    };
  });
  const order: Record<Ownership, number> = { double: 0, orphaned: 1, misrouted: 2, ok: 3 };
  rows.sort((a, b) => order[a.ownership] - order[b.ownership] || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  return { rows, counts };
}
