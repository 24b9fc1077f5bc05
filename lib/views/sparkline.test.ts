import { describe, expect, it } from "vitest";
import { simplify, sparkGeometry } from "@/lib/views/sparkline";

const box = { width: 24, height: 14, margin: 2, from: 0, to: 100, yMax: 10 };

describe("sparkGeometry", () => {
  it("draws time left to right and values bottom to top, inside the margin", () => {
    const g = sparkGeometry(
      [
        { t: 0, v: 0 },
        { t: 50, v: 8 },
        { t: 100, v: 10 },
      ],
      box,
    );
    expect(g).toEqual({ path: "M2 12L12 4L22 2", dots: [] });
  });

  it("breaks the line where a value is missing, and dots a point with no neighbour", () => {
    const g = sparkGeometry(
      [
        { t: 0, v: 1 },
        { t: 25, v: 2 },
        { t: 50, v: null },
        { t: 75, v: 4 },
        { t: 100, v: null },
      ],
      box,
    );
    expect(g.path).toBe("M2 11L7 10");
    expect(g.dots).toEqual([{ x: 17, y: 8 }]);
  });

  it("draws a level stretch as its two ends, keeping every point where the level changes", () => {
    const level = (vs: number[]) => sparkGeometry(vs.map((v, i) => ({ t: i * 25, v })), box).path;
    expect(level([5, 5, 5, 5, 5])).toBe("M2 7L22 7");
    expect(level([5, 5, 5, 0, 0])).toBe("M2 7L12 7L17 12L22 12");
    expect(level([0, 5, 5, 5, 0])).toBe("M2 12L7 7L17 7L22 12");
  });

  it("leaves out the points the line passes within a quarter pixel of, and keeps every one further off", () => {
    const line = [0, 1, 2, 3, 4].map((x) => ({ x, y: x * 0.5 }));
    expect(simplify(line)).toEqual([line[0], line[4]]);
    const bent = line.map((p, i) => (i === 2 ? { x: p.x, y: p.y + 0.2 } : p));
    expect(simplify(bent)).toEqual([bent[0], bent[4]]);
    const kinked = line.map((p, i) => (i === 2 ? { x: p.x, y: p.y + 0.3 } : p));
    expect(simplify(kinked)).toEqual([kinked[0], kinked[2], kinked[4]]);
    // a wave keeps its crests and troughs
    const wave = Array.from({ length: 96 }, (_, i) => ({ x: i, y: Math.round(10 * (1 + Math.sin(i / 8)) * 10) / 10 }));
    const kept = simplify(wave);
    expect(kept.length).toBeLessThan(wave.length / 2);
    for (const p of wave) expect(Math.min(...kept.slice(1).map((b, i) => distance(p, kept[i], b)))).toBeLessThanOrEqual(0.25);
  });

  it("clamps values and times outside the box, and copes with an empty axis", () => {
    expect(sparkGeometry([{ t: -50, v: 99 }, { t: 150, v: -3 }], box).path).toBe("M2 2L22 12");
    expect(sparkGeometry([{ t: 5, v: 3 }, { t: 5, v: 3 }], { ...box, from: 5, to: 5, yMax: 0 }).path).toBe("M2 2L2 2");
    expect(sparkGeometry([], box)).toEqual({ path: "", dots: [] });
  });
});

function distance(p: { x: number; y: number }, a: { x: number; y: number }, b: { x: number; y: number }): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const k = Math.min(1, Math.max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy || 1)));
  return Math.hypot(p.x - (a.x + k * dx), p.y - (a.y + k * dy));
}
