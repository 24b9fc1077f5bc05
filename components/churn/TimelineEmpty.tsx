import type { Role } from "@/lib/model";
import { RANGES, type RangeKey } from "@/lib/views/churn-ranges";
import type { TimelineTotals } from "@/lib/views/churn-charts";
import { EmptyState } from "@/components/ui/Panel";
import { FilteredOut } from "@/components/ui/ViewState";
import { plural } from "@/lib/format";

interface Props {
  phrase: string;
  role: Role | null;
  /** totals over every role: what a role filter hides */
  hidden: TimelineTotals;
  /** the range to widen to, or null at the widest */
  wider: RangeKey | null;
  custom: boolean;
  onRange: (key: RangeKey) => void;
  onShowAllRoles: () => void;
}

/** The timeline's two empty states: nothing in the range (widen it), or nothing for the chosen role (N hidden). */
export function TimelineEmpty({ phrase, role, hidden, wider, custom, onRange, onShowAllRoles }: Props) {
  if (role && hidden.readiness + hidden.reassignments > 0) {
    return (
      <FilteredOut
        title={`No ${role} readiness changes or reassignments in ${phrase}`}
        hint={`${plural(hidden.readiness, "readiness transition")} and ${plural(hidden.reassignments, "reassignment")} hidden by the role filter.`}
        clearLabel="Show all roles"
        onClear={onShowAllRoles}
      />
    );
  }
  let action = null;
  if (wider) {
    action = (
      <button type="button" className="btn" onClick={() => onRange(wider)}>
        {custom ? "Show the last hour" : `Widen to ${RANGES[wider].phrase.replace("the ", "")}`}
      </button>
    );
  }
  return <EmptyState title={`No readiness changes or reassignments in ${phrase}`} hint="Collectors stayed as they were and no target changed collector: a calm cluster." action={action} />;
}
