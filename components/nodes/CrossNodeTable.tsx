"use client";
import type { CrossNodeRow } from "@/lib/views/node-map";
import { shortName } from "@/lib/views/node-map";
import { EmptyState, Panel, PanelGuard } from "@/components/ui/Panel";
import { FilteredOut, ListState } from "@/components/ui/ViewState";
import styles from "./NodeDetail.module.css";
import { formatCount, ROLE_TITLE } from "@/lib/format";

interface Props {
  rows: CrossNodeRow[];
  hidden: number;
  suffix: string;
  onNode: (name: string) => void;
  onClear: () => void;
  height: number;
}

function NodeButton({ name, suffix, onNode }: { name: string; suffix: string; onNode: (n: string) => void }) {
  return (
    <button type="button" className={styles.linkBtn} onClick={() => onNode(name)} title={name}>
      {shortName(name, suffix)}
    </button>
  );
}

/** The largest node -> node flows of the per-node agent: targets scraped by a collector on another node. */
function CrossNodeTableInner({ rows, hidden, suffix, onNode, onClear, height }: Props) {
  const body = (
    <ListState
      empty={rows.length === 0 && hidden === 0}
      filteredOut={rows.length === 0}
      emptyState={<EmptyState title="Every target is scraped on its own node" hint="No target leaves its node for a collector elsewhere." />}
      filteredState={<FilteredOut title="No cross-node flow matches these filters" hidden={hidden} noun="flow" onClear={onClear} />}
    >
      <table className="data">
        <thead>
          <tr>
            <th scope="col">Target node</th>
            <th scope="col">Scraped on</th>
            <th scope="col" className="num">
              Targets
            </th>
            <th scope="col">Crosses</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <td>
                <NodeButton name={r.from} suffix={suffix} onNode={onNode} />
                {r.fromZone ? <div className={styles.sub}>{r.fromZone}</div> : null}
              </td>
              <td>
                <NodeButton name={r.to} suffix={suffix} onNode={onNode} />
                {r.toZone ? <div className={styles.sub}>{r.toZone}</div> : null}
              </td>
              <td className="num">{formatCount(r.count)}</td>
              <td>
                <span className={styles.cls} data-cls={r.crossZone ? "cross_zone" : "cross_node"}>
                  {r.crossZone ? "zone" : "node"}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ListState>
  );
  return (
    <Panel title="Biggest cross-node flows" right={<span className="age">{ROLE_TITLE["per-node"].toLowerCase()}</span>}>
      <div className={styles.scroll} style={{ height: rows.length ? height : 120 }}>
        {body}
      </div>
      {rows.length && hidden ? <div className={styles.sub}>{formatCount(hidden)} more hidden by the filters</div> : null}
    </Panel>
  );
}

/** CrossNodeTable inside its own boundary: a failure while computing it fails this panel only. */
export function CrossNodeTable(props: Props) {
  return (
    <PanelGuard title={"Biggest cross-node flows"}>
      <CrossNodeTableInner {...props} />
    </PanelGuard>
  );
}
