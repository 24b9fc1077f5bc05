"use client";
import { useMemo } from "react";
import type { NodeState } from "@/lib/analysis/types";
import { commonSuffix, crossNodeRows, filterNodeMap } from "@/lib/views/node-map";
import { ApiFetchError, useCluster, useNodes } from "@/components/data/queries";
import { DataAge } from "@/components/ui/DataAge";
import { StaleBanner } from "@/components/ui/StaleBanner";
import { EmptyState, ErrorState, Panel } from "@/components/ui/Panel";
import { CrossNodeTable } from "./CrossNodeTable";
import { NodeDetail } from "./NodeDetail";
import { NodeMap } from "./NodeMap";
import { NodesSkeleton } from "./NodesSkeleton";
import { NodeToolbar } from "./NodeToolbar";
import { ZoneFlowPanel } from "./ZoneFlowPanel";
import { useNodeUrlState } from "./useNodeFilters";
import mapStyles from "./NodeMap.module.css";
import styles from "./NodesView.module.css";
import { formatCount } from "@/lib/format";

function Marks() {
  return (
    <div className={mapStyles.marks}>
      <span>
        <i className={mapStyles.markMulti} aria-hidden="true" /> two agent pods on the node (rollout)
      </span>
      <span>
        <i className={mapStyles.markNotReady} aria-hidden="true" /> node not Ready
      </span>
      <span>hover or focus a node for its pods; click or Enter for details; arrow keys move</span>
    </div>
  );
}

/** The node map: every node a tile by zone and state, the zone flow picture, the biggest cross-node flows, a node's detail. */
export function NodesView({ embed = false }: { embed?: boolean }) {
  const q = useNodes();
  const cluster = useCluster();
  const url = useNodeUrlState();
  const { zone, q: text } = url.filters;
  const statesKey = url.filters.states.join(",");
  const data = q.data;
  const filters = useMemo(() => ({ zone, q: text, states: (statesKey ? statesKey.split(",") : []) as NodeState[] }), [zone, text, statesKey]);
  const map = useMemo(() => (data ? filterNodeMap(data.zones, filters) : null), [data, filters]);
  const suffix = useMemo(() => commonSuffix(data ? data.zones.flatMap((z) => z.nodes.map((n) => n.name)) : []), [data]);
  const cross = useMemo(() => (data ? crossNodeRows(data, filters) : null), [data, filters]);
  const flowHeight = embed ? 170 : 230;

  if (q.isPending) return <NodesSkeleton embed={embed} flowHeight={flowHeight} />;
  // 503 not_ready: the server's first poll of this cluster is still running; the next poll will answer.
  if (!data && q.error instanceof ApiFetchError && q.error.status === 503) {
    return <NodesSkeleton embed={embed} flowHeight={flowHeight} note={`Waiting for the first poll of this cluster (${q.error.message}); retrying.`} />;
  }
  if (!data || !map || !cross) return <ErrorState message={`GET /api/v1/nodes failed: ${q.error?.message ?? "no answer"}`} />;

  const closeDetail = () => {
    const name = url.node;
    url.openNode(null);
    if (name) requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-node="${CSS.escape(name)}"]`)?.focus());
  };
  let mapBody;
  if (map.total === 0) {
    mapBody = <EmptyState title="No nodes" hint="Kubernetes lists no node in this cluster." />;
  } else if (map.shown === 0) {
    mapBody = (
      <EmptyState
        title={`No node matches these filters (${formatCount(map.hidden)} hidden)`}
        action={
          <button type="button" className="btn" onClick={url.clearFilters}>
            Clear filters
          </button>
        }
      />
    );
  } else {
    mapBody = (
      <>
        <NodeMap zones={map.zones} shown={map.shown} suffix={suffix} selected={url.node} onSelect={url.openNode} />
        {embed ? null : <Marks />}
      </>
    );
  }
  const showing = map.hidden ? `showing ${formatCount(map.shown)} of ${formatCount(map.total)}` : `${formatCount(map.total)} nodes`;

  return (
    <div className={styles.view} data-embed={embed ? "" : undefined}>
      <div className={styles.layout} data-detail={url.node ? "" : undefined}>
        <div className={styles.main}>
          <div className={styles.head}>
            <h1>Nodes</h1>
            <p>
              {data.cluster} · {formatCount(data.totals.nodes)} nodes in {data.zones.length} {data.zones.length === 1 ? "zone" : "zones"}
            </p>
            <span className={styles.headRight}>
              {q.isError ? <span className={styles.refreshError}>refresh failed: {q.error.message}</span> : null}
              <DataAge at={data.at} pollIntervalMs={data.pollIntervalMs} />
            </span>
          </div>
          <StaleBanner stale={data.stale} />
          <NodeToolbar
            filters={filters}
            zones={data.zones.map((z) => z.zone)}
            byState={map.byState}
            onZone={url.setZone}
            onStates={url.setStates}
            onQ={url.setQ}
            onClear={url.clearFilters}
          />
          <div className={styles.content}>
            <Panel title="Node map" right={<span className={styles.showing}>{showing}</span>}>
              {mapBody}
            </Panel>
            <div className={styles.side}>
              <ZoneFlowPanel
                flowsByRole={data.zoneFlowsByRole ?? {}}
                fallback={data.zoneFlows}
                role={url.flowRole}
                defaultRole={data.flowRole ?? null}
                onRole={url.setFlowRole}
                focusZone={zone}
                height={flowHeight}
              />
              {embed ? null : <CrossNodeTable rows={cross.rows} hidden={cross.hidden} suffix={suffix} onNode={url.openNode} onClear={url.clearFilters} height={240} />}
            </div>
          </div>
        </div>
        {url.node ? <NodeDetail key={url.node} name={url.node} cluster={cluster} onClose={closeDetail} onNode={url.openNode} /> : null}
      </div>
    </div>
  );
}
