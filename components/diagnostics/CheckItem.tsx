import Link from "next/link";
import type { Check } from "@/lib/analysis/diagnostics";
import { keyed } from "@/lib/views/keyed";
import { checkViewHref, hasFix, splitEvidence } from "@/lib/views/diagnostics-view";
import { StatusBadge } from "./StatusIcon";
import styles from "./diagnostics.module.css";

/**
 * One check: status (icon and word), title, one-line summary; then, for a check that is not passing, its evidence
 * (monospace, the long tail folded away), the fix, and the view that explains it.
 */
export function CheckItem({ check, keep }: { check: Check; keep: URLSearchParams }) {
  const c = check;
  const link = checkViewHref(c.view, keep);
  const passing = c.status === "pass";
  const { shown, folded } = splitEvidence(c.evidence);
  const viewLink = link ? (
    <Link className={styles.viewLink} href={link.href} prefetch={false}>
      {link.label} view →
    </Link>
  ) : null;
  if (passing) {
    // a passing check is one quiet line: title and what was verified
    return (
      <li className={`${styles.check} ${styles.checkPass} ${styles.check_pass}`} data-testid={`check-${c.id}`}>
        <div className={styles.checkHead}>
          <StatusBadge status={c.status} />
          <h3 className={styles.checkTitle}>{c.title}</h3>
          <span className={styles.inlineSummary} title={c.summary}>
            {c.summary}
          </span>
          {viewLink}
        </div>
      </li>
    );
  }
  return (
    <li className={`${styles.check} ${styles[`check_${c.status}`]}`} data-testid={`check-${c.id}`}>
      <div className={styles.checkHead}>
        <StatusBadge status={c.status} />
        <h3 className={styles.checkTitle}>{c.title}</h3>
        {viewLink}
      </div>
      <p className={styles.summary}>{c.summary}</p>
      {shown.length ? (
        <div className={styles.evidence}>
          <ul aria-label={`Evidence for ${c.title}`}>
            {keyed(shown, (e) => e).map(({ key, item }) => (
              <li key={key}>{item}</li>
            ))}
          </ul>
          {folded.length ? (
            <details>
              <summary>
                {folded.length} more
              </summary>
              <ul>
                {keyed(folded, (e) => e).map(({ key, item }) => (
                  <li key={key}>{item}</li>
                ))}
              </ul>
            </details>
          ) : null}
        </div>
      ) : null}
      {hasFix(c) ? (
        <p className={styles.fix}>
          <strong>Fix: </strong>
          {c.fix}
        </p>
      ) : null}
    </li>
  );
}
