/**
 * The Targets view's windowing: which server pages a scrolled range needs, which row sits at an index of the page cache,
 * and the URL filters turned into API parameters. Pure, so the virtualized table only renders.
 */
import type { Role, TargetClass } from "@/lib/model";
import type { TargetRow } from "@/lib/analysis/types";

/** Rows per page of the Targets view's listing (the first page is preloaded by app/targets/page.tsx). */
export const TARGET_PAGE_SIZE = 100;

export const TARGET_SORTS = ["address", "job", "node", "collector", "class"] as const;
export type TargetSort = (typeof TARGET_SORTS)[number];

export interface TargetFilters {
  q: string | null;
  class: TargetClass[] | null;
  node: string | null;
  collector: string | null;
  job: string | null;
  role: Role | null;
  sort: TargetSort;
}

export type TargetParams = Record<string, string | number | undefined>;

/** API parameters for the filters (without pagination); empty values are left out so query keys stay stable. */
export function filterParams(f: TargetFilters): TargetParams {
  const p: TargetParams = {};
  const q = f.q?.trim();
  if (q) p.q = q;
  if (f.class?.length) p.class = [...f.class].sort().join(",");
  if (f.node) p.node = f.node;
  if (f.collector) p.collector = f.collector;
  if (f.job) p.job = f.job;
  if (f.role) p.role = f.role;
  if (f.sort !== "job") p.sort = f.sort;
  return p;
}

/** True when anything narrows the list (sorting does not). */
export function isFiltered(f: TargetFilters): boolean {
  return Boolean(f.q?.trim() || f.class?.length || f.node || f.collector || f.job || f.role);
}

/** Page numbers covering rows first..last (inclusive), plus `around` pages on each side, within count rows. */
export function pagesFor(first: number, last: number, count: number, pageSize: number, around = 0): number[] {
  if (count <= 0 || last < first) return [0];
  const lastPage = Math.floor((count - 1) / pageSize);
  const from = Math.max(0, Math.floor(first / pageSize) - around);
  const to = Math.min(lastPage, Math.floor(Math.min(last, count - 1) / pageSize) + around);
  const pages: number[] = [];
  for (let p = from; p <= to; p++) pages.push(p);
  return pages.length ? pages : [0];
}

/** The row at a global index, from whatever pages are loaded; undefined while its page is still on its way. */
export function rowAt(pages: ReadonlyMap<number, readonly TargetRow[]>, index: number, pageSize: number): TargetRow | undefined {
  return pages.get(Math.floor(index / pageSize))?.[index % pageSize];
}

/** A key that names the target, not its position: the same target keeps its DOM row while pages refresh. */
export function targetKey(t: TargetRow): string {
  return `${t.role}\u0000${t.job}\u0000${t.address}\u0000${t.collector}`;
}

/** The class filter after toggling one class; null (no filter) when nothing stays selected. */
export function toggleClass(current: readonly TargetClass[] | null, c: TargetClass): TargetClass[] | null {
  const set = new Set(current ?? []);
  if (set.has(c)) set.delete(c);
  else set.add(c);
  return set.size ? [...set] : null;
}

/**
 * Keys for a run of rows: targetKey, made unique by the row's index where the same target shows twice (a target can
 * sit at the edge of two pages fetched a poll apart, or appear twice in one job with different labels).
 */
export function keyedRows<T extends TargetRow>(rows: readonly T[], firstIndex = 0): { key: string; row: T }[] {
  const seen = new Set<string>();
  return rows.map((row, i) => {
    const k = targetKey(row);
    const key = seen.has(k) ? `${k}#${firstIndex + i}` : k;
    seen.add(k);
    return { key, row };
  });
}

export const samePages = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((p, i) => p === b[i]);

/**
 * Pages to fetch (and poll) while the list may be scrolling: those of the last settled window, plus the pages now on
 * screen that touch it (a slow scroll into the next page loads it at once). A fling through the scrollbar fetches nothing
 * until it stops, so the server does not sort 150,000 rows for pages nobody looks at. Page 0 is left out: the view's
 * head query holds it.
 */
export function pagesToFetch(settled: readonly number[], current: readonly number[]): number[] {
  const near = current.filter((p) => settled.some((s) => Math.abs(s - p) <= 1));
  return [...new Set([...settled, ...near])].filter((p) => p > 0).sort((a, b) => a - b);
}
