import { describe, expect, it } from "vitest";
import { MetricsPushGate, metricsPushGapMs } from "@/lib/metrics/push-gate";

describe("MetricsPushGate", () => {
  it("one cluster polled every interval, a gap of half of it: every poll sends its text", () => {
    const g = new MetricsPushGate(metricsPushGapMs([10]));
    expect([0, 10_000, 20_050, 30_020].map((t) => g.poll(t).send)).toEqual(["now", "now", "now", "now"]);
  });

  it("20 clusters polled at their own times within each 10 s: two sends an interval, none lost", () => {
    const g = new MetricsPushGate(metricsPushGapMs([10]));
    let sends = 0;
    let due: number | null = null;
    for (let round = 0; round < 5; round++) {
      for (let c = 0; c < 20; c++) {
        const t = round * 10_000 + c * 500 + 7;
        // a deferred send fires at its time, before the polls after it
        if (due !== null && due <= t) {
          g.sent(due);
          sends++;
          due = null;
        }
        const r = g.poll(t);
        if (r.send === "now") sends++;
        else if (r.send === "later") {
          expect(due).toBeNull();
          expect(r.at).toBeGreaterThan(t);
          due = r.at;
        }
      }
    }
    // 5 intervals: 10 sends, where a send per poll would be 100; the last polls' text is still due at the gap's end
    expect(sends).toBe(10);
    expect(due).not.toBeNull();
  });

  it("a poll inside the gap is sent at the gap's end; later ones inside it add nothing", () => {
    const g = new MetricsPushGate(5000);
    expect(g.poll(1000)).toEqual({ send: "now" });
    expect(g.poll(2000)).toEqual({ send: "later", at: 6000 });
    expect(g.poll(3000)).toEqual({ send: "pending" });
    g.sent(6000);
    expect(g.poll(7000)).toEqual({ send: "later", at: 11_000 });
    g.sent(11_000);
    expect(g.poll(16_500)).toEqual({ send: "now" });
  });
});
