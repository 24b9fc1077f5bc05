import { Panel, Skeleton } from "@/components/ui/Panel";
import styles from "./NodesView.module.css";

/** Shaped like the view: head, filters, a grid of tiles, the flow picture and the flow table. */
export function NodesSkeleton({ embed, flowHeight, note }: { embed?: boolean; flowHeight: number; note?: string | null }) {
  return (
    <div aria-busy="true" aria-label="Loading nodes">
      <div className={styles.head}>
        <Skeleton height={22} width={160} />
        {note ? (
          <p role="status" className={styles.showing}>
            {note}
          </p>
        ) : null}
      </div>
      <div style={{ marginBottom: 14 }}>
        <Skeleton height={28} width="70%" />
      </div>
      <div className={styles.layout}>
        <div className={styles.content}>
          <Panel title="Node map" aria-busy>
            <div className={styles.skelMap}>
              {["a", "b", "c", "d", "e", "f", "g", "h"].map((k) => (
                <Skeleton key={k} height={52} />
              ))}
            </div>
          </Panel>
          <div className={styles.side}>
            <Panel title="Zone flow" aria-busy>
              <Skeleton height={flowHeight + 58} />
            </Panel>
            {embed ? null : (
              <Panel title="Biggest cross-node flows" aria-busy>
                <Skeleton height={flowHeight + 58} />
              </Panel>
            )}
          </div>
        </div>
      </div>
    </div>
  );
}
