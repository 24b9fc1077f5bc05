import type { Ownership } from "@/lib/model";

export const OWNERSHIP_TONE: Record<Ownership, "ok" | "bad" | "warn"> = { ok: "ok", double: "bad", orphaned: "bad", misrouted: "warn" };

export const OWNERSHIP_HELP: Record<Ownership, string> = {
  ok: "scraped once, by the TA its annotation routes it to",
  double: "jobs of it in both TAs: every target is scraped twice",
  orphaned: "in neither TA: nothing scrapes it",
  misrouted: "only in the other TA: scraped once, by the wrong agent",
};

export function OwnershipBadge({ state }: { state: Ownership }) {
  return (
    <span className={`badge ${OWNERSHIP_TONE[state]}`} title={OWNERSHIP_HELP[state]}>
      {state}
    </span>
  );
}
