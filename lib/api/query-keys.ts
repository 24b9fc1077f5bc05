/**
 * The browser's query keys of every API read (hierarchical: ["al", cluster, view, params]), in a plain module: the
 * client's queries use them, and a server-rendered page seeds its first answer under the same key.
 */
export const queryKeys = {
  all: ["al"] as const,
  clusters: () => [...queryKeys.all, "clusters"] as const,
  view: (cluster: string | null | undefined, view: string, params?: Record<string, unknown>) => [...queryKeys.all, cluster ?? "_default", view, params ?? {}] as const,
};

/** the fleet view's (not per cluster) */
export const FLEET_QUERY_KEY = [...queryKeys.all, "fleet"] as const;
