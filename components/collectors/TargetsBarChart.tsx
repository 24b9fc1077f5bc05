"use client";
import { Bar, BarChart, CartesianGrid, Cell, LabelList, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import type { CollectorRow } from "@/lib/analysis/types";
import { chartSummary, eligibilityOf, shortIds } from "@/lib/views/collectors-view";
import { CollectorTooltip } from "./CollectorTooltip";
import { AXIS_TICK, ELIGIBILITY_FILL, GRID_STROKE } from "./palette";
import { formatDecimal } from "@/lib/format";

interface Props {
  /** sorted by targets, descending */
  rows: CollectorRow[];
  mean: number | null;
  height?: number;
  /** horizontal bars with the collector names on the Y axis (for top/bottom lists) */
  horizontal?: boolean;
  label?: string;
}

/** One bar per collector, coloured by eligibility, with the mean as a dashed line. Depends only on its props. */
export function TargetsBarChart({ rows, mean, height = 200, horizontal = false, label }: Props) {
  const short = shortIds(rows.map((r) => r.id));
  const data = rows.map((r) => ({ key: `${r.role}/${r.id}`, name: short.get(r.id) ?? r.id, targets: r.targets, row: r }));
  const showTicks = horizontal || rows.length <= 24;
  const summary = `${label ? `${label}. ` : ""}${chartSummary(rows)}${mean !== null ? ` Mean over eligible collectors: ${formatDecimal(mean, 1)}.` : ""}`;
  const category = (
    <XAxis
      dataKey="name"
      tick={showTicks ? AXIS_TICK : false}
      tickLine={false}
      axisLine={{ stroke: GRID_STROKE }}
      interval="preserveStartEnd"
      minTickGap={4}
      height={showTicks ? 24 : 6}
    />
  );
  const value = <YAxis type="number" allowDecimals={false} tick={AXIS_TICK} tickLine={false} axisLine={false} width={36} />;
  return (
    <div role="img" aria-label={summary}>
      <BarChart
        responsive
        style={{ width: "100%", height }}
        data={data}
        layout={horizontal ? "vertical" : "horizontal"}
        margin={{ top: horizontal && mean !== null ? 18 : 8, right: horizontal ? 34 : 16, bottom: 0, left: 0 }}
        accessibilityLayer={false}
        barCategoryGap={rows.length > 30 ? 1 : "18%"}
      >
        <CartesianGrid stroke={GRID_STROKE} strokeDasharray="2 4" vertical={horizontal} horizontal={!horizontal} />
        {horizontal ? <XAxis type="number" allowDecimals={false} tick={AXIS_TICK} tickLine={false} axisLine={false} height={20} /> : category}
        {horizontal ? (
          <YAxis type="category" dataKey="name" tick={AXIS_TICK} tickLine={false} axisLine={{ stroke: GRID_STROKE }} interval={0} width={118} />
        ) : (
          value
        )}
        <Tooltip content={<CollectorTooltip />} cursor={{ fill: "var(--panel-2)" }} isAnimationActive={false} />
        {mean !== null ? (
          <ReferenceLine
            {...(horizontal ? { x: mean } : { y: mean })}
            stroke="var(--muted)"
            strokeDasharray="4 3"
            ifOverflow="extendDomain"
            label={{ value: `mean ${formatDecimal(mean, 1)}`, position: horizontal ? "top" : "insideTopRight", fill: "var(--muted)", fontSize: 11 }}
          />
        ) : null}
        <Bar dataKey="targets" isAnimationActive={false} maxBarSize={horizontal ? 14 : 44} radius={horizontal ? [0, 2, 2, 0] : [2, 2, 0, 0]}>
          {data.map((d) => (
            <Cell key={d.key} fill={ELIGIBILITY_FILL[eligibilityOf(d.row)]} />
          ))}
          {horizontal ? <LabelList dataKey="targets" position="right" fill="var(--muted)" fontSize={11} /> : null}
        </Bar>
      </BarChart>
    </div>
  );
}
