"use client";
import { useMemo } from "react";
import type { NodeState } from "@/lib/analysis/types";
import { commonSuffix, crossNodeRows, filterNodeMap } from "@/lib/views/node-map";
import type { NodesView as NodesData } from "@/lib/views/nodes";
import { useCluster, useNodes } from "@/components/data/queries";
import { EmptyState, Panel } from "@/components/ui/Panel";
import { FilteredOut, ListState, ViewState, type ViewStatus } from "@/components/ui/ViewState";
import { CrossNodeTable } from "./CrossNodeTable";
import { NodeDetail } from "./NodeDetail";
import { NodeMap } from "./NodeMap";
import { NodesSkeleton } from "./NodesSkeleton";
import { NodeToolbar } from "./NodeToolbar";
import { ZoneFlowPanel } from "./ZoneFlowPanel";
import { useNodeUrlState } from "./useNodeFilters";
import mapStyles from "./NodeMap.module.css";
import styles from "./NodesView.module.css";
import { formatCount, plural } from "@/lib/format";

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
  const flowHeight = embed ? 170 : 230;
  return (
    <ViewState query={q} api="GET /api/v1/nodes" skeleton={(note) => <NodesSkeleton embed={embed} flowHeight={flowHeight} note={note} />}>
      {(data, status) => <NodesBody data={data} status={status} embed={embed} flowHeight={flowHeight} />}
    </ViewState>
  );
}

function NodesBody({ data, status, embed, flowHeight }: { data: NodesData; status: ViewStatus; embed: boolean; flowHeight: number }) {
  const cluster = useCluster();
  const url = useNodeUrlState();
  const { zone, q: text } = url.filters;
  const statesKey = url.filters.states.join(",");
  const filters = useMemo(() => ({ zone, q: text, states: (statesKey ? statesKey.split(",") : []) as NodeState[] }), [zone, text, statesKey]);
  const map = useMemo(() => filterNodeMap(data.zones, filters), [data, filters]);
  const suffix = useMemo(() => commonSuffix(data.zones.flatMap((z) => z.nodes.map((n) => n.name))), [data]);
  const cross = useMemo(() => crossNodeRows(data, filters), [data, filters]);

  const closeDetail = () => {
    const name = url.node;
    url.openNode(null);
    if (name) requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-node="${CSS.escape(name)}"]`)?.focus());
  };
  const showing = map.hidden ? `showing ${formatCount(map.shown)} of ${formatCount(map.total)}` : `${formatCount(map.total)} nodes`;

  return (
    <div className={styles.view} data-embed={embed ? "" : undefined}>
      <div className={styles.layout} data-detail={url.node ? "" : undefined}>
        <div className={styles.main}>
          <div className={styles.head}>
            <h1>Nodes</h1>
            <p>
              {data.cluster} · {formatCount(data.totals.nodes)} nodes in {plural(data.zones.length, "zone")}
            </p>
            <span className={styles.headRight}>{status.age}</span>
          </div>
          {status.banners}
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
              <ListState
                empty={map.total === 0}
                filteredOut={map.shown === 0}
                emptyState={<EmptyState title="No nodes" hint="Kubernetes lists no node in this cluster." />}
                filteredState={<FilteredOut title="No node matches these filters" hidden={map.hidden} noun="node" onClear={url.clearFilters} />}
              >
                <NodeMap zones={map.zones} suffix={suffix} selected={url.node} onSelect={url.openNode} />
                {embed ? null : <Marks />}
              </ListState>
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
