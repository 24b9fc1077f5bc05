"use client";
/**
 * Query keys and queryOptions factories for every API read, in one place (hierarchical keys: ["al", cluster, view, params]).
 * Views poll with refetchInterval; nothing fetches in useEffect.
 */
import { queryOptions, useQuery } from "@tanstack/react-query";
import type { SummaryView } from "@/lib/views/summary";

export interface ClustersView {
  demo: boolean;
  clusters: { name: string; pollIntervalSeconds: number; roles: { role: string; flavor: string }[] }[];
}

export class ApiFetchError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, { signal, headers: { Accept: "application/json" } });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new ApiFetchError(res.status, body?.error?.message ?? `HTTP ${res.status}`);
  return body as T;
}

const POLL_MS = 5_000;
/** The app may be served behind a path prefix (next.config basePath); API paths are built from it. */
const BASE = process.env.NEXT_PUBLIC_BASE_PATH ?? "";
const withCluster = (path: string, cluster?: string) => (cluster ? `${path}${path.includes("?") ? "&" : "?"}cluster=${encodeURIComponent(cluster)}` : path);

export const queryKeys = {
  all: ["al"] as const,
  clusters: () => [...queryKeys.all, "clusters"] as const,
  view: (cluster: string | undefined, view: string, params?: Record<string, unknown>) =>
    [...queryKeys.all, cluster ?? "_default", view, params ?? {}] as const,
};

export const clustersQuery = () =>
  queryOptions({ queryKey: queryKeys.clusters(), queryFn: ({ signal }) => getJson<ClustersView>(`${BASE}/api/v1/clusters`, signal), staleTime: 60_000 });

export const summaryQuery = (cluster?: string) =>
  queryOptions({
    queryKey: queryKeys.view(cluster, "summary"),
    queryFn: ({ signal }) => getJson<SummaryView>(withCluster(`${BASE}/api/v1/summary`, cluster), signal),
    refetchInterval: POLL_MS,
  });

export const useClusters = () => useQuery(clustersQuery());
export const useSummary = (cluster?: string) => useQuery(summaryQuery(cluster));
