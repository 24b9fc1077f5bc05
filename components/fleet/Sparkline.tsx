"use client";
/** A row's 24-hour trend: two tiny line charts (ghosts, per-node locality), described in words for screen readers. */
import { Line, LineChart, YAxis } from "recharts";
import type { FleetTrendPoint } from "@/lib/api/schemas";
import { trendLabel } from "@/lib/views/fleet-view";
import styles from "./fleet.module.css";

const W = 84;
const H = 24;

function Spark({ data, dataKey, color, domain, label }: { data: FleetTrendPoint[]; dataKey: "ghosts" | "localityRatio"; color: string; domain: [number, number | ((max: number) => number)]; label: string }) {
  return (
    <span className={styles.spark}>
      <span className={styles.sparkLabel} aria-hidden="true">
        {label}
      </span>
      <LineChart width={W} height={H} data={data} margin={{ top: 2, right: 1, bottom: 2, left: 1 }} accessibilityLayer={false}>
        <YAxis hide domain={domain} />
        <Line dataKey={dataKey} stroke={color} strokeWidth={1.5} dot={false} type="monotone" isAnimationActive={false} connectNulls={false} />
      </LineChart>
    </span>
  );
}

export function Sparkline({ trend }: { trend: FleetTrendPoint[] }) {
  const label = trendLabel(trend);
  if (!trend.length) return <span className="age">no trend</span>;
  return (
    <span className={styles.sparks} role="img" aria-label={label} title={label}>
      <Spark data={trend} dataKey="ghosts" color="var(--c-ghost)" domain={[0, (max: number) => Math.max(1, max)]} label="ghosts" />
      <Spark data={trend} dataKey="localityRatio" color="var(--c-local)" domain={[0, 1]} label="locality" />
    </span>
  );
}
