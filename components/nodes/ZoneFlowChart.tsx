"use client";
import type { ZoneFlow } from "@/lib/views/nodes";
import { flowNodeLabel, layoutZoneFlows, type FlowNode } from "@/lib/views/node-flow";
import { CLASS_LABEL } from "@/components/overview/ClassBar";
import { useElementWidth } from "./useElementWidth";
import styles from "./ZoneFlow.module.css";
import { formatCount } from "@/lib/format";

interface Props {
  flows: readonly ZoneFlow[];
  height: number;
  /** the zone filter: bands that do not touch it are dimmed */
  focusZone: string | null;
}

const BAR = 10;
const TWO_LINES = 30;
const caption = (id: string) => {
  const name = flowNodeLabel(id);
  return name.length > 22 ? `${name.slice(0, 21)}…` : name;
};
/** Room for a column's labels: about 7 px a character of 12 px text, plus the gap to the bar. */
const margin = (nodes: FlowNode[]) => Math.max(48, ...nodes.map((d) => (caption(d.id).length + (d.h >= TWO_LINES ? 0 : formatCount(d.count).length + 1)) * 7 + 14));

function Label({ node, x, anchor }: { node: FlowNode; x: number; anchor: "start" | "end" }) {
  const mid = node.y + node.h / 2;
  const twoLines = node.h >= TWO_LINES;
  return (
    <text x={x} y={twoLines ? mid - 3 : mid + 4} textAnchor={anchor} className={styles.label} data-kind={node.kind}>
      {caption(node.id)}
      {twoLines ? (
        <tspan x={x} dy={15} className={styles.count}>
          {formatCount(node.count)}
        </tspan>
      ) : (
        <tspan className={styles.count}> {formatCount(node.count)}</tspan>
      )}
    </text>
  );
}

/**
 * Target zone (left) to collector zone (right), one band per class: locality reads as horizontal green bands, cross-zone
 * traffic as red diagonals, ghosts as purple bands into the "ghost collector" column.
 */
export function ZoneFlowChart({ flows, height, focusZone }: Props) {
  const [ref, width] = useElementWidth<HTMLDivElement>();
  // Lay out once to learn the labels (one or two lines), then size each side's margin to its own labels.
  const probe = layoutZoneFlows(flows, { height: height - 8, x0: 0, x1: 1, gap: 12, minBand: 3 });
  const x0 = margin(probe.left);
  const x1 = Math.max(x0 + 80, width - margin(probe.right));
  const layout = layoutZoneFlows(flows, { height: height - 8, x0: x0 + BAR, x1: x1 - BAR, gap: 12, minBand: 3 });
  const summary = flows.map((f) => `${f.from} to ${f.to}: ${formatCount(f.count)}`).join("; ");
  const dim = (from: string, to: string) => Boolean(focusZone) && from !== focusZone && to !== focusZone;
  return (
    <div ref={ref} className={styles.chart} style={{ height }}>
      {width > 0 ? (
        <svg width={width} height={height} role="img" aria-label={`Targets by target zone and collector zone. ${summary}`}>
          <g transform="translate(0,4)">
            {layout.bands.map((b) => (
              <path key={b.key} d={b.path} className={styles.band} data-cls={b.cls} data-dim={dim(b.from, b.to) ? "" : undefined}>
                <title>{`${b.from} → ${b.to}: ${formatCount(b.count)} ${CLASS_LABEL[b.cls]}`}</title>
              </path>
            ))}
            {layout.left.map((nd) => (
              <g key={`l-${nd.id}`}>
                <rect x={x0} y={nd.y} width={BAR} height={Math.max(1, nd.h)} rx={2} className={styles.bar} data-kind={nd.kind} />
                <Label node={nd} x={x0 - 8} anchor="end" />
              </g>
            ))}
            {layout.right.map((nd) => (
              <g key={`r-${nd.id}`}>
                <rect x={x1 - BAR} y={nd.y} width={BAR} height={Math.max(1, nd.h)} rx={2} className={styles.bar} data-kind={nd.kind} />
                <Label node={nd} x={x1 + 8} anchor="start" />
              </g>
            ))}
          </g>
        </svg>
      ) : null}
    </div>
  );
}
