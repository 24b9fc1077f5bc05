/**
 * The consistent-hashing ring's limit (docs/target-allocator.md, "The ring's limit"). Both allocators build their ring with
 * github.com/buraksezer/consistent, 1061 partitions, replication factor 5 and load 1.1. Its average load per member is
 * ceil(floor(1061 / members) x 1.1): 0 once the ring has more members than partitions, and placing the first partition
 * then panics ("not enough room to distribute partitions"). A TA whose ring would hold more than 1,061 collectors
 * therefore crashes whenever it builds the ring, at every start included.
 *
 * What a TA runs (its strategy and per-node fallback, from the sources the dashboard has), whether that builds the ring,
 * how many collectors the ring holds and the headroom: shared by the `ta-ring-limit` check and the
 * allocation_lens_ta_ring_headroom series. Pure.
 */
import type { Role, StrategyName } from "@/lib/model";
import { ROLES } from "@/lib/model";
import type { CollectorRow, RoleSummary } from "@/lib/analysis/types";

import { LOAD, PARTITION_COUNT, REPLICATION_FACTOR, RING_PANIC } from "@allocation-lens/allocation/hashring";

export { RING_PANIC };

export const RING_PARTITIONS = PARTITION_COUNT;
export const RING_REPLICATION_FACTOR = REPLICATION_FACTOR;
export const RING_LOAD = LOAD;
/** From this many collectors (90 % of the partitions, rounded up: 955) a ring is near its limit. */
export const RING_WARN_FROM = Math.ceil(RING_PARTITIONS * 0.9);

export const STRATEGY_NAMES = ["consistent-hashing", "least-weighted", "per-node"] as const satisfies readonly StrategyName[];
/** A per-node TA's fallback as the configuration states it: a strategy, or `none` (it has none). */
export const FALLBACK_NAMES = [...STRATEGY_NAMES, "none"] as const;
export type FallbackName = (typeof FALLBACK_NAMES)[number];

/** buraksezer/consistent's AverageLoad() for this many members: what one member may hold. 0: the ring cannot be built. */
export function ringAverageLoad(members: number): number {
  if (members <= 0) return 0;
  return Math.ceil(Math.floor(RING_PARTITIONS / members) * RING_LOAD);
}

/** What a TA's entry in the dashboard's configuration states (`strategy`, `fallbackStrategy`); absent: not stated. */
export interface ConfiguredStrategy {
  strategy?: StrategyName;
  fallbackStrategy?: FallbackName;
}

/** What the TA entries of a cluster's configuration state of their strategies (only the entries that state one). */
export function configuredStrategies(entries: Partial<Record<Role, ConfiguredStrategy | undefined>>): Partial<Record<Role, ConfiguredStrategy>> {
  const out: Partial<Record<Role, ConfiguredStrategy>> = {};
  for (const role of ROLES) {
    const e = entries[role];
    if (e && (e.strategy || e.fallbackStrategy)) out[role] = { strategy: e.strategy, fallbackStrategy: e.fallbackStrategy };
  }
  return out;
}

/** What discovery read from the TA's ConfigMap: `fallbackStrategy` null when it sets none. */
export interface DiscoveredStrategy {
  role: Role;
  strategy?: string;
  fallbackStrategy?: string | null;
}

/** Where a fact about a TA's strategy comes from. */
export type StrategySource = "TA metrics" | "configuration" | "ConfigMap";

export interface TaStrategy {
  /** null: no source says */
  strategy: string | null;
  strategyFrom: StrategySource | null;
  /** a strategy, `none`, or null when no source says (a TA's metrics never do) */
  fallback: string | null;
  fallbackFrom: StrategySource | null;
}

/**
 * The strategy: the TA's own metrics (what it runs now) before the configuration, before the ConfigMap discovery read (a
 * configured field wins over a discovered one). The fallback: the configuration, else the ConfigMap (no
 * allocation_fallback_strategy there: none), else unknown.
 */
