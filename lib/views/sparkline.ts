/**
 * A sparkline's geometry: one series of (time, value or null) drawn into a small box as an SVG path of straight segments,
 * broken where a value is missing, and a dot for each point with no neighbour (it would draw no line). Pure: the fleet
 * table draws two per cluster, a hundred clusters and more, as plain SVG.
 */
export interface SparkPoint {
  t: number;
  v: number | null;
}

export interface SparkBox {
  width: number;
  height: number;
  /** inside the box on every side */
  margin: number;
  /** the time axis: `from` at the left edge, `to` at the right */
  from: number;
  to: number;
  /** the value axis: 0 at the bottom, `yMax` at the top (values above it are drawn at the top) */
  yMax: number;
}

export interface SparkGeometry {
  /** `M x y L x y ...` per unbroken run of two points or more; empty when there is none */
  path: string;
  dots: { x: number; y: number }[];
}

const round = (n: number) => Math.round(n * 10) / 10;

export function sparkGeometry(points: readonly SparkPoint[], box: SparkBox): SparkGeometry {
  const w = box.width - 2 * box.margin;
  const h = box.height - 2 * box.margin;
  const span = box.to - box.from || 1;
  const yMax = box.yMax > 0 ? box.yMax : 1;
  const x = (t: number) => round(box.margin + (Math.min(Math.max(t, box.from), box.to) - box.from) * (w / span));
  const y = (v: number) => round(box.margin + h - Math.min(Math.max(v, 0), yMax) * (h / yMax));
  const parts: string[] = [];
  const dots: { x: number; y: number }[] = [];
  let run: string[] = [];
  const end = () => {
    if (run.length > 1) parts.push(`M${run.join("L")}`);
    run = [];
  };
  points.forEach((p, i) => {
    if (p.v === null || !Number.isFinite(p.v)) return end();
    run.push(`${x(p.t)} ${y(p.v)}`);
    const lonely = (points[i - 1]?.v ?? null) === null && (points[i + 1]?.v ?? null) === null;
    if (lonely) dots.push({ x: x(p.t), y: y(p.v) });
  });
  end();
  return { path: parts.join(""), dots };
}
