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
  /**
   * `M x y L x y ...` per unbroken run of two points or more, simplified: a point the line passes within a quarter pixel
   * of is left out (a level line of 96 points is its two ends); empty when there is none
   */
  path: string;
  dots: { x: number; y: number }[];
}

const round = (n: number) => Math.round(n * 10) / 10;

/** how far (px) a point may be from the simplified line: well under the 1.5 px stroke */
const TOLERANCE = 0.25;

interface XY {
  x: number;
  y: number;
}

/** distance of p from the segment a-b */
function offLine(p: XY, a: XY, b: XY): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len2 = dx * dx + dy * dy;
  const k = len2 ? Math.min(1, Math.max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2)) : 0;
  return Math.hypot(p.x - (a.x + k * dx), p.y - (a.y + k * dy));
}

/** Ramer-Douglas-Peucker: the points a polyline cannot do without, within `tolerance` (iterative: no deep recursion) */
export function simplify(points: readonly XY[], tolerance = TOLERANCE): XY[] {
  if (points.length < 3) return [...points];
  const keep = new Uint8Array(points.length);
  keep[0] = keep[points.length - 1] = 1;
  const spans: [number, number][] = [[0, points.length - 1]];
  while (spans.length) {
    const [a, b] = spans.pop()!;
    let worst = -1;
    let at = -1;
    for (let i = a + 1; i < b; i++) {
      const d = offLine(points[i], points[a], points[b]);
      if (d > worst) [worst, at] = [d, i];
    }
    if (worst > tolerance) {
      keep[at] = 1;
      spans.push([a, at], [at, b]);
    }
  }
  return points.filter((_, i) => keep[i]);
}

export function sparkGeometry(points: readonly SparkPoint[], box: SparkBox): SparkGeometry {
  const w = box.width - 2 * box.margin;
  const h = box.height - 2 * box.margin;
  const span = box.to - box.from || 1;
  const yMax = box.yMax > 0 ? box.yMax : 1;
  const x = (t: number) => round(box.margin + (Math.min(Math.max(t, box.from), box.to) - box.from) * (w / span));
  const y = (v: number) => round(box.margin + h - Math.min(Math.max(v, 0), yMax) * (h / yMax));
  const parts: string[] = [];
  const dots: { x: number; y: number }[] = [];
  let run: XY[] = [];
  const end = () => {
    if (run.length > 1) parts.push(`M${simplify(run).map((p) => `${p.x} ${p.y}`).join("L")}`);
    run = [];
  };
  points.forEach((p, i) => {
    if (p.v === null || !Number.isFinite(p.v)) return end();
    run.push({ x: x(p.t), y: y(p.v) });
    const lonely = (points[i - 1]?.v ?? null) === null && (points[i + 1]?.v ?? null) === null;
    if (lonely) dots.push({ x: x(p.t), y: y(p.v) });
  });
  end();
  return { path: parts.join(""), dots };
}