export function taStrategy(fromMetrics: string | null, configured?: ConfiguredStrategy, discovered?: Omit<DiscoveredStrategy, "role">): TaStrategy {
  const strategy: [string | null, StrategySource | null] = fromMetrics
    ? [fromMetrics, "TA metrics"]
    : configured?.strategy
      ? [configured.strategy, "configuration"]
      : discovered?.strategy
        ? [discovered.strategy, "ConfigMap"]
        : [null, null];
  const fallback: [string | null, StrategySource | null] = configured?.fallbackStrategy
    ? [configured.fallbackStrategy, "configuration"]
    : discovered && discovered.fallbackStrategy !== undefined
      ? [discovered.fallbackStrategy ?? "none", "ConfigMap"]
      : [null, null];
  return { strategy: strategy[0], strategyFrom: strategy[1], fallback: fallback[0], fallbackFrom: fallback[1] };
}

/** `maybe`: per-node with a fallback no source states, or a strategy no source states (or one the dashboard does not know). */
export type RingUse = "yes" | "no" | "maybe";

/** consistent-hashing builds the ring over its collectors; per-node builds it over all of them for its fallback. */
export function ringUse(t: Pick<TaStrategy, "strategy" | "fallback">): RingUse {
  switch (t.strategy) {
    case "consistent-hashing":
      return "yes";
    case "least-weighted":
      return "no";
    case "per-node":
      return t.fallback === null ? "maybe" : t.fallback === "consistent-hashing" ? "yes" : "no";
    default:
      return "maybe";
  }
}

export interface TaRing extends TaStrategy {
  role: Role;
  uses: RingUse;
  /** the collectors the ring holds: the larger of `eligible` and `listed` */
  members: number;
  /** agent pods matched by the TA's selector that are scheduled, Running, Ready and not terminating */
  eligible: number;
  /** collectors the TA lists (in its /jobs answers) */
  listed: number;
  /** RING_PARTITIONS - members: negative above the limit */
  headroom: number;
}

export interface RingInputs {
  analysis: {
    roles: Partial<Record<Role, Pick<RoleSummary, "strategy" | "collectorsEligible">>>;
    collectors: readonly Pick<CollectorRow, "role" | "inTa">[];
  };
  configured?: Partial<Record<Role, ConfiguredStrategy>>;
  discovered?: readonly DiscoveredStrategy[] | null;
}

/**
 * Each TA role of the analysis with its ring. The ring holds every collector the TA registered: the collectors it lists
 * when it answers, and at least the eligible agent pods, which both flavors register (upstream keeps a not-Ready pod
 * for a grace period too: then the TA's list is the larger). A TA that cannot start lists nothing: its ring would hold
 * the eligible pods.
 */
export function taRings({ analysis, configured, discovered }: RingInputs): TaRing[] {
  const listed = new Map<Role, number>();
  for (const c of analysis.collectors) if (c.inTa) listed.set(c.role, (listed.get(c.role) ?? 0) + 1);
  return ROLES.flatMap((role): TaRing[] => {
    const s = analysis.roles[role];
    if (!s) return [];
    const t = taStrategy(s.strategy, configured?.[role], discovered?.find((d) => d.role === role));
    const l = listed.get(role) ?? 0;
    const members = Math.max(s.collectorsEligible, l);
    return [{ role, ...t, uses: ringUse(t), members, eligible: s.collectorsEligible, listed: l, headroom: RING_PARTITIONS - members }];
  });
}

/** "per-node (TA metrics), fallback consistent-hashing (ConfigMap)", "consistent-hashing (configuration)", "strategy unknown". */
export function strategyText(t: TaStrategy): string {
  if (t.strategy === null) return "strategy unknown";
  const main = `${t.strategy} (${t.strategyFrom})`;
  if (t.strategy !== "per-node") return main;
  if (t.fallback === null) return `${main}, fallback unknown`;
  return `${main}, ${t.fallback === "none" ? "no fallback" : `fallback ${t.fallback}`} (${t.fallbackFrom})`;
}
