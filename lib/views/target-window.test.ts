import { describe, expect, it } from "vitest";
import type { TargetRow } from "@/lib/analysis/types";
import { targetRow } from "@/test/fixtures/rows";
import { filterParams, isFiltered, keyedRows, pagesFor, pagesToFetch, rowAt, samePages, targetKey, toggleClass, type TargetFilters } from "./target-window";

const none: TargetFilters = { q: null, class: null, node: null, collector: null, job: null, role: null, sort: "job" };

const row = (address: string): TargetRow => targetRow({ address });

describe("pagesFor", () => {
  it("covers the visible range with whole pages, clamped to the row count", () => {
    expect(pagesFor(0, 20, 150_000, 100)).toEqual([0]);
    expect(pagesFor(95, 130, 150_000, 100)).toEqual([0, 1]);
    expect(pagesFor(75_010, 75_030, 150_000, 100, 1)).toEqual([749, 750, 751]);
    expect(pagesFor(149_990, 150_010, 150_000, 100, 1)).toEqual([1498, 1499]);
  });

  it("always asks for the first page, even with nothing to show", () => {
    expect(pagesFor(0, -1, 0, 100)).toEqual([0]);
    expect(pagesFor(0, 0, 0, 100)).toEqual([0]);
  });
});

describe("rowAt", () => {
  it("reads the row from its page, or nothing while the page is missing", () => {
    const pages = new Map([[2, [row("a"), row("b")]]]);
    expect(rowAt(pages, 201, 100)?.address).toBe("b");
    expect(rowAt(pages, 5, 100)).toBeUndefined();
    expect(rowAt(pages, 250, 100)).toBeUndefined();
  });
});

describe("filterParams", () => {
  it("drops empty filters and the default sort, and sorts the class list for a stable key", () => {
    expect(filterParams(none)).toEqual({});
    expect(filterParams({ ...none, q: "  ", class: [] })).toEqual({});
    expect(filterParams({ ...none, q: " cart ", class: ["local", "ghost"], node: "n1", role: "per-node", sort: "class" })).toEqual({
      q: "cart",
      class: "ghost,local",
      node: "n1",
      role: "per-node",
      sort: "class",
    });
  });

  it("keeps hostile strings as they are: encoding is the URL builder's job", () => {
    const job = `"><img src=x onerror=alert(1)>/../%2Fjob'`;
    expect(filterParams({ ...none, job }).job).toBe(job);
  });
});

describe("isFiltered / toggleClass / targetKey", () => {
  it("does not count sorting as a filter", () => {
    expect(isFiltered({ ...none, sort: "class" })).toBe(false);
    expect(isFiltered({ ...none, collector: "agent-1" })).toBe(true);
  });

  it("toggles one class and clears the filter when none is left", () => {
    expect(toggleClass(null, "ghost")).toEqual(["ghost"]);
    expect(toggleClass(["ghost", "local"], "ghost")).toEqual(["local"]);
    expect(toggleClass(["ghost"], "ghost")).toBeNull();
  });

  it("keys a row by what it is, not where it is", () => {
    expect(targetKey(row("a"))).toBe(targetKey(row("a")));
    expect(targetKey(row("a"))).not.toBe(targetKey(row("b")));
  });
});

describe("keyedRows", () => {
  it("keys rows by target and keeps keys unique when a target shows twice", () => {
    const keys = keyedRows([row("a"), row("b"), row("a")], 100).map((r) => r.key);
    expect(new Set(keys).size).toBe(3);
    expect(keys[0]).toBe(targetKey(row("a")));
    expect(keys[2]).toBe(`${targetKey(row("a"))}#102`);
  });
});

describe("pagesToFetch", () => {
  it("fetches the settled window and the pages next to it, never page 0", () => {
    expect(pagesToFetch([0], [0])).toEqual([]);
    expect(pagesToFetch([4, 5], [5, 6])).toEqual([4, 5, 6]);
  });

  it("fetches nothing new for a window far from the settled one (a fling still in flight)", () => {
    expect(pagesToFetch([4], [700, 701])).toEqual([4]);
  });

  it("compares page lists", () => {
    expect(samePages([1, 2], [1, 2])).toBe(true);
    expect(samePages([1, 2], [1, 3])).toBe(false);
    expect(samePages([1], [1, 2])).toBe(false);
  });
});
