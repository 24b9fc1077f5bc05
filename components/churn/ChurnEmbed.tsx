import Link from "next/link";
import type { ReactNode } from "react";
import type { Role } from "@/lib/model";
import type { ChurnView } from "@/lib/views/churn";
import type { Flapper } from "@/lib/views/churn-view";
import type { TimelineRow } from "@/lib/views/churn-charts";
import { Panel } from "@/components/ui/Panel";
import type { ViewStatus } from "@/components/ui/ViewState";
import { HistoryBackendBadge, HistorySourceBadge } from "./HistoryBackend";
import { TimelineChart } from "./TimelineChart";
import styles from "./churn.module.css";

interface Props {
  v: ChurnView;
  status: ViewStatus;
  rows: TimelineRow[];
  roles: Role[];
  multiDay: boolean;
  empty: ReactNode;
  flapping: Flapper[];
  picker: ReactNode;
  nodeHref: (node: string) => string;
}

/** The 600x400 tile: presets, the timeline, and the most flapping collector. */
export function ChurnEmbed({ v, status, rows, roles, multiDay, empty, flapping, picker, nodeHref }: Props) {
  const top = flapping[0];
  return (
    <div className={styles.embed}>
      <div className={`page-head ${styles.head}`}>
        <strong className={styles.embedTitle}>Churn</strong>
        <div className={styles.headRight}>
          {picker}
          {status.age}
        </div>
      </div>
      {status.banners}
      <Panel
        title="Timeline"
        right={v.source?.prometheus ? <HistorySourceBadge source={v.source} /> : v.backend.backend === "memory" ? <HistoryBackendBadge backend={v.backend} /> : undefined}
      >
        <TimelineChart rows={rows} roles={roles} multiDay={multiDay} height={96} empty={empty} />
      </Panel>
      <p className={styles.embedFoot}>
        {top ? (
          <>
            <span>Most flapping:</span>
            <span className={styles.mono} title={top.pod}>
              {top.pod}
            </span>
            <span>{top.transitions} flips</span>
            {top.node ? (
              <Link href={nodeHref(top.node)} prefetch={false} title={`Open node ${top.node}`}>
                {top.node}
              </Link>
            ) : null}
          </>
        ) : (
          <span>No collector flipped readiness in the range.</span>
        )}
      </p>
    </div>
  );
}
