import "server-only";
/**
 * Runs a generator of steps (lib/steps.ts) in slices of at most about `sliceMs` of CPU, giving the event loop a turn
 * (setImmediate: pending I/O, API requests, timers) between slices. The poller analyses 150,000 targets this way without
 * holding API answers for the whole analysis.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Steps } from "@/lib/steps";

export const DEFAULT_SLICE_MS = 10;

export async function runSliced<T>(steps: Steps<T>, sliceMs = DEFAULT_SLICE_MS): Promise<{ value: T; slices: number; longestSliceMs: number }> {
  let slices = 0;
  let longestSliceMs = 0;
  for (;;) {
    const start = performance.now();
    slices++;
    for (;;) {
      const r = steps.next();
      if (r.done) {
        longestSliceMs = Math.max(longestSliceMs, performance.now() - start);
        return { value: r.value, slices, longestSliceMs };
      }
      if (performance.now() - start >= sliceMs) break;
    }
    longestSliceMs = Math.max(longestSliceMs, performance.now() - start);
    await nextTurn();
  }
}

/**
 * Releases one waiter per event-loop turn (setImmediate), in order. The TA client parses each job's answer after a turn
 * from here: answers that arrive together (four at a time per TA, two TAs) are then parsed one per turn, with API
 * requests answered in between, instead of back to back in one I/O phase.
 */
export class TurnQueue {
  private readonly waiters: (() => void)[] = [];
  private pumping = false;

  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      if (!this.pumping) {
        this.pumping = true;
        setImmediate(this.pump);
      }
    });
  }

  private readonly pump = () => {
    // the released waiter's continuation runs in this turn's microtasks; the next one waits for the next turn
    this.waiters.shift()?.();
    if (this.waiters.length) setImmediate(this.pump);
    else this.pumping = false;
  };
}

/** The process-wide queue for CPU-heavy steps of polls (all clusters and TAs share the one event loop). */
export const pollTurns = new TurnQueue();
