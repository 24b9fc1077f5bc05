import Link from "next/link";
import type { ReassignmentTotals } from "@/lib/analysis/reassignments";
import type { Role } from "@/lib/model";
import { middleEllipsis } from "@/lib/views/churn-view";
import { EmptyState } from "@/components/ui/Panel";
import styles from "./churn.module.css";
import { FilteredOut, ListState } from "@/components/ui/ViewState";
import { cssPercent, formatCount } from "@/lib/format";

const TOP = 8;

interface Props {
  totals: ReassignmentTotals;
  role: Role | null;
  showRole: boolean;
  phrase: string;
  nodeHref: (node: string) => string;
  onShowAllRoles: () => void;
}

/** Where reassignments concentrate: the targets' nodes, and the collector -> collector pairs they moved between. */
export function HotSpots({ totals, role, showRole, phrase, nodeHref, onShowAllRoles }: Props) {
  if (!totals.total) {
    return (
      <div className={styles.panelBody}>
        <EmptyState title={`No target moved in ${phrase}`} hint="A target whose collector changed between two polls counts as one reassignment." />
      </div>
    );
  }
  const pairs = role ? totals.byCollector.filter((p) => p.role === role) : totals.byCollector;
  const nodes = totals.byNode.slice(0, TOP);
  const maxNode = nodes[0]?.count ?? 1;
  const shownPairs = pairs.slice(0, TOP);
  const maxPair = shownPairs[0]?.count ?? 1;
  return (
    <div className={styles.hotspots}>
      <section aria-label="Reassignments by node">
        <h3>Target nodes{role ? " (all roles)" : ""}</h3>
        <ul className={styles.hotList}>
          {nodes.map((n) => (
            <li key={n.node ?? "\u0000none"}>
              {n.node ? (
                <Link className={styles.hotName} href={nodeHref(n.node)} prefetch={false} title={n.node}>
                  {n.node}
                </Link>
              ) : (
                <span className={`${styles.hotName} ${styles.muted}`}>no node</span>
              )}
              <span className={styles.count}>{formatCount(n.count)}</span>
              <span className={styles.track} aria-hidden="true">
                <span style={{ width: cssPercent(n.count, maxNode) }} />
              </span>
            </li>
          ))}
        </ul>
      </section>
      <section aria-label="Reassignments by collector pair">
        <h3>Collector → collector</h3>
        <ListState
          empty={false}
          filteredOut={!shownPairs.length}
          emptyState={null}
          filteredState={<FilteredOut title={`No ${role} target moved`} hidden={totals.byCollector.length} noun="pair" by="the role filter" clearLabel="Show all roles" onClear={onShowAllRoles} />}
        >
          <ul className={styles.hotList}>
            {shownPairs.map((p) => (
              <li key={`${p.role}/${p.from}/${p.to}`}>
                <span className={styles.pairName} title={`${showRole ? `${p.role}: ` : ""}${p.from} → ${p.to}`}>
                  <span className={styles.hotName}>{middleEllipsis(p.from, 28)}</span>
                  <span className={styles.hotName}>
                    <span className={styles.arrow} aria-label="to">
                      →
                    </span>
                    {middleEllipsis(p.to, 26)}
                  </span>
                </span>
                <span className={styles.count}>{formatCount(p.count)}</span>
                <span className={styles.track} aria-hidden="true">
                  <span style={{ width: cssPercent(p.count, maxPair) }} />
                </span>
              </li>
            ))}
          </ul>
        </ListState>
      </section>
    </div>
  );
}
