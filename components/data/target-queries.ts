"use client";
/**
 * Hooks of the Targets view's paged listing (head, class facets, further pages), built on `targetsQuery` and the shared
 * keys of ./queries (kept in their own file so the listing can grow without editing the shared one).
 */
import { useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import type { TargetRow } from "@/lib/analysis/types";
import { targetsQuery, useCluster } from "@/components/data/queries";

type Params = Record<string, string | number | undefined>;

/**
 * The first page of a target listing: its rows plus the counts (total, matched, byClass) and freshness of the whole
 * match. Keeps the previous filter's answer on screen while the new one loads, so nothing jumps.
 */
export const useTargetHead = (params: Params, pageSize: number) => useQuery(targetsQuery(useCluster(), { ...params, offset: 0, limit: pageSize }));

/** Class counts under every filter but the class filter (what each class chip would show); only needed while one is set. */
export const useTargetFacets = (params: Params, enabled: boolean) => {
  const cluster = useCluster();
  return useQuery({ ...targetsQuery(cluster, { ...params, offset: 0, limit: 1 }), enabled, select: (d) => d.byClass });
};

export interface TargetPages {
  /** rows of every loaded page, by page number */
  pages: Map<number, TargetRow[]>;
  /** the first failure among the requested pages */
  error: Error | null;
}

/**
 * Further pages of the same listing. `fetch` pages are fetched and polled; `show` pages are only read from the cache
 * (pages seen before render at once while the list scrolls; the others render as loading rows until fetched). No
 * placeholder: a page of other rows would show at the wrong place.
 */
export function useTargetPages(params: Params, fetch: readonly number[], show: readonly number[], pageSize: number): TargetPages {
  const cluster = useCluster();
  const client = useQueryClient();
  const options = (p: number) => targetsQuery(cluster, { ...params, offset: p * pageSize, limit: pageSize });
  const fetched = useQueries({
    queries: fetch.map((p) => ({ ...options(p), placeholderData: undefined })),
    combine: (results) => {
      const pages = new Map<number, TargetRow[]>();
      let error: Error | null = null;
      results.forEach((r, i) => {
        if (r.data) pages.set(fetch[i], r.data.rows);
        else if (r.error && !error) error = r.error;
      });
      return { pages, error };
    },
  });
  const pages = new Map(fetched.pages);
  for (const p of show) {
    if (pages.has(p)) continue;
    const cached = client.getQueryData(options(p).queryKey);
    if (cached) pages.set(p, cached.rows);
  }
  return { pages, error: fetched.error };
}
