import { describe, expect, it } from "vitest";
import { CONTINUE_TOO_OLD, inKeyOrder, pageOf, type Page } from "./paging";
import type { KubeObject } from "../store";

const obj = (namespace: string | undefined, name: string): KubeObject => ({ metadata: { name, ...(namespace ? { namespace } : {}) } }) as KubeObject;
const keys = (xs: KubeObject[]) => xs.map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`);

describe("lists in etcd's key order, in pages", () => {
  const all = [obj("b", "x"), obj("a-b", "y"), obj("a", "z"), obj("a", "b")];

  it("orders by namespace/name in byte order, as etcd's keys", () => {
    expect(keys(inKeyOrder(all))).toEqual(["a-b/y", "a/b", "a/z", "b/x"]);
  });

  it("pages with limit and continue: every object once, remainingItemCount without a selector, the first page's resourceVersion", () => {
    const seen: string[] = [];
    const remaining: (number | undefined)[] = [];
    let cont: string | null = null;
    for (let i = 0; i < 10; i++) {
      const p = pageOf(all, { limit: "3", continue: cont, rv: 40 + i, oldest: 1, selected: false }) as Page;
      seen.push(...keys(p.items));
      remaining.push(p.remainingItemCount);
      expect(p.resourceVersion).toBe("40");
      cont = p.continue ?? null;
      if (!cont) break;
    }
    expect(seen).toEqual(["a-b/y", "a/b", "a/z", "b/x"]);
    expect(remaining).toEqual([1, undefined]);
    // a selector narrowed the list: no count of what is left
    expect((pageOf(all, { limit: "1", continue: null, rv: 9, oldest: 1, selected: true }) as Page).remainingItemCount).toBeUndefined();
    // no limit: everything at once
    expect(pageOf(all, { limit: null, continue: null, rv: 9, oldest: 1, selected: false })).toEqual({ items: inKeyOrder(all), resourceVersion: "9" });
  });

  it("refuses a token it cannot read (400) and one older than the event log (410)", () => {
    const first = pageOf(all, { limit: "1", continue: null, rv: 5, oldest: 1, selected: false }) as Page;
    expect(pageOf(all, { limit: "1", continue: "not a token", rv: 6, oldest: 1, selected: false })).toMatchObject({ code: 400 });
    expect(pageOf(all, { limit: "1", continue: first.continue!, rv: 9, oldest: 6, selected: false })).toEqual({ code: 410, message: CONTINUE_TOO_OLD });
  });
});
