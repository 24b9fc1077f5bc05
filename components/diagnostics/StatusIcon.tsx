import type { CheckStatus } from "@/lib/analysis/diagnostics";
import { STATUS_WORD } from "@/lib/views/diagnostics-view";
import styles from "./diagnostics.module.css";

const PATH: Record<CheckStatus, string> = {
  fail: "M5.5 5.5l5 5M10.5 5.5l-5 5",
  warn: "M8 4.5v4.5M8 11.3v.2",
  unknown: "M6.2 6.3a1.9 1.9 0 1 1 2.6 1.8c-.5.2-.8.6-.8 1.1v.4M8 11.5v.2",
  pass: "M5 8.3l2 2 4-4.4",
};

/** The status glyph alone (decorative: always next to a word or a label). */
export function StatusGlyph({ status, size = 16 }: { status: CheckStatus; size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 16 16" aria-hidden="true" className={styles[`glyph_${status}`]}>
      {status === "warn" ? <path d="M8 1.8l6.6 12H1.4z" className={styles.glyphShape} /> : <circle cx="8" cy="8" r="6.6" className={styles.glyphShape} />}
      <path d={PATH[status]} className={styles.glyphMark} />
    </svg>
  );
}

/** Icon and word: status is never colour alone. */
export function StatusBadge({ status }: { status: CheckStatus }) {
  return (
    <span className={`${styles.status} ${styles[`status_${status}`]}`}>
      <StatusGlyph status={status} size={14} />
      {STATUS_WORD[status]}
    </span>
  );
}
