import { Panel, Skeleton } from "@/components/ui/Panel";
import styles from "./churn.module.css";
import { SkeletonNote } from "@/components/ui/ViewState";

/** Shaped like the page: head, timeline beside the series, two lists, the events table. */
export function ChurnSkeleton({ embed = false, note }: { embed?: boolean; note?: string | null }) {
  if (embed) {
    return (
      <div className={styles.embed} aria-busy="true">
        <div className="page-head">
          <strong className={styles.embedTitle}>Churn</strong>
          <SkeletonNote note={note} />
        </div>
        <Panel title="Timeline" aria-busy>
          <Skeleton height={100} />
          <div style={{ height: 14 }} />
          <Skeleton height={100} />
        </Panel>
      </div>
    );
  }
  return (
    <div aria-busy="true">
      <div className="page-head">
        <h1>Churn</h1>
        <p>readiness transitions and target reassignments</p>
        <SkeletonNote note={note} />
      </div>
      <div className={styles.stack}>
        <div className={styles.top}>
          <Panel title="Timeline" aria-busy>
            <Skeleton height={150} />
            <div style={{ height: 12 }} />
            <Skeleton height={150} />
          </Panel>
          <Panel title="Locality, ghosts and unassigned" aria-busy>
            <Skeleton height={150} />
            <div style={{ height: 12 }} />
            <Skeleton height={150} />
          </Panel>
        </div>
        <div className={styles.pair}>
          <Panel title="Flapping collectors" aria-busy>
            <Skeleton height={262} />
          </Panel>
          <Panel title="Reassignment hot spots" aria-busy>
            <Skeleton height={262} />
          </Panel>
        </div>
        <Panel title="Latest readiness events" aria-busy>
          <Skeleton height={330} />
        </Panel>
      </div>
    </div>
  );
}
