import type { Check } from "@/lib/analysis/diagnostics";
import { STATUS_WORD } from "@/lib/views/diagnostics-view";
import { StatusGlyph } from "./StatusIcon";
import styles from "./diagnostics.module.css";

/** The 600x400 tile's list: status and title per check, the summary as a tooltip; failures first. */
export function DiagnosticsEmbedList({ checks }: { checks: Check[] }) {
  return (
    <ul className={`${styles.list} ${styles.compactList}`} tabIndex={0} aria-label="Checks">
      {checks.map((c) => (
        <li key={c.id} className={`${styles.rowCompact} ${styles[`check_${c.status}`]}`} title={c.summary}>
          <span className={`${styles.status} ${styles[`status_${c.status}`]} ${styles.statusFixed}`}>
            <StatusGlyph status={c.status} size={13} />
            {STATUS_WORD[c.status]}
          </span>
          <span className={styles.compactTitle}>{c.title}</span>
        </li>
      ))}
    </ul>
  );
}
