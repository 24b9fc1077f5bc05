import { Skeleton } from "@/components/ui/Panel";
import styles from "./diagnostics.module.css";
import { SkeletonNote } from "@/components/ui/ViewState";

/** Shaped like the page: the counts, then check rows. */
export function DiagnosticsSkeleton({ embed = false, note }: { embed?: boolean; note?: string | null }) {
  const rows = embed ? 8 : 7;
  return (
    <div className={embed ? styles.embed : undefined} aria-busy="true">
      <div className="page-head">
        {embed ? <strong className={styles.embedTitle}>Diagnostics</strong> : <h1>Diagnostics</h1>}
        <SkeletonNote note={note} />
      </div>
      <div className={styles.countsSkeleton}>
        {["fail", "warn", "pass", "unknown"].map((k) => (
          <Skeleton key={k} height={embed ? 24 : 34} width={embed ? 90 : 130} />
        ))}
      </div>
      <ul className={styles.list}>
        {Array.from({ length: rows }, (_, i) => `sk-${i}`).map((k) => (
          <li key={k} className={embed ? styles.rowCompact : styles.check}>
            <Skeleton height={embed ? 14 : 18} width="45%" />
            {embed ? null : (
              <>
                <div style={{ height: 8 }} />
                <Skeleton height={12} width="80%" />
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
