import Link from "next/link";
import type { Role } from "@/lib/model";
import { middleEllipsis, type Flapper } from "@/lib/views/churn-view";
import { EmptyState } from "@/components/ui/Panel";
import styles from "./churn.module.css";
import { FilteredOut, ListState } from "@/components/ui/ViewState";
import { utcStamp } from "@/lib/format";

interface Props {
  flappers: Flapper[];
  /** flappers the role filter hides */
  hidden: number;
  role: Role | null;
  showRole: boolean;
  /** "the last hour" */
  phrase: string;
  multiDay: boolean;
  nodeHref: (node: string) => string;
  onShowAllRoles: () => void;
}

/** Collectors ranked by readiness flips in the range, each with a link to its node. */
export function FlappingTable({ flappers, hidden, role, showRole, phrase, multiDay, nodeHref, onShowAllRoles }: Props) {
  return (
    <ListState
      empty={!flappers.length && !hidden}
      filteredOut={!flappers.length}
      emptyState={
        <div className={styles.panelBody}>
          <EmptyState title={`No collector flipped readiness in ${phrase}`} hint="A collector that goes Ready and not Ready again and again shows up here, most flips first." />
        </div>
      }
      filteredState={
        <div className={styles.panelBody}>
          <FilteredOut title={`No ${role} collector flipped readiness in ${phrase}`} hidden={hidden} noun="flapping collector" by="the role filter" clearLabel="Show all roles" onClear={onShowAllRoles} />
        </div>
      }
    >
      {() => {
        const max = flappers[0].transitions;
        return (
          <div className={`${styles.scroll} ${styles.flapBox}`}>
            <table className={`data ${styles.fixed}`}>
              <colgroup>
                <col style={{ width: showRole ? "31%" : "38%" }} />
                {showRole ? <col style={{ width: "14%" }} /> : null}
                <col />
                <col style={{ width: "13%" }} />
                {/* "11-30 18:52:25" across days (7 d, 30 d) needs more than "18:52:25" */}
                <col style={{ width: multiDay ? "20%" : "14%" }} />
              </colgroup>
              <thead>
                <tr>
                  <th>Collector pod</th>
                  {showRole ? <th>Role</th> : null}
                  <th>Node</th>
                  <th className="num">Flips</th>
                  <th title="last change, UTC">Last (UTC)</th>
                </tr>
              </thead>
              <tbody>
                {flappers.map((f) => (
                  <tr key={`${f.role}/${f.pod}`}>
                    <td className={`${styles.mono} ${styles.clip}`} title={f.pod}>
                      {middleEllipsis(f.pod, 24)}
                    </td>
                    {showRole ? <td className={`${styles.muted} ${styles.clip}`}>{f.role}</td> : null}
                    <td className={`${styles.mono} ${styles.clip}`} title={f.node ?? undefined}>
                      {f.node ? (
                        <Link href={nodeHref(f.node)} prefetch={false} title={`Open node ${f.node}`}>
                          {f.node}
                        </Link>
                      ) : (
                        <span className={styles.muted}>no node</span>
                      )}
                    </td>
                    <td className="num">
                      <span className={styles.bar} style={{ width: `${Math.max(2, (f.transitions / max) * 28)}px` }} aria-hidden="true" />
                      {f.transitions}
                    </td>
                    <td className={styles.mono}>{utcStamp(f.lastAt, multiDay)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      }}
    </ListState>
  );
}
