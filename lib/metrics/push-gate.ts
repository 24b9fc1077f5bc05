/**
 * When the poll worker sends its metrics text to the serving thread with a poll's news (so that scrapes are answered
 * from that copy without asking the worker). Rendering the text costs in proportion to every cluster's series: with N
 * clusters polled at their own times, a render after each poll would render the whole text N times a poll interval
 * (20 clusters: 20 times, about 7 % of the poll thread in the 20-cluster bench). So a poll's news carries the text at
 * most once per `gapMs`; a poll inside the gap leaves one send for the gap's end, of the text as it is then, and
 * later polls inside it add nothing. With one cluster polled every interval and a gap of half of it, every poll sends.
 */
export class MetricsPushGate {
  private last = -Infinity;
  private pending = false;

  constructor(private readonly gapMs: number) {}

  /**
   * A poll ended at `nowMs`: "now" (render and send with its news), "later" (send at `at`, the gap's end: arm a timer and
   * call sent() when it fires) or "pending" (a send is already due at the gap's end).
   */
  poll(nowMs: number): { send: "now" } | { send: "later"; at: number } | { send: "pending" } {
    if (this.pending) return { send: "pending" };
    if (nowMs - this.last >= this.gapMs) {
      this.last = nowMs;
      return { send: "now" };
    }
    this.pending = true;
    return { send: "later", at: this.last + this.gapMs };
  }

  /** the deferred send happened at `nowMs` */
  sent(nowMs: number): void {
    this.pending = false;
    this.last = nowMs;
  }
}

/** The gap for clusters polled every `intervalsSeconds`: half the shortest interval. */
export const metricsPushGapMs = (intervalsSeconds: readonly number[]) => (Math.min(...intervalsSeconds) * 1000) / 2;
