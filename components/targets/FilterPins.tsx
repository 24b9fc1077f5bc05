import type { TargetFilters } from "@/lib/views/target-window";
import styles from "./targets.module.css";

type Pinned = "node" | "collector" | "job";
const PINNED: { key: Pinned; label: string }[] = [
  { key: "node", label: "node" },
  { key: "collector", label: "collector" },
  { key: "job", label: "job" },
];

/** The exact-match filters set by clicking a cell, each removable, and one "clear filters" for everything. */
export function FilterPins({ filters, filtered, onRemove, onClear }: { filters: TargetFilters; filtered: boolean; onRemove: (k: Pinned) => void; onClear: () => void }) {
  const pins = PINNED.filter((p) => filters[p.key]);
  if (!filtered) return null;
  return (
    <div className={styles.pins} aria-label="Active filters" role="group">
      {pins.map((p) => (
        <span key={p.key} className={styles.pin}>
          <span title={filters[p.key] ?? undefined}>
            <em>{p.label}:</em> {filters[p.key]}
          </span>
          <button type="button" className={styles.pinRemove} onClick={() => onRemove(p.key)} aria-label={`Remove the ${p.label} filter`}>
            ×
          </button>
        </span>
      ))}
      <button type="button" className={styles.clear} onClick={onClear}>
        Clear filters
      </button>
    </div>
  );
}
