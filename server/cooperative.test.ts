import { describe, expect, it } from "vitest";
import { runSliced, TurnQueue } from "@/server/cooperative";
import { runToEnd, type Steps } from "@/lib/steps";

/** A computation of `n` steps that each burn about `ms` of CPU; returns how many steps ran. */
function* busy(n: number, ms: number): Steps<number> {
  let i = 0;
  for (; i < n; i++) {
    const until = performance.now() + ms;
    while (performance.now() < until);
    yield;
  }
  return i;
}

describe("runSliced", () => {
  it("returns what running the steps at once returns", async () => {
    expect((await runSliced(busy(5, 0))).value).toBe(runToEnd(busy(5, 0)));
  });

  it("lets the event loop run between slices of about sliceMs", async () => {
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    const r = await runSliced(busy(100, 2), 10);
    clearInterval(timer);
    // 200 ms of work in slices of ~10 ms: several slices, and timers fired in between
    expect(r.value).toBe(100);
    expect(r.slices).toBeGreaterThanOrEqual(10);
    expect(turns).toBeGreaterThanOrEqual(5);
    // a slice ends at the first step boundary past sliceMs: at most one step (2 ms) over, with slack for a machine whose
    // other processes preempt this one (seen: 46 ms under a load of 7 on 2 cores); unsliced, it would be 200 ms
    expect(r.longestSliceMs).toBeLessThan(10 + 2 + 60);
  });

  it("holds the loop for the whole computation when run at once (the problem it solves)", () => {
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    runToEnd(busy(20, 2));
    clearInterval(timer);
    expect(turns).toBe(0);
  });
});

describe("TurnQueue", () => {
  it("releases one waiter per event-loop turn, in order, with other callbacks in between", async () => {
    const q = new TurnQueue();
    const order: string[] = [];
    const waits = ["a", "b", "c"].map((name) => q.turn().then(() => order.push(name)));
    setImmediate(() => order.push("x")); // queued after the queue's first turn
    await Promise.all(waits);
    expect(order).toEqual(["a", "x", "b", "c"]);
    // and it starts again when asked after it emptied
    await q.turn();
  });
});
