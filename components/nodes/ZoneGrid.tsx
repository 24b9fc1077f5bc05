"use client";
import { memo, useLayoutEffect, useRef } from "react";
import type { Density, Tile } from "@/lib/views/node-map";
import styles from "./NodeMap.module.css";
import { formatCount } from "@/lib/format";

interface Props {
  zone: string;
  /** nodes of the zone before filtering */
  total: number;
  /** nodes of the zone after filtering; more than `tiles` during the first pass of a large map (NodeMap) */
  shown: number;
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
/** The distance from one tile to the next (tile and gap, NodeMap.module.css), for the height a partial grid holds. */
const PITCH_PX: Record<Density, { tile: number; gap: number } | null> = { dense: { tile: 10, gap: 2 }, tiles: { tile: 16, gap: 3 }, cards: null };

function ZoneGridImpl({ zone, total, shown, tiles, density, selected }: Props) {
  const list = useRef<HTMLUListElement>(null);
  // While only the first rows are rendered, the grid holds the height of all of them: the rest fills in without moving
  // anything below it. Set before the browser paints.
  useLayoutEffect(() => {
    const ul = list.current;
    const pitch = PITCH_PX[density];
    if (!ul) return;
    if (!pitch || tiles.length >= shown) {
      ul.style.minHeight = "";
      return;
    }
    const cols = Math.max(1, Math.floor((ul.clientWidth + pitch.gap) / (pitch.tile + pitch.gap)));
    ul.style.minHeight = `${Math.ceil(shown / cols) * (pitch.tile + pitch.gap) - pitch.gap}px`;
  }, [tiles.length, shown, density]);
  return (
    <section className={styles.zone} aria-label={`Zone ${zone}`}>
      <h3 className={styles.zoneHead}>
        <span>{zone}</span>
        <span className={styles.zoneCount}>
          {shown === total ? `${formatCount(total)} nodes` : `${formatCount(shown)} of ${formatCount(total)} nodes`}
        </span>
      </h3>
      <ul ref={list} className={styles.grid} data-density={density} aria-label={`Nodes in ${zone}`} aria-busy={tiles.length < shown ? true : undefined}>
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
  (a, b) => a.signature === b.signature && a.density === b.density && a.selected === b.selected && a.zone === b.zone && a.total === b.total && a.shown === b.shown,
);
