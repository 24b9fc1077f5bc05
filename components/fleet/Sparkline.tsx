"use client";
/**
 * A row's 24-hour trend: two tiny line charts (ghosts, per-node locality) on a time axis that ends at the answer's time,
 * so a cluster with an hour of history draws at the right end only; isolated points get a dot. Described in words for
 * screen readers and the tooltip, with the worst value of the 24 hours beside each line (the table's columns hold the
 * latest; the trend's last point is up to one query step older).
 */
import { Line, LineChart, XAxis, YAxis } from "recharts";
import type { FleetTrendPoint } from "@/lib/api/schemas";
import { FLEET_LOOKBACK_MS } from "@/lib/fleet/window";
import { trendLabel, trendSummary } from "@/lib/views/fleet-view";
import { formatCount, formatPercent } from "@/lib/format";
import styles from "./fleet.module.css";

const W = 84;
/** the embed's narrower chart, without the line names (the legend is in the tooltip and the accessible name) */
const W_COMPACT = 56;
const H = 22;

type Key = "ghosts" | "localityRatio";

interface SparkProps {
  data: FleetTrendPoint[];
  dataKey: Key;
  color: string;
  domain: [number, number | ((max: number) => number)];
  label: string;
  value: string;
  to: number;
  compact: boolean;
}

function Spark({ data, dataKey, color, domain, label, value, to, compact }: SparkProps) {
  // a point with no neighbour draws no line: give it a dot
  const lonely = (i: number) => data[i][dataKey] !== null && (data[i - 1]?.[dataKey] ?? null) === null && (data[i + 1]?.[dataKey] ?? null) === null;
  return (
    <span className={styles.spark}>
      {compact ? null : (
        <span className={styles.sparkLabel} aria-hidden="true">
          {label}
        </span>
      )}
      <LineChart width={compact ? W_COMPACT : W} height={H} data={data} margin={{ top: 2, right: 2, bottom: 2, left: 2 }} accessibilityLayer={false}>
        <XAxis hide dataKey="t" type="number" domain={[to - FLEET_LOOKBACK_MS, to]} />
        <YAxis hide domain={domain} />
        <Line
          dataKey={dataKey}
          stroke={color}
          strokeWidth={1.5}
          dot={(p: { cx?: number; cy?: number; index?: number }) => (lonely(p.index ?? -1) && p.cx !== undefined && p.cy !== undefined ? <circle key={p.index} cx={p.cx} cy={p.cy} r={2} fill={color} /> : <g key={p.index} />)}
          type="monotone"
          isAnimationActive={false}
          connectNulls={false}
        />
      </LineChart>
      <span className={styles.sparkValue} aria-hidden="true">
        {value}
      </span>
    </span>
  );
}

export function Sparkline({ trend, to, compact = false }: { trend: FleetTrendPoint[]; to: number; compact?: boolean }) {
  const label = trendLabel(trend);
  if (!trend.length) return <span className="age">no trend</span>;
  const t = trendSummary(trend);
  return (
    <span className={styles.sparks} role="img" aria-label={label} title={label}>
      <Spark data={trend} dataKey="ghosts" color="var(--c-ghost)" domain={[0, (max: number) => Math.max(1, max)]} label="ghosts" value={t.maxGhosts === null ? "–" : `max ${formatCount(t.maxGhosts)}`} to={to} compact={compact} />
      <Spark data={trend} dataKey="localityRatio" color="var(--c-local)" domain={[0, 1]} label="locality" value={t.minLocality === null ? "–" : `min ${formatPercent(t.minLocality, 0)}`} to={to} compact={compact} />
    </span>
  );
}
