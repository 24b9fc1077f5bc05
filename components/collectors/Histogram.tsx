"use client";
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import { ELIGIBILITIES, ELIGIBILITY_LABEL, type HistogramBin } from "@/lib/views/collectors-view";
import { AXIS_TICK, ELIGIBILITY_FILL, GRID_STROKE } from "./palette";
import s from "./collectors.module.css";
import { formatCount } from "@/lib/format";

function BinTooltip({ active, payload }: { active?: boolean; payload?: readonly { payload?: HistogramBin }[] }) {
  const b = payload?.[0]?.payload;
  if (!active || !b) return null;
  return (
    <div className={s.tooltip}>
      <strong>
        {b.label} targets: {formatCount(b.total)} collector{b.total === 1 ? "" : "s"}
      </strong>
      {ELIGIBILITIES.filter((e) => b[e]).map((e) => (
        <span key={e}>
          {ELIGIBILITY_LABEL[e]}: {formatCount(b[e])}
        </span>
      ))}
    </div>
  );
}

/** How many collectors hold how many targets, stacked by eligibility. Depends only on its props. */
export function Histogram({ bins, height = 200 }: { bins: HistogramBin[]; height?: number }) {
  const busiest = bins.reduce<HistogramBin | null>((m, b) => (m === null || b.total > m.total ? b : m), null);
  const summary = bins.length
    ? `Histogram of targets per collector, ${bins.length} bins from ${bins[0].from} to ${bins[bins.length - 1].to} targets; the most common range is ${busiest?.label} with ${busiest?.total} collectors.`
    : "No collectors.";
  return (
    <div role="img" aria-label={summary}>
      <BarChart responsive style={{ width: "100%", height }} data={bins} margin={{ top: 8, right: 12, bottom: 0, left: 0 }} accessibilityLayer={false} barCategoryGap={1}>
        <CartesianGrid stroke={GRID_STROKE} strokeDasharray="2 4" vertical={false} />
        <XAxis dataKey="label" tick={AXIS_TICK} tickLine={false} axisLine={{ stroke: GRID_STROKE }} height={34} label={{ value: "targets per collector", position: "insideBottom", fill: "var(--muted)", fontSize: 11 }} />
        <YAxis allowDecimals={false} tick={AXIS_TICK} tickLine={false} axisLine={false} width={40} />
        <Tooltip content={<BinTooltip />} cursor={{ fill: "var(--panel-2)" }} isAnimationActive={false} />
        {ELIGIBILITIES.map((e) => (
          <Bar key={e} dataKey={e} stackId="c" fill={ELIGIBILITY_FILL[e]} isAnimationActive={false} />
        ))}
      </BarChart>
    </div>
  );
}
