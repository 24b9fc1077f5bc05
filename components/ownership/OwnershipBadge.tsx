import type { Ownership } from "@/lib/model";
import { OWNERSHIP_HELP, OWNERSHIP_TONE } from "@/lib/views/ownership-view";

export function OwnershipBadge({ state }: { state: Ownership }) {
  return (
    <span className={`badge ${OWNERSHIP_TONE[state]}`} title={OWNERSHIP_HELP[state]}>
      {state}
    </span>
  );
}
