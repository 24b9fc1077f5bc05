"use client";
import { startTransition, useDeferredValue, useEffect, useMemo, useRef, useState, type FocusEvent, type KeyboardEvent, type MouseEvent, type PointerEvent } from "react";
import type { NodeRow } from "@/lib/analysis/types";
import { densityFor, toTile, zoneSignature, type FilteredZone } from "@/lib/views/node-map";
import { NodeTooltip, type TooltipAnchor } from "./NodeTooltip";
import { ZoneGrid } from "./ZoneGrid";
import styles from "./NodeMap.module.css";

interface Props {
  /** the zones' nodes as filtered: filtering a large map down to a few nodes turns them into captioned cards */
  zones: FilteredZone[];
  suffix: string;
  selected: string | null;
  onSelect: (name: string) => void;
}

/**
 * A map larger than this paints in two passes on its first load: the first rows of every zone (about this many tiles in
 * all, more than a screen holds) with the rest of the page, then the rest in a background transition. Each zone keeps its
 * full height meanwhile.
 */
export const FIRST_PASS_TILES = 1200;

const tileOf = (target: EventTarget | null): HTMLElement | null => (target instanceof Element ? target.closest<HTMLElement>("[data-node]") : null);

/** Arrow keys move the zone's single tab stop (roving tabindex); Home/End jump to its ends. */
function move(current: HTMLElement, key: string): HTMLElement | null {
  const list = current.closest("ul");
  if (!list) return null;
  const buttons = Array.from(list.querySelectorAll<HTMLElement>("[data-node]"));
  const i = buttons.indexOf(current);
  const top = buttons[0].offsetTop;
  const firstOfRow2 = buttons.findIndex((b) => b.offsetTop !== top);
  const cols = firstOfRow2 > 0 ? firstOfRow2 : buttons.length;
  const step: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols, Home: -i, End: buttons.length - 1 - i };
  const j = i + (step[key] ?? 0);
  return j >= 0 && j < buttons.length && j !== i ? buttons[j] : null;
}

/**
 * Every node a tile, grouped by zone. Hover, focus, click and keys are handled here once (event delegation over the
 * zone grids' data attributes), and the one tooltip is the only thing that re-renders on hover.
 */
export function NodeMap({ zones: latest, suffix, selected, onSelect }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const [anchor, setAnchor] = useState<TooltipAnchor | null>(null);
  // A change of filters re-renders thousands of tiles in a background transition, so typing in the search box stays
  // responsive. The first render is not deferred: a deferred first render (a placeholder, then the tiles) was restarted
  // by every other update of the page while it loads (the cluster list, the URL state), and the map painted up to a
  // second after its data had arrived. It paints the first pass instead, with the page.
  const zones = useDeferredValue(latest);
  const count = zones.reduce((k, z) => k + z.nodes.length, 0);
  const density = densityFor(count);
  // the first pass of a large map's first load; once the whole map has rendered, every later render is whole
  const [firstPass, setFirstPass] = useState(true);
  const partial = firstPass && count > FIRST_PASS_TILES;
  useEffect(() => {
    if (firstPass) startTransition(() => setFirstPass(false));
  }, [firstPass]);
  const grids = useMemo(
    () =>
      zones.map((z) => {
        const nodes = partial ? z.nodes.slice(0, Math.ceil((FIRST_PASS_TILES * z.nodes.length) / count)) : z.nodes;
        const tiles = nodes.map((n) => toTile(n, suffix));
        return { zone: z.zone, total: z.total, shown: z.nodes.length, tiles, signature: `${zoneSignature(tiles)}|${z.nodes.length}`, names: new Set(tiles.map((t) => t.name)) };
      }),
    [zones, suffix, partial, count],
  );
  const byName = useMemo(() => {
    const m = new Map<string, NodeRow>();
    for (const z of zones) for (const n of z.nodes) m.set(n.name, n);
    return m;
  }, [zones]);

  const show = (el: HTMLElement) => {
    const name = el.dataset.node!;
    if (anchor?.name === name || !box.current) return;
    const r = el.getBoundingClientRect();
    const b = box.current.getBoundingClientRect();
    const below = r.top < 190;
    const half = Math.min(150, b.width / 2);
    const x = Math.min(Math.max(r.left + r.width / 2 - b.left, half), b.width - half);
    setAnchor({ name, x, y: below ? r.bottom - b.top + 6 : r.top - b.top - 6, below });
  };
  const hide = () => setAnchor(null);

  const onPointerOver = (e: PointerEvent) => {
    const el = tileOf(e.target);
    if (el) show(el);
    else if (anchor) hide();
  };
  const onFocus = (e: FocusEvent) => {
    const el = tileOf(e.target);
    if (el) show(el);
  };
  const onClick = (e: MouseEvent) => {
    const el = tileOf(e.target);
    if (el?.dataset.node) onSelect(el.dataset.node);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const el = tileOf(e.target);
    if (!el) return;
    if (e.key === "Escape") return hide();
    const next = move(el, e.key);
    if (!next) return;
    e.preventDefault();
    el.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  };

  const hovered = anchor ? byName.get(anchor.name) : undefined;
  return (
    <div ref={box} className={styles.map} onPointerOver={onPointerOver} onPointerLeave={hide} onFocus={onFocus} onBlur={hide} onClick={onClick} onKeyDown={onKeyDown}>
      {grids.map((g) => (
        <ZoneGrid key={g.zone} zone={g.zone} total={g.total} shown={g.shown} tiles={g.tiles} signature={g.signature} density={density} selected={selected && g.names.has(selected) ? selected : null} />
      ))}
      {hovered && anchor ? <NodeTooltip node={hovered} anchor={anchor} /> : null}
    </div>
  );
}
