/**
 * Long pure computations written as generators that `yield` at safe points ("steps"), so that one definition serves two
 * callers: tests and small inputs run it to the end at once (`runToEnd`); the server runs it in time slices and lets
 * the event loop answer requests in between (server/cooperative.ts). A step holds no I/O and no clock.
 */
export type Steps<T> = Generator<void, T, void>;

/** Rows processed between two yields in row-by-row passes: well under a millisecond of work. */
export const STEP_ROWS = 4096;

export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
