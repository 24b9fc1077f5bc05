import type { CheckStatus } from "@/lib/analysis/diagnostics";
import { STATUS_COUNT_LABEL } from "@/lib/views/diagnostics-view";
import { StatusGlyph } from "./StatusIcon";
import styles from "./diagnostics.module.css";

const ORDER: readonly CheckStatus[] = ["fail", "warn", "pass", "unknown"];

interface Props {
  counts: Record<CheckStatus, number>;
  selected: readonly CheckStatus[];
  onToggle: (s: CheckStatus) => void;
  onClear: () => void;
  compact?: boolean;
}

/** The header's counts, each a toggle of the status filter (several may be on; none: every check). */
export function StatusFilter({ counts, selected, onToggle, onClear, compact = false }: Props) {
  return (
    <div className={`${styles.counts} ${compact ? styles.countsCompact : ""}`} role="group" aria-label="Filter checks by status">
      {ORDER.map((s) => (
        <button
          key={s}
          type="button"
          className={`${styles.count} ${styles[`count_${s}`]} ${counts[s] ? "" : styles.countZero}`}
          aria-pressed={selected.includes(s)}
          onClick={() => onToggle(s)}
          title={selected.includes(s) ? `Stop showing only ${STATUS_COUNT_LABEL[s]} checks` : `Show ${STATUS_COUNT_LABEL[s]} checks`}
        >
          <StatusGlyph status={s} size={compact ? 13 : 16} />
          <span className={styles.countNum}>{counts[s]}</span>
          <span>{STATUS_COUNT_LABEL[s]}</span>
        </button>
      ))}
      {selected.length && !compact ? (
        <button type="button" className="btn btn-ghost" onClick={onClear}>
          Show all
        </button>
      ) : null}
    </div>
  );
}
