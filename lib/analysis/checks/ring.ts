/**
 * The check on what a TA can hold: a consistent-hashing ring takes at most 1,061 collectors, and a TA whose ring would
 * take more crashes at every start (lib/analysis/ring.ts; docs/target-allocator.md, "The ring's limit").
 */
import type { Role } from "@/lib/model";
import { formatCount } from "@/lib/format";
import { RING_PANIC, RING_PARTITIONS, RING_WARN_FROM, strategyText, taRings, type TaRing } from "@/lib/analysis/ring";
import type { Check, CheckStatus, Ctx } from "./context";
import { mk, na, notYet, plural, worst } from "./util";

const LIMIT = formatCount(RING_PARTITIONS);
const CRASH = `cannot build its consistent-hashing ring: it panics ("${RING_PANIC}") whenever it builds the ring, at every start included, so it restarts and none of its targets is scraped`;
const FIX =
  `Keep every ring at ${LIMIT} collectors or fewer. Allocate without a ring: per-node without a fallback (upstream's operator writes allocation_fallback_strategy only with its operator.targetallocator.fallbackstrategy feature gate; targets without a node then stay unassigned, so scrape those from a cluster-scraper agent), or least-weighted (no ring, and no node locality either). ` +
  "Or give each TA fewer collectors: split the agent into several, each with its own TA and collector selector (for example one DaemonSet per node pool). " +
  `A rollout counts too: while a DaemonSet with maxSurge rolls, each surged node runs two agent pods, so with maxSurge 25 % a ring goes over ${LIMIT} from 849 nodes; roll with maxSurge 0 (maxUnavailable only) or keep the nodes x (1 + maxSurge) within the limit.`;
const CLOUDWATCH_FIX = " The CloudWatch agent operator writes the consistent-hashing fallback into the configuration of every per-node TA it deploys.";
const UNKNOWN_FIX = " Where the strategy or the fallback is not known, state it in the TA's entry of the dashboard configuration (strategy; fallbackStrategy, none when it has none).";

/** How the TA is not serving, or null when it answers and is ready. */
function taDown(c: Ctx, r: Role): string | null {
  const s = c.sources.find((x) => x.p.kind === "ta" && x.p.role === r)?.s;
  if (s?.state === "error") return "cannot be read";
  if (s?.state === "stale") return "stopped answering";
  return c.sum(r).taReady === false ? "is not ready" : null;
}

/** Why a TA may build the ring without the dashboard knowing. */
function maybeWhy(t: TaRing): string {
  if (t.strategy === null) return "its strategy is not known";
  if (t.strategy === "per-node") return "per-node, and no source states its fallback";
  return `the dashboard does not know the strategy ${t.strategy}`;
}

const USE_TEXT = { yes: "builds the ring", no: "builds no ring", maybe: "may build the ring" } as const;

interface Judged {
  status: CheckStatus;
  /** the sentence the check's summary is when this role leads */
  summary: string | null;
  down: boolean;
}

function judge(c: Ctx, t: TaRing, evidence: string[]): Judged {
  const r = t.role;
  if (!c.podsKnown(r)) {
    evidence.push(`${r}: agent pods not listed yet`);
    return { status: "unknown", summary: null, down: false };
  }
  const down = taDown(c, r);
  evidence.push(
    `${r}: ${strategyText(t)}: ${USE_TEXT[t.uses]}; ${plural(t.members, "collector")} (${formatCount(t.eligible)} eligible agent pods, ${formatCount(t.listed)} listed by the TA), headroom ${formatCount(t.headroom)}${down ? `; the TA ${down}` : ""}`,
  );
  if (t.uses === "no" || t.members < RING_WARN_FROM) return { status: "pass", summary: null, down: false };
  const n = plural(t.members, "collector");
  const holds = t.uses === "yes" ? `this TA's ring holds at most ${LIMIT}` : `if this TA builds a consistent-hashing ring (${maybeWhy(t)}), the ring holds at most ${LIMIT}`;
  if (t.members <= RING_PARTITIONS) return { status: "warn", summary: `${r} TA: ${n}; ${holds}. Above ${LIMIT} (a rollout with maxSurge adds collectors while it lasts) it ${CRASH}.`, down: false };
  if (down) return { status: "fail", summary: `The ${r} TA ${down}, with ${n}: the likely cause is the ring limit (${holds}). Above ${LIMIT} a TA ${CRASH}.`, down: true };
  return { status: "fail", summary: `${r} TA: ${n}; ${holds}. The TA ${CRASH}.`, down: false };
}

export function taRingLimit(c: Ctx): Check {
  const base = { id: "ta-ring-limit", title: `Consistent-hashing rings within ${LIMIT} collectors`, view: "/collectors" } as const;
  if (!c.roles.length) return notYet(base, "No TA role in the analysis.");
  const rings = taRings({ analysis: c.a, configured: c.input.strategies, discovered: c.input.discovery?.found });
  const evidence: string[] = [];
  const judged = rings.map((t) => ({ t, ...judge(c, t, evidence) }));
  if (judged.every((j) => j.status === "pass" && j.t.uses === "no")) {
    return na(base.id, base.title, "no TA builds a consistent-hashing ring (least-weighted, or per-node without a fallback)", base.view);
  }
  const status = worst(judged.map((j) => j.status));
  const lead = judged.find((j) => j.status === status && j.down) ?? judged.find((j) => j.status === status);
  const flagged = judged.filter((j) => j.status === "warn" || j.status === "fail");
  const fix = !flagged.length
    ? "Nothing to do."
    : FIX + (flagged.some((j) => j.t.strategy === "per-node" && c.flavor(j.t.role) === "cloudwatch") ? CLOUDWATCH_FIX : "") + (flagged.some((j) => j.t.uses === "maybe") ? UNKNOWN_FIX : "");
  const summary =
    lead?.summary ??
    (status === "unknown" ? "Agent pods have not been listed yet." : `No TA is near the ${LIMIT}-collector limit of a consistent-hashing ring (the check warns from ${formatCount(RING_WARN_FROM)}).`);
  return mk({ ...base, status, summary, evidence, fix });
}
