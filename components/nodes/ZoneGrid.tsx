"use client";
import { memo } from "react";
import type { Density, Tile } from "@/lib/views/node-map";
import styles from "./NodeMap.module.css";
import { formatCount } from "@/lib/format";

interface Props {
  zone: string;
  /** nodes of the zone before filtering */
  total: number;
  tiles: Tile[];
  /** zoneSignature(tiles): equal signatures render the same, so the grid skips the re-render */
  signature: string;
  density: Density;
  /** the selected node when it is in this zone, else null (other zones do not re-render on selection) */
  selected: string | null;
}

function CardBody({ t }: { t: Tile }) {
  return (
    <>
      <span className={styles.cardName}>{t.short}</span>
      <span className={styles.cardMeta}>
        {t.note ? <span className={styles.cardState}>{t.note}</span> : `${formatCount(t.targets)} targets`}
        {` · ${t.pods} ${t.pods === 1 ? "pod" : "pods"}`}
      </span>
    </>
  );
}

/**
 * One zone's tiles: plain buttons carrying data attributes, no handlers of their own (NodeMap delegates hover, focus,
 * click and arrow keys from its container). One tab stop per zone; arrows move it (roving tabindex).
 */
function ZoneGridImpl({ zone, total, tiles, density, selected }: Props) {
  return (
    <section className={styles.zone} aria-label={`Zone ${zone}`}>
      <h3 className={styles.zoneHead}>
        <span>{zone}</span>
        <span className={styles.zoneCount}>
          {tiles.length === total ? `${formatCount(total)} nodes` : `${formatCount(tiles.length)} of ${formatCount(total)} nodes`}
        </span>
      </h3>
      <ul className={styles.grid} data-density={density} aria-label={`Nodes in ${zone}`}>
        {tiles.map((t, i) => (
          <li key={t.name}>
            <button
              type="button"
              className={styles.tile}
              data-node={t.name}
              data-state={t.state}
              data-multi={t.multi ? "" : undefined}
              data-notready={t.notReady ? "" : undefined}
              aria-label={t.label}
              aria-current={selected === t.name ? "true" : undefined}
              tabIndex={i === 0 ? 0 : -1}
            >
              {density === "cards" ? <CardBody t={t} /> : null}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export const ZoneGrid = memo(
  ZoneGridImpl,
  (a, b) => a.signature === b.signature && a.density === b.density && a.selected === b.selected && a.zone === b.zone && a.total === b.total,
);
