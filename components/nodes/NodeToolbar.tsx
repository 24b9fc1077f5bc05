"use client";
import type { NodeState } from "@/lib/analysis/types";
import { NODE_STATES, STATE_META, isFiltered, type NodeFilters } from "@/lib/views/node-map";
import styles from "./NodeMap.module.css";
import { formatCount } from "@/lib/format";

interface Props {
  filters: NodeFilters;
  zones: string[];
  byState: Record<NodeState, number>;
  onZone: (z: string | null) => void;
  onStates: (s: NodeState[]) => void;
  onQ: (q: string) => void;
  onClear: () => void;
}

/** Search, zone and state filters; the state toggles are the map's legend, with their counts. */
export function NodeToolbar({ filters, zones, byState, onZone, onStates, onQ, onClear }: Props) {
  const toggle = (s: NodeState) => onStates(filters.states.includes(s) ? filters.states.filter((x) => x !== s) : [...filters.states, s]);
  return (
    <div className={styles.toolbar} role="search" aria-label="Filter nodes">
      <label className={styles.field}>
        <span className="sr-only">Search node or agent pod</span>
        <input className="input" type="search" placeholder="Search node or pod…" value={filters.q} onChange={(e) => onQ(e.target.value)} spellCheck={false} />
      </label>
      <label className={styles.field}>
        <span className="sr-only">Zone</span>
        <select className="input" value={filters.zone ?? ""} onChange={(e) => onZone(e.target.value || null)}>
          <option value="">All zones</option>
          {zones.map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
          {filters.zone && !zones.includes(filters.zone) ? <option value={filters.zone}>{filters.zone} (not in cluster)</option> : null}
        </select>
      </label>
      <div className={styles.legend} role="group" aria-label="Node state (legend and filter)">
        {NODE_STATES.map((s) => (
          <button
            key={s}
            type="button"
            className={styles.legendItem}
            aria-pressed={filters.states.includes(s)}
            title={STATE_META[s].hint}
            onClick={() => toggle(s)}
          >
            <i className={styles.swatch} data-state={s} aria-hidden="true" />
            {STATE_META[s].label}
            <strong>{formatCount(byState[s])}</strong>
          </button>
        ))}
      </div>
      {isFiltered(filters) ? (
        <button type="button" className="btn btn-ghost" onClick={onClear}>
          Clear filters
        </button>
      ) : null}
    </div>
  );
}
