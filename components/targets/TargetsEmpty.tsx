import { EmptyState } from "@/components/ui/Panel";
import { FilteredOut, ListState } from "@/components/ui/ViewState";

/**
 * What the list shows when it has no row: filtered to nothing, nothing there, or (when no TA answered yet and no filter is
 * set) not "nothing there" but unknown.
 */
export function TargetsEmpty({ filtered, hidden, failing, onClear }: { filtered: boolean; hidden: number; failing: boolean; onClear: () => void }) {
  return (
    <ListState
      unknown={!filtered && failing ? <EmptyState title="No targets to show" hint="No Target Allocator has answered yet: see the failing sources above." /> : null}
      empty={!filtered}
      filteredOut={filtered}
      emptyState={<EmptyState title="No targets" hint="The Target Allocators list no target yet." />}
      filteredState={<FilteredOut title="No target matches these filters" hidden={hidden} noun="target" onClear={onClear} />}
    />
  );
}
