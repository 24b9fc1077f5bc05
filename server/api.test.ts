/**
 * A server-rendered page's first answer: what comes within the page's wait, else what is at hand then (an earlier
 * answer), else nothing (the page is sent with its skeleton).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PAGE_ANSWER_WAIT_MS, pageData } from "@/server/api";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const never = () => new Promise<string | undefined>(() => {});

describe("pageData", () => {
  it("gives the answer that comes within the wait, and does not look for an earlier one", async () => {
    const late = vi.fn(() => "earlier");
    const p = pageData(async () => "fresh", late);
    await vi.advanceTimersByTimeAsync(PAGE_ANSWER_WAIT_MS);
    expect(await p).toBe("fresh");
    expect(late).not.toHaveBeenCalled();
  });

  it("when the answer is late, gives what is at hand at the deadline, not before", async () => {
    const hand: { earlier?: string } = {};
    let settled: string | undefined = "pending";
    const p = pageData(never, () => hand.earlier).then((v) => (settled = v));
    await vi.advanceTimersByTimeAsync(PAGE_ANSWER_WAIT_MS - 1);
    expect(settled).toBe("pending");
    hand.earlier = "earlier";
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(settled).toBe("earlier");
  });

  it("late with nothing at hand, or failed: no answer", async () => {
    const late = pageData(never, () => undefined);
    const none = pageData(never);
    const failed = pageData(() => Promise.reject(new Error("the holder refused")), () => "earlier");
    await vi.advanceTimersByTimeAsync(PAGE_ANSWER_WAIT_MS);
    expect(await late).toBeUndefined();
    expect(await none).toBeUndefined();
    expect(await failed).toBeUndefined();
  });
});
