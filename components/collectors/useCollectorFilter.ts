"use client";
import { parseAsString, parseAsStringLiteral, useQueryStates } from "nuqs";
import { COLLECTOR_SORT_KEYS, type CollectorSortKey, type SortDir } from "@/lib/views/collectors-view";

/** The collectors table's text filter and sort in the URL: `?q=not_eligible&sort=restarts&dir=desc`. */
const parsers = {
  q: parseAsString.withDefault(""),
  sort: parseAsStringLiteral(COLLECTOR_SORT_KEYS).withDefault("targets"),
  dir: parseAsStringLiteral(["asc", "desc"] as const).withDefault("desc"),
};

export function useCollectorFilter() {
  const [v, set] = useQueryStates(parsers, { history: "replace" });
  return {
    q: v.q,
    sort: v.sort,
    dir: v.dir as SortDir,
    setQ: (q: string) => void set({ q: q || null }),
    /** clicking the sorted column flips the direction; another column starts descending for numbers, ascending for text */
    sortBy: (key: CollectorSortKey) => {
      const flipped: SortDir = v.dir === "desc" ? "asc" : "desc";
      const initial: SortDir = key === "targets" || key === "restarts" ? "desc" : "asc";
      const dir = key === v.sort ? flipped : initial;
      void set({ sort: key === "targets" && dir === "desc" ? null : key, dir: dir === "desc" ? null : dir });
    },
  };
}

export type CollectorFilterApi = ReturnType<typeof useCollectorFilter>;
