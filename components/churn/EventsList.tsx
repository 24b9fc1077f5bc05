import Link from "next/link";
import type { Role } from "@/lib/model";
import { KIND_LABEL, KIND_TONE, middleEllipsis, type ReadinessEvent } from "@/lib/views/churn-view";
import { keyed } from "@/lib/views/keyed";
import { EmptyState } from "@/components/ui/Panel";
import styles from "./churn.module.css";
import { FilteredOut, ListState } from "@/components/ui/ViewState";
import { utcStamp } from "@/lib/format";

interface Props {
  events: ReadinessEvent[];
  hidden: number;
  role: Role | null;
  showRole: boolean;
  phrase: string;
  multiDay: boolean;
  nodeHref: (node: string) => string;
  onShowAllRoles: () => void;
}

/** The latest readiness events of the range, newest first: time (UTC), pod, node, what happened and why. */
export function EventsList({ events, hidden, role, showRole, phrase, multiDay, nodeHref, onShowAllRoles }: Props) {
  return (
    <ListState
      empty={!events.length && !hidden}
      filteredOut={!events.length}
      emptyState={
        <div className={styles.eventsBox}>
          <EmptyState title={`No readiness events in ${phrase}`} hint="Collector pods added, deleted, or turning Ready / not Ready are listed here as the pod watch sees them." />
        </div>
      }
      filteredState={
        <div className={styles.eventsBox}>
          <FilteredOut title={`No ${role} readiness event in ${phrase}`} hidden={hidden} noun="event" by="the role filter" clearLabel="Show all roles" onClear={onShowAllRoles} />
        </div>
      }
    >
      <div className={`${styles.scroll} ${styles.eventsBox}`}>
        <table className={`data ${styles.fixed}`}>
          <colgroup>
            <col style={{ width: multiDay ? "13%" : "9%" }} />
            <col style={{ width: "22%" }} />
            {showRole ? <col style={{ width: "11%" }} /> : null}
            <col style={{ width: "24%" }} />
            <col style={{ width: "13%" }} />
            <col />
          </colgroup>
          <thead>
            <tr>
              <th>Time (UTC)</th>
              <th>Collector pod</th>
              {showRole ? <th>Role</th> : null}
              <th>Node</th>
              <th>Change</th>
              <th>Reason</th>
            </tr>
          </thead>
          <tbody>
            {keyed(events, (e) => `${e.at}/${e.role}/${e.pod}/${e.kind}`).map(({ key, item: e }) => (
              <tr key={key}>
                <td className={styles.mono}>{utcStamp(e.at, multiDay)}</td>
                <td className={`${styles.mono} ${styles.clip}`} title={e.pod}>
                  {middleEllipsis(e.pod, 34)}
                </td>
                {showRole ? <td className={`${styles.muted} ${styles.clip}`}>{e.role}</td> : null}
                <td className={`${styles.mono} ${styles.clip}`} title={e.node ?? undefined}>
                  {e.node ? (
                    <Link href={nodeHref(e.node)} prefetch={false}>
                      {e.node}
                    </Link>
                  ) : (
                    <span className={styles.muted}>no node</span>
                  )}
                </td>
                <td>
                  <span className={`badge ${KIND_TONE[e.kind]}`}>{KIND_LABEL[e.kind]}</span>
                </td>
                <td className={styles.reason} title={e.reason ?? undefined}>
                  {e.reason ?? "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </ListState>
  );
}
