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
