/**
 * A server-rendered page's first answer: what comes within the page's wait, else what is at hand then (an earlier
 * answer), else nothing (the page is sent with its skeleton).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PAGE_ANSWER_WAIT_MS, answerWithin, pageData } from "@/server/api";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const never = () => new Promise<string | undefined>(() => {});

describe("answerWithin", () => {
  it("gives the answer that comes within the wait, and does not look for an earlier one", async () => {
    const late = vi.fn(() => "earlier");
    const p = answerWithin(async () => "fresh", late);
    await vi.advanceTimersByTimeAsync(PAGE_ANSWER_WAIT_MS);
    expect(await p).toBe("fresh");
    expect(late).not.toHaveBeenCalled();
  });

  it("when the answer is late, gives what is at hand at the deadline, not before", async () => {
    const hand: { earlier?: string } = {};
    let settled: string | undefined = "pending";
    const p = answerWithin(never, () => hand.earlier).then((v) => (settled = v));
    await vi.advanceTimersByTimeAsync(PAGE_ANSWER_WAIT_MS - 1);
    expect(settled).toBe("pending");
    hand.earlier = "earlier";
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(settled).toBe("earlier");
  });

  it("late with nothing at hand, or failed: no answer", async () => {
    const late = answerWithin(never, () => undefined);
    const none = answerWithin(never);
    const failed = answerWithin(() => Promise.reject(new Error("the holder refused")), () => "earlier");
    await vi.advanceTimersByTimeAsync(PAGE_ANSWER_WAIT_MS);
    expect(await late).toBeUndefined();
    expect(await none).toBeUndefined();
    expect(await failed).toBeUndefined();
  });
});

describe("pageData", () => {
  // `next build` prerenders a page that reads nothing of its request; there `connection()` stalls the render. Outside any
  // render Next refuses it: either way the work (which starts the runtime and the embedded demo) is not begun.
  it("begins no work outside a request", async () => {
    const work = vi.fn(async () => "fresh");
    await expect(pageData(work)).rejects.toThrow(/outside a request scope/);
    expect(work).not.toHaveBeenCalled();
  });
});
