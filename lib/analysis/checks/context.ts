/**
 * What every diagnostic check reads and returns: the public types, the thresholds, the stable check ids, and the context
 * (one snapshot's analysis and sources) that diagnose() builds once for all checks.
 */
import type { Flavor, Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { recognisedScraperKeys, SCRAPER_ANNOTATIONS } from "@/lib/routing";
import type { Analysis, RoleSummary } from "@/lib/analysis/types";
import type { SourceView } from "@/lib/api/schemas";
import type { ConfiguredStrategy, DiscoveredStrategy } from "@/lib/analysis/ring";

/** A check's shape is the API's (lib/api/schemas.ts): `evidence` holds at most MAX_EVIDENCE items plus "and N more". */
export type { Check, CheckStatus } from "@/lib/api/schemas";

/** What the checks read of a source's status (a snapshot's SourceStatus, or an answer's SourceView). */
export type SourceLike = Pick<SourceView, "source" | "state" | "error"> & Partial<Pick<SourceView, "lastSuccess" | "latencyMs">>;

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
  /** with discovered TAs: what discovery found (with the strategy and fallback read from the ConfigMap) and dropped (the `ta-discovery` check); absent or null otherwise */
  discovery?: {
    found: readonly (Omit<DiscoveredStrategy, "role"> & { role: Role; namespace: string; configMap: string })[];
    dropped: readonly { object: string; reason: string }[];
    problems: readonly string[];
  } | null;
  /** what each TA's entry in the configuration states of its strategy and fallback (the `ta-ring-limit` check) */
  strategies?: Partial<Record<Role, ConfiguredStrategy>>;
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
  "ta-ring-limit",
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
  "scraper-annotation-key",
  "jobs-without-targets",
  "duplicate-targets",
  "load-imbalance",
  "collector-flapping",
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

const TA_SOURCE = new RegExp(`/ta/(${ROLES.join("|")})$`);

export type Parsed = { kind: "ta"; role: Role } | { kind: "kube"; what: string } | { kind: "other" };

/** Source names are `<cluster>/ta/<role>` and `<cluster>/kube/<what>` (pods/<role>, nodes, servicemonitors, podmonitors). */
export function parseSource(source: string): Parsed {
  const ta = TA_SOURCE.exec(source);
  if (ta) return { kind: "ta", role: ta[1] as Role };
  const kube = /\/kube\/(.+)$/.exec(source);
  if (kube) return { kind: "kube", what: kube[1] };
  return { kind: "other" };
}

export interface Ctx {
  a: Analysis;
  roles: Role[];
  sum: (r: Role) => RoleSummary;
  flavor: (r: Role) => Flavor;
  sources: { s: SourceLike; p: Parsed }[];
  podsKnown: (r: Role) => boolean;
  /** the scraper-annotation keys the analysis recognised (the configured one, or both spellings) */
  scraperKeys: readonly string[];
  /** those, then every other known spelling: what the checks look for on a monitor */
  knownScraperKeys: readonly string[];
  input: DiagnoseInput;
}

export function context(input: DiagnoseInput): Ctx {
  const a = input.analysis;
  const roles = ROLES.filter((r) => a.roles[r]);
  const sources = input.sources.map((s) => ({ s, p: parseSource(s.source) }));
  const scraperKeys = recognisedScraperKeys(a.scraperAnnotation);
  return {
    a,
    roles,
    sum: (r) => a.roles[r]!,
    flavor: (r) => input.flavorByRole?.[r] ?? a.roles[r]?.flavor ?? "upstream",
    sources,
    podsKnown: (r) => {
      const s = sources.find((x) => x.p.kind === "kube" && x.p.what === `pods/${r}`)?.s;
      return !s || s.state === "ok" || (s.state === "stale" && Boolean(s.lastSuccess));
    },
    scraperKeys,
    knownScraperKeys: [...new Set([...scraperKeys, ...SCRAPER_ANNOTATIONS])],
    input,
  };
}
