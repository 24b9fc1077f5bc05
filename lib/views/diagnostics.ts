/** The diagnostics view: every check of one cluster's latest snapshot, reshaped once on the server. */
import type { Flavor, Role } from "@/lib/model";
import type { Analysis } from "@/lib/analysis/types";
import { diagnose, type ChurnLike, type Check, type CheckStatus, type CollectorSelector } from "@/lib/analysis/diagnostics";
import type { DiagnosticsView, DiscoveryView, SourceView } from "@/lib/api/schemas";
import { freshness } from "@/lib/views/summary";
import { configuredStrategies, type ConfiguredStrategy } from "@/lib/analysis/ring";

/** `checks` are in the stable logical order of diagnose(); sortChecks() puts the worst first for display. */
export type { DiagnosticsView } from "@/lib/api/schemas";

export interface DiagnosticsSnapshotLike {
  cluster: string;
  at: number;
  pollIntervalMs: number;
  sources: SourceView[];
  analysis: Analysis;
  discovery?: DiscoveryView | null;
}

export interface DiagnosticsOptions {
  flavorByRole?: Partial<Record<Role, Flavor>>;
  selectors?: Partial<Record<Role, CollectorSelector>>;
  strategies?: Partial<Record<Role, ConfiguredStrategy>>;
}

type TaEntry = { flavor: Flavor; collectors: CollectorSelector } & ConfiguredStrategy;

/** Flavors, collector selectors and stated strategies of a cluster's configuration (the shape of ClusterConfig["targetAllocators"]). */
export function diagnosticsOptions(targetAllocators: Partial<Record<Role, TaEntry | undefined>>): DiagnosticsOptions {
  const flavorByRole: Partial<Record<Role, Flavor>> = {};
  const selectors: Partial<Record<Role, CollectorSelector>> = {};
  for (const [role, ta] of Object.entries(targetAllocators) as [Role, TaEntry | undefined][]) {
    if (!ta) continue;
    flavorByRole[role] = ta.flavor;
    selectors[role] = { namespace: ta.collectors.namespace, selector: ta.collectors.selector };
  }
  return { flavorByRole, selectors, strategies: configuredStrategies(targetAllocators) };
}

export function toDiagnosticsView(s: DiagnosticsSnapshotLike, churn?: ChurnLike | null, options: DiagnosticsOptions = {}): DiagnosticsView {
  const checks = diagnose({ analysis: s.analysis, sources: s.sources, churn: churn ?? null, nowMs: s.at, discovery: s.discovery ?? null, ...options });
  const counts: Record<CheckStatus, number> = { pass: 0, warn: 0, fail: 0, unknown: 0 };
  for (const c of checks) counts[c.status]++;
  return { ...freshness(s), cluster: s.cluster, checks, counts, discovery: s.discovery ?? null };
}

const ORDER: Record<CheckStatus, number> = { fail: 0, warn: 1, unknown: 2, pass: 3 };

/** fail, warn, unknown, pass; stable within a status. */
export function sortChecks(checks: readonly Check[]): Check[] {
  return checks
    .map((c, i) => ({ c, i }))
    .sort((x, y) => ORDER[x.c.status] - ORDER[y.c.status] || x.i - y.i)
    .map((x) => x.c);
}
