import type { NodeRow } from "@/lib/analysis/types";
import { STATE_META, nodeTargetCount } from "@/lib/views/node-map";
import { CLASS_LABEL } from "@/components/overview/ClassBar";
import { FLOW_CLASSES } from "@/lib/views/node-flow";
import styles from "./NodeMap.module.css";
import { formatCount } from "@/lib/format";

export interface TooltipAnchor {
  name: string;
  /** position inside the map container: the tile's centre x and its top (or bottom when below) */
  x: number;
  y: number;
  below: boolean;
}

/** The one shared tooltip of the map, positioned on the hovered or focused tile. Tiles carry the same text as aria-label. */
export function NodeTooltip({ node, anchor }: { node: NodeRow; anchor: TooltipAnchor }) {
  const total = nodeTargetCount(node);
  return (
    <div className={styles.tooltip} data-below={anchor.below ? "" : undefined} style={{ left: anchor.x, top: anchor.y }} aria-hidden="true">
      <div className={styles.ttName}>{node.name}</div>
      <div className={styles.ttMeta}>
        <i className={styles.swatch} data-state={node.state} /> {STATE_META[node.state].label}
        {node.zone ? ` · ${node.zone}` : ""}
        {node.instanceType ? ` · ${node.instanceType}` : ""}
        {node.ready ? "" : " · node not Ready"}
      </div>
      <div className={styles.ttRow}>
        {formatCount(total)} targets
        {FLOW_CLASSES.filter((c) => node.targets[c] > 0 && c !== "local").map((c) => (
          <span key={c} style={{ color: `var(--c-${c})` }}>
            {" "}
            · {node.targets[c]} {CLASS_LABEL[c]}
          </span>
        ))}
      </div>
      {node.scrapedElsewhere || node.scrapedHereForOthers ? (
        <div className={styles.ttRow}>
          {node.scrapedElsewhere} scraped elsewhere · {node.scrapedHereForOthers} scraped here for others
        </div>
      ) : null}
      <ul className={styles.ttPods}>
        {node.collectors.length === 0 ? <li>no agent pod</li> : null}
        {node.collectors.map((c) => (
          <li key={`${c.role}/${c.id}`}>
            <span className={styles.dot} data-ok={c.eligible ? "" : undefined} />
            <span className="mono">{c.id}</span> <span className={styles.ttMuted}>{c.role}</span>
            {c.eligible ? null : <span className={styles.ttBad}> {c.reason ?? "not eligible"}</span>}
          </li>
        ))}
      </ul>
      {node.multiplePods ? <div className={styles.ttWarn}>Two agent pods of one role: a rollout is in progress</div> : null}
    </div>
  );
}
