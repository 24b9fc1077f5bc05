import { describe, expect, it } from "vitest";
import { BoundedWaiters, WaitRefused } from "./waiters";

describe("BoundedWaiters", () => {
  it("hands the released value to every caller waiting and empties the queue", async () => {
    const w = new BoundedWaiters<number>(10);
    const a = w.wait(10_000);
    const b = w.wait(10_000);
    expect(w.size).toBe(2);
    w.release(7);
    expect(await Promise.all([a, b])).toEqual([7, 7]);
    expect(w.size).toBe(0);
  });

  it("a wait that times out leaves the queue", async () => {
    const w = new BoundedWaiters<number>(10);
    const waits = Array.from({ length: 5 }, () => w.wait(20).catch((e: unknown) => e));
    expect(w.size).toBe(5);
    for (const e of await Promise.all(waits)) expect(e).toMatchObject({ reason: "timeout" });
    expect(w.size).toBe(0);
  });

  it("refuses at once past the cap, and takes callers again once there is room", async () => {
    const w = new BoundedWaiters<string>(3);
    const held = [w.wait(10_000), w.wait(10_000), w.wait(10_000)];
    const refused = await w.wait(10_000).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WaitRefused);
    expect(refused).toMatchObject({ reason: "full" });
    expect(w.size).toBe(3);
    w.release("snapshot");
    expect(await Promise.all(held)).toEqual(["snapshot", "snapshot", "snapshot"]);
    const again = w.wait(10_000);
    w.release("next");
    expect(await again).toBe("next");
  });
});
