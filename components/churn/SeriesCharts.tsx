"use client";
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { Role } from "@/lib/model";
import { isolatedPoints, type LocalityLines, type SeriesRow } from "@/lib/views/churn-charts";
import { ChartLegend } from "./ChartLegend";
import { AXIS_TICK, GRID_STROKE, LOCALITY_STROKE } from "./palette";
import styles from "./churn.module.css";
import { axisTick, compactNumber, formatCount, formatPercent, utcStamp } from "@/lib/format";

const LOCALITY_KEY: Record<Role, "locality_pn" | "locality_cs"> = { "per-node": "locality_pn", "cluster-scraper": "locality_cs" };
const count = (v: number | null | undefined) => formatCount(v, "no data");
/** the series carry percents (0-100) */
const locality = (v: number | null | undefined) => (v === null || v === undefined ? "no data" : formatPercent(v / 100));

function PointTooltip({ active, payload, roles, multiDay, kind }: { active?: boolean; payload?: readonly { payload?: SeriesRow }[]; roles: Role[]; multiDay: boolean; kind: "locality" | "lost" }) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  return (
    <div className={styles.tooltip}>
      <strong>{utcStamp(row.t, multiDay)} UTC</strong>
      {kind === "locality" ? (
        roles.map((r) => (
          <span key={r}>
            {r} locality: {locality(row[LOCALITY_KEY[r]])}
          </span>
        ))
      ) : (
        <>
          <span>ghosts (worst): {count(row.ghosts)}</span>
          <span>unassigned (worst): {count(row.unassigned)}</span>
        </>
      )}
    </div>
  );
}

type SeriesKey = Exclude<keyof SeriesRow, "t">;

/** A dot only where a point has no neighbour (the start of the history, a gap): elsewhere the line says it all. */
function lonelyDot(rows: readonly SeriesRow[], key: SeriesKey, color: string) {
  const lonely = isolatedPoints(rows, key);
  const LonelyDot = (p: { cx?: number; cy?: number; index?: number }) =>
    p.index !== undefined && lonely.has(p.index) && p.cx !== undefined && p.cy !== undefined ? (
      <circle key={`${key}-${p.index}`} cx={p.cx} cy={p.cy} r={3} fill={color} />
    ) : (
      <g key={`${key}-${p.index}`} />
    );
  return LonelyDot;
}

/** Lowest tick of the locality axis: a round ten below the data, so small dips show. */
const localityFloor = (min: number) => (Number.isFinite(min) ? Math.max(0, Math.min(90, Math.floor((min - 2) / 10) * 10)) : 0);

interface Props {
  rows: SeriesRow[];
  /** the roles with a locality ratio: those charted, and those left out (locality not expected for them) */
  locality: LocalityLines;
  multiDay: boolean;
  height?: number;
}

/** Locality ratio of the roles that aim for it, and ghosts and unassigned (summed over roles), over the range: two small line charts. */
export function SeriesCharts({ rows, locality: l, multiDay, height = 130 }: Props) {
  const roles = l.charted;
  const last = [...rows].reverse().find((r) => r.ghosts !== null);
  const latest = roles.map((r) => `${r} ${locality(last?.[LOCALITY_KEY[r]])}`).join(", ") || "no data";
  const axis = (
    <XAxis dataKey="t" tickFormatter={(t: number) => axisTick(t, multiDay)} tick={AXIS_TICK} tickLine={false} axisLine={{ stroke: GRID_STROKE }} minTickGap={40} height={20} />
  );
  return (
    <div>
      <div className={styles.chartBlock}>
        <div className={styles.chartHead}>
          <strong>Locality ratio</strong>
          <ChartLegend items={roles.map((r) => ({ key: r, label: r, color: LOCALITY_STROKE[r], line: true }))} />
          {l.legend ? (
            <span className={styles.leftOut} title={l.why ?? undefined} data-testid="locality-left-out">
              {l.legend}
            </span>
          ) : null}
        </div>
        {roles.length === 0 && l.why ? (
          <div className={styles.emptyBox} style={{ height }}>
            <p className="empty">{l.why}</p>
          </div>
        ) : (
          <div role="img" aria-label={`Locality ratio over the range; latest ${latest}${l.why ? `. ${l.why}` : ""}`}>
            <LineChart responsive style={{ width: "100%", height }} data={rows} margin={{ top: 4, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
              <CartesianGrid stroke={GRID_STROKE} strokeDasharray="2 4" vertical={false} />
              {axis}
              <YAxis domain={[(min: number) => localityFloor(min), 100]} tickFormatter={(v: number) => formatPercent(v / 100, 0)} tick={AXIS_TICK} tickLine={false} axisLine={false} width={40} />
              <Tooltip content={<PointTooltip roles={roles} multiDay={multiDay} kind="locality" />} isAnimationActive={false} />
              {roles.map((r) => (
                <Line key={r} dataKey={LOCALITY_KEY[r]} stroke={LOCALITY_STROKE[r]} strokeWidth={2} dot={lonelyDot(rows, LOCALITY_KEY[r], LOCALITY_STROKE[r])} type="monotone" isAnimationActive={false} connectNulls={false} />
              ))}
            </LineChart>
          </div>
        )}
      </div>
      <div className={styles.chartBlock}>
        <div className={styles.chartHead}>
          <strong>Ghosts and unassigned</strong>
          <ChartLegend
            items={[
              { key: "g", label: "ghosts", color: "var(--c-ghost)", line: true },
              { key: "u", label: "unassigned", color: "var(--warn)", line: true },
            ]}
          />
        </div>
        <div role="img" aria-label={`Ghost and unassigned targets over the range; latest ${count(last?.ghosts)} ghosts, ${count(last?.unassigned)} unassigned`}>
          <LineChart responsive style={{ width: "100%", height }} data={rows} margin={{ top: 4, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid stroke={GRID_STROKE} strokeDasharray="2 4" vertical={false} />
            {axis}
            <YAxis allowDecimals={false} tickFormatter={compactNumber} tick={AXIS_TICK} tickLine={false} axisLine={false} width={40} />
            <Tooltip content={<PointTooltip roles={roles} multiDay={multiDay} kind="lost" />} isAnimationActive={false} />
            <Line dataKey="ghosts" stroke="var(--c-ghost)" strokeWidth={2} dot={lonelyDot(rows, "ghosts", "var(--c-ghost)")} type="stepAfter" isAnimationActive={false} />
            <Line dataKey="unassigned" stroke="var(--warn)" strokeWidth={2} strokeDasharray="5 3" dot={lonelyDot(rows, "unassigned", "var(--warn)")} type="stepAfter" isAnimationActive={false} />
          </LineChart>
        </div>
      </div>
    </div>
  );
}
