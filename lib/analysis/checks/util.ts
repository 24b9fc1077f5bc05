/** Small helpers the checks share: statuses, evidence, wording, and the per-role fold most checks are made of. */
import type { Role } from "@/lib/model";
import type { RoleSummary } from "@/lib/analysis/types";
import { MAX_EVIDENCE, type Check, type CheckStatus, type Ctx } from "./context";

const RANK: Record<CheckStatus, number> = { pass: 0, unknown: 1, warn: 2, fail: 3 };

/** The most severe of some statuses (fail > warn > unknown > pass); pass for none. */
export function worst(statuses: readonly CheckStatus[]): CheckStatus {
  return statuses.reduce<CheckStatus>((w, s) => (RANK[s] > RANK[w] ? s : w), "pass");
}

/** At most `max` items, then "and N more". */
export function cap(items: readonly string[], max = MAX_EVIDENCE): string[] {
  return items.length <= max ? [...items] : [...items.slice(0, max), `and ${items.length - max} more`];
}

/** The wording helpers are the UI's (lib/format), so a check reads like the view it links to. */
export { plural, formatPercent as pct, formatElapsed as formatAge } from "@/lib/format";

/** What names a check: its id, title and page. */
export type Base = Pick<Check, "id" | "title" | "view">;

type Make = Omit<Check, "evidence"> & { evidence?: string[] };
export const mk = (c: Make): Check => ({ ...c, evidence: cap(c.evidence ?? []) });

/** A check that cannot be judged yet (no TA or source has answered). */
export function notYet({ id, title, view }: Base, summary: string, fix = "Wait for the first poll."): Check {
  return mk({ id, title, view, status: "unknown", summary, fix });
}

export function na(id: Check["id"], title: string, why: string, view: string, fix = "Nothing to do."): Check {
  return mk({ id, title, status: "pass", summary: `Not applicable: ${why}.`, fix, view });
}

/** One summary per status; a status the check never reaches may be left out and reads as the pass text. */
export type Summaries = { pass: string } & Partial<Record<Exclude<CheckStatus, "pass">, string>>;

/** A check's result from what it is (id, title, page, fix), its status, its evidence and the summary for that status. */
export function verdict(check: Base & Pick<Check, "fix">, status: CheckStatus, evidence: string[], summaries: Summaries): Check {
  const { fix, ...base } = check;
  return mk({ ...base, status, summary: summaries[status] ?? summaries.pass, evidence, fix });
}

/**
 * Judges every TA role in turn: `each` returns the role's status (null: the role is not judged) and may add evidence.
 * The status is the worst of the judged roles, unknown when none is judged.
 */
export function perRole(
  c: Ctx,
  each: (r: Role, s: RoleSummary, evidence: string[]) => CheckStatus | null,
): { status: CheckStatus; evidence: string[]; judged: number } {
  const evidence: string[] = [];
  const statuses = c.roles.map((r) => each(r, c.sum(r), evidence)).filter((s): s is CheckStatus => s !== null);
  return { status: statuses.length ? worst(statuses) : "unknown", evidence, judged: statuses.length };
}

export const collectorsOf = (c: Ctx, r: Role) => c.a.collectors.filter((x) => x.role === r);

export const isMonitorSource = (what: string) => what === "servicemonitors" || what === "podmonitors";
