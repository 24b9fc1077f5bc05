import { describe, expect, it } from "vitest";
import { AnswerCache } from "@/lib/answer-cache";

describe("AnswerCache", () => {
  it("shares one pending computation, keeps it for ttlMs, drops the least recently used beyond capacity", async () => {
    const c = new AnswerCache<number>(2, 1000);
    let runs = 0;
    const compute = () => Promise.resolve(++runs);
    const [a, b] = await Promise.all([c.get("x", 0, compute), c.get("x", 10, compute)]);
    expect([a, b, runs]).toEqual([1, 1, 1]);
    expect(await c.get("x", 999, compute)).toBe(1);
    expect(await c.get("x", 1000, compute)).toBe(2); // expired
    await c.get("y", 1001, compute);
    await c.get("x", 1002, compute); // x used last: y goes first
    await c.get("z", 1003, compute);
    expect(c.size).toBe(2);
    expect(await c.get("x", 1004, compute)).toBe(2);
    expect(await c.get("y", 1005, compute)).toBe(5);
    expect(c.computed).toBe(5);
  });

  it("does not keep a rejected computation", async () => {
    const c = new AnswerCache<number>(4, 1000);
    await expect(c.get("x", 0, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(c.get("x", 1, () => Promise.resolve(7))).resolves.toBe(7);
  });

  it("peeks at a kept answer past its time without computing, and has nothing for an unknown key", async () => {
    const c = new AnswerCache<number>(4, 1000);
    await c.get("x", 0, () => Promise.resolve(7));
    expect(await c.peek("x")).toBe(7);
    expect(c.peek("y")).toBeUndefined();
    expect(c.computed).toBe(1);
    // past its time, get computes again; peek still had the old one until then
    expect(await c.get("x", 5000, () => Promise.resolve(8))).toBe(8);
    expect(await c.peek("x")).toBe(8);
  });
});
