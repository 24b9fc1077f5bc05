"use client";
import type { ReactNode } from "react";
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import type { Role } from "@/lib/model";
import { timelineTotals, type TimelineRow } from "@/lib/views/churn-charts";
import { ChartLegend } from "./ChartLegend";
import { AXIS_TICK, GRID_STROKE, MOVES_FILL, READY_FILL } from "./palette";
import styles from "./churn.module.css";
import { axisTick, compactNumber, formatCount, utcStamp, utcTime } from "@/lib/format";

type Metric = "ready" | "moves";
const KEY: Record<Metric, Record<Role, keyof TimelineRow>> = {
  ready: { "per-node": "ready_pn", "cluster-scraper": "ready_cs" },
  moves: { "per-node": "moves_pn", "cluster-scraper": "moves_cs" },
};
const FILL: Record<Metric, Record<Role, string>> = { ready: READY_FILL, moves: MOVES_FILL };
const NOUN: Record<Metric, [string, string]> = { ready: ["readiness transition", "readiness transitions"], moves: ["target reassigned", "targets reassigned"] };

function BucketTooltip({ active, payload, metric, roles, multiDay }: { active?: boolean; payload?: readonly { payload?: TimelineRow }[]; metric: Metric; roles: Role[]; multiDay: boolean }) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  return (
    <div className={styles.tooltip}>
      <strong>
        {utcStamp(row.t, multiDay)} – {utcTime(row.end)} UTC
      </strong>
      {roles.map((r) => {
        const n = row[KEY[metric][r]] as number;
        return (
          <span key={r}>
            {r}: {formatCount(n)} {NOUN[metric][n === 1 ? 0 : 1]}
          </span>
        );
      })}
    </div>
  );
}

interface Props {
  rows: TimelineRow[];
  /** roles shown (stacked in this order) */
  roles: Role[];
  multiDay: boolean;
  /** height of each of the two charts */
  height?: number;
  /** replaces the charts with a message (nothing happened in the range), keeping their size */
  empty?: ReactNode;
}

/** Readiness transitions and target reassignments per bucket, two aligned stacked bar charts (one scale each). */
export function TimelineChart({ rows, roles, multiDay, height = 130, empty }: Props) {
  const totals = timelineTotals(rows);
  const block = (metric: Metric, title: string, total: number) => (
    <div className={styles.chartBlock}>
      <div className={styles.chartHead}>
        <strong>{title}</strong>
        <span className={styles.chartTotal}>{formatCount(total)} in range</span>
        <ChartLegend items={roles.map((r) => ({ key: r, label: r, color: FILL[metric][r] }))} />
      </div>
      <div role="img" aria-label={`${title} per interval: ${total} in the range`}>
        <BarChart responsive style={{ width: "100%", height }} data={rows} margin={{ top: 4, right: 8, bottom: 0, left: 0 }} syncId="churn-timeline" barCategoryGap={1} accessibilityLayer={false}>
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="2 4" vertical={false} />
          <XAxis dataKey="t" tickFormatter={(t: number) => axisTick(t, multiDay)} tick={AXIS_TICK} tickLine={false} axisLine={{ stroke: GRID_STROKE }} minTickGap={48} height={20} />
          <YAxis allowDecimals={false} tickFormatter={compactNumber} tick={AXIS_TICK} tickLine={false} axisLine={false} width={44} />
          <Tooltip content={<BucketTooltip metric={metric} roles={roles} multiDay={multiDay} />} cursor={{ fill: "var(--panel-2)" }} isAnimationActive={false} />
          {roles.map((r) => (
            <Bar key={r} dataKey={KEY[metric][r]} stackId={metric} fill={FILL[metric][r]} isAnimationActive={false} />
          ))}
        </BarChart>
      </div>
    </div>
  );
  if (empty) {
    // same height as the two charts: nothing moves when the first event arrives
    return (
      <div className={styles.emptyBox} style={{ height: 2 * (height + 20) + 10 }}>
        {empty}
      </div>
    );
  }
  return (
    <div>
      {block("ready", "Readiness transitions", totals.readiness)}
      {block("moves", "Target reassignments", totals.reassignments)}
    </div>
  );
}
