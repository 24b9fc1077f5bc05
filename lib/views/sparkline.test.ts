import { describe, expect, it } from "vitest";
import { sparkGeometry } from "@/lib/views/sparkline";

const box = { width: 24, height: 14, margin: 2, from: 0, to: 100, yMax: 10 };

describe("sparkGeometry", () => {
  it("draws time left to right and values bottom to top, inside the margin", () => {
    const g = sparkGeometry(
      [
        { t: 0, v: 0 },
        { t: 50, v: 5 },
        { t: 100, v: 10 },
      ],
      box,
    );
    expect(g).toEqual({ path: "M2 12L12 7L22 2", dots: [] });
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

  it("clamps values and times outside the box, and copes with an empty axis", () => {
    expect(sparkGeometry([{ t: -50, v: 99 }, { t: 150, v: -3 }], box).path).toBe("M2 2L22 12");
    expect(sparkGeometry([{ t: 5, v: 3 }, { t: 5, v: 3 }], { ...box, from: 5, to: 5, yMax: 0 }).path).toBe("M2 2L2 2");
    expect(sparkGeometry([], box)).toEqual({ path: "", dots: [] });
  });
});
