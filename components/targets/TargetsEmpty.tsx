import { EmptyState } from "@/components/ui/Panel";
import { formatCount } from "@/lib/format";

/** The list's two empty states (plus the one where no TA answered yet, which is not "nothing there"). */
export function TargetsEmpty({ filtered, hidden, failing, onClear }: { filtered: boolean; hidden: number; failing: boolean; onClear: () => void }) {
  if (filtered) {
    return (
      <EmptyState
        title="No target matches these filters"
        hint={`${formatCount(hidden)} hidden by the filters.`}
        action={
          <button type="button" className="btn" onClick={onClear}>
            Clear filters
          </button>
        }
      />
    );
  }
  if (failing) return <EmptyState title="No targets to show" hint="No Target Allocator has answered yet: see the failing sources above." />;
  return <EmptyState title="No targets" hint="The Target Allocators list no target yet." />;
}
