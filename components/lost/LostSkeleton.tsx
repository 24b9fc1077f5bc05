import { Panel, Skeleton } from "@/components/ui/Panel";
import styles from "./lost.module.css";
import { ROLE_TITLE } from "@/lib/format";
import { ROLES } from "@/lib/model";

/** Shaped like the view: two role cards of two gauges, the explanation, the grouped list. */
export function LostSkeleton({ embed, note }: { embed: boolean; note?: string | null }) {
  return (
    <div className={embed ? styles.embed : undefined} aria-busy="true">
      <div className="page-head" style={embed ? { marginBottom: 8 } : undefined}>
        {embed ? <strong>Unassigned and lost</strong> : <h1>Unassigned and lost</h1>}
        <span className="age" style={{ marginLeft: "auto" }}>
          {note ?? "loading…"}
        </span>
      </div>
      <div className={styles.cards}>
        {ROLES.map((r) => (
          <Panel key={r} title={ROLE_TITLE[r]}>
            <div className={styles.gauges}>
              <Skeleton height={embed ? 62 : 78} />
              <Skeleton height={embed ? 62 : 78} />
            </div>
          </Panel>
        ))}
      </div>
      <div className={styles.explain}>
        <Skeleton height={14} width="70%" />
      </div>
      <Panel title="Ghost targets by collector">
        {[0, 1, 2].map((i) => (
          <div key={i} style={{ padding: "6px 0" }}>
            <Skeleton height={14} />
          </div>
        ))}
      </Panel>
    </div>
  );
}
