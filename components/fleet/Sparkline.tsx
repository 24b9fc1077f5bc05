"use client";
/**
 * A row's 24-hour trend: two tiny line charts (ghosts, per-node locality) on a time axis that ends at the answer's time,
 * so a cluster with an hour of history draws at the right end only; isolated points get a dot. Described in words for
 * screen readers and the tooltip, with the worst value of the 24 hours beside each line (the table's columns hold the
 * latest; the trend's last point is up to one query step older).
 */
import { memo } from "react";
import type { FleetTrend } from "@/lib/api/schemas";
import { FLEET_LOOKBACK_MS } from "@/lib/fleet/window";
import { trendLabel, trendSummary } from "@/lib/views/fleet-view";
import { sparkGeometry } from "@/lib/views/sparkline";
import { formatCount, formatPercent } from "@/lib/format";
import styles from "./fleet.module.css";

const W = 84;
/** the embed's narrower chart, without the line names (the legend is in the tooltip and the accessible name) */
const W_COMPACT = 56;
const H = 22;

type Key = "ghosts" | "localityRatio";

interface SparkProps {
  data: FleetTrend;
  dataKey: Key;
  color: string;
  /** the top of the value axis */
  yMax: number;
  label: string;
  value: string;
  to: number;
  compact: boolean;
}

/** Plain SVG (lib/views/sparkline.ts): the fleet table draws two per cluster, and a chart library's per-chart cost adds up. */
function Spark({ data, dataKey, color, yMax, label, value, to, compact }: SparkProps) {
  const width = compact ? W_COMPACT : W;
  const g = sparkGeometry(
    data[dataKey].map((v, i) => ({ t: data.start + i * data.stepMs, v })),
    { width, height: H, margin: 2, from: to - FLEET_LOOKBACK_MS, to, yMax },
  );
  return (
    <span className={styles.spark}>
      {compact ? null : (
        <span className={styles.sparkLabel} aria-hidden="true">
          {label}
        </span>
      )}
      <svg width={width} height={H} viewBox={`0 0 ${width} ${H}`} aria-hidden="true" focusable="false">
        {g.path ? <path d={g.path} fill="none" stroke={color} strokeWidth={1.5} strokeLinejoin="round" strokeLinecap="round" /> : null}
        {g.dots.map((d, i) => (
          <circle key={i} cx={d.x} cy={d.y} r={2} fill={color} />
        ))}
      </svg>
      <span className={styles.sparkValue} aria-hidden="true">
        {value}
      </span>
    </span>
  );
}

export const Sparkline = memo(function Sparkline({ trend, to, compact = false }: { trend: FleetTrend; to: number; compact?: boolean }) {
  const label = trendLabel(trend);
  const t = trendSummary(trend);
  if (!t.points) return <span className="age">no trend</span>;
  return (
    <span className={styles.sparks} role="img" aria-label={label} title={label}>
      <Spark data={trend} dataKey="ghosts" color="var(--c-ghost)" yMax={Math.max(1, t.maxGhosts ?? 0)} label="ghosts" value={t.maxGhosts === null ? "–" : `max ${formatCount(t.maxGhosts)}`} to={to} compact={compact} />
      <Spark data={trend} dataKey="localityRatio" color="var(--c-local)" yMax={1} label="locality" value={t.minLocality === null ? "–" : `min ${formatPercent(t.minLocality, 0)}`} to={to} compact={compact} />
    </span>
  );
});
