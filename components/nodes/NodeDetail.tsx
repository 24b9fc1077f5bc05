"use client";
import { useEffect, useRef } from "react";
import { ApiFetchError, useNodeDetail } from "@/components/data/queries";
import { DataAge } from "@/components/ui/DataAge";
import { EmptyState, Skeleton } from "@/components/ui/Panel";
import { ViewState } from "@/components/ui/ViewState";
import { NodeDetailBody } from "./NodeDetailBody";
import styles from "./NodeDetail.module.css";

interface Props {
  name: string;
  cluster: string | null;
  onClose: () => void;
  onNode: (name: string) => void;
}

function DetailSkeleton() {
  return (
    <div aria-busy="true" className={styles.body}>
      <Skeleton height={18} width="60%" />
      <Skeleton height={64} />
      <Skeleton height={14} width="40%" />
      <Skeleton height={160} />
    </div>
  );
}

/** The side panel of one node (?node=), its own polled query; Escape or the close button closes it. */
export function NodeDetail({ name, cluster, onClose, onNode }: Props) {
  const q = useNodeDetail(name);
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    title.current?.focus({ preventScroll: true });
  }, [name]);
  // keepPreviousData would show the previous node while this one loads: only the data of this node counts.
  const data = q.data && q.data.node.name === name ? q.data : undefined;
  const notFound = (e: Error) =>
    e instanceof ApiFetchError && e.status === 404 ? (
      <EmptyState
        title="Node not found"
        hint={`${name} is not in this cluster (any more): it may have been removed.`}
        action={
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
        }
      />
    ) : undefined;
  return (
    <aside
      className={styles.drawer}
      aria-labelledby="node-detail-title"
      onKeyDown={(e) => {
        if (e.key === "Escape") onClose();
      }}
    >
      <div className={styles.drawerHead}>
        <div className={styles.drawerTitle}>
          <span className={styles.kicker}>Node</span>
          <h2 id="node-detail-title" ref={title} tabIndex={-1} className="mono">
            {name}
          </h2>
        </div>
        <button type="button" className={`btn btn-ghost ${styles.close}`} onClick={onClose} aria-label="Close node detail">
          ✕
        </button>
      </div>
      <div className={styles.drawerAge}>{data ? <DataAge at={data.at} pollIntervalMs={data.pollIntervalMs} /> : <span className="age">&nbsp;</span>}</div>
      <div className={styles.drawerScroll}>
        <ViewState query={{ data, error: q.error, refetch: q.refetch }} api={`GET /api/v1/nodes/${name}`} skeleton={<DetailSkeleton />} failed={notFound} errorTitle="Could not load this node">
          {(d, status) => (
            <>
              {status.banners}
              <NodeDetailBody d={d} cluster={cluster} onNode={onNode} />
            </>
          )}
        </ViewState>
      </div>
    </aside>
  );
}
