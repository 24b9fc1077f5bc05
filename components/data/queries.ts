"use client";
/**
 * Query keys and queryOptions factories for every API read, in one place (hierarchical keys: ["al", cluster, view, params]).
 * Views poll with refetchInterval; nothing fetches in useEffect. The cluster comes from the URL (?cluster=), so a link
 * from a portal opens the same view.
 */
import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { useQueryState } from "nuqs";
import type { SummaryView } from "@/lib/views/summary";
import type { NodeDetailView, NodesView } from "@/lib/views/nodes";
import type { CollectorsView } from "@/lib/views/collectors";
import type { OwnershipView } from "@/lib/views/monitors";
import type { LostView } from "@/lib/views/lost";
import type { AlertsView } from "@/lib/api/schemas";
import type { TargetPage } from "@/lib/views/targets";
import type { Freshness } from "@/lib/views/summary";
import { apiPath } from "@/lib/api/paths";
import { queryKeys } from "@/lib/api/query-keys";

export interface ClustersView {
  demo: boolean;
  /** a fleet backend is configured: the Fleet view exists */
  fleet: boolean;
  clusters: { name: string; pollIntervalSeconds: number; roles: { role: string; flavor: string }[] }[];
}

export type TargetsView = TargetPage & Freshness & { cluster: string };

export class ApiFetchError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** the API's error code (`unknown_cluster`, `not_ready`...), when the answer had one */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The app may be served behind a path prefix (next.config basePath); API paths are built from it. */
export const BASE = process.env.NEXT_PUBLIC_BASE_PATH ?? "";
export const POLL_MS = 5_000;

/** The URL names a cluster the configuration does not have: asking again cannot help. */
export const isUnknownCluster = (e: unknown): e is ApiFetchError => e instanceof ApiFetchError && e.status === 404 && e.code === "unknown_cluster";

/** A view polls every POLL_MS, and stops once the answer is that its cluster does not exist. */
export const pollInterval = (query: { state: { error: Error | null } }): number | false => (isUnknownCluster(query.state.error) ? false : POLL_MS);

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(`${BASE}${path}`, { signal, headers: { Accept: "application/json" } });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new ApiFetchError(res.status, body?.error?.message ?? `HTTP ${res.status}`, typeof body?.error?.code === "string" ? body.error.code : undefined);
  return body as T;
}

export { apiPath };

export { queryKeys };

const polled = <T,>(cluster: string | null | undefined, view: string, path: string, params: Record<string, string | number | undefined | null> = {}) =>
  queryOptions({
    queryKey: queryKeys.view(cluster, view, params),
    queryFn: ({ signal }) => getJson<T>(apiPath(path, { ...params, cluster }), signal),
    refetchInterval: pollInterval,
    placeholderData: keepPreviousData,
  });

export const clustersQuery = () => queryOptions({ queryKey: queryKeys.clusters(), queryFn: ({ signal }) => getJson<ClustersView>("/api/v1/clusters", signal), staleTime: 60_000 });
/**
 * The overview's answer is fresh for its cluster's poll interval from when it was made (nothing newer exists before): an
 * answer rendered into the page (app/page.tsx, updatedAt its `at`) is not asked again at hydration, only at the next poll.
 */
export const summaryQuery = (cluster?: string | null) =>
  queryOptions({
    ...polled<SummaryView>(cluster, "summary", "/api/v1/summary"),
    staleTime: (query) => query.state.data?.pollIntervalMs ?? POLL_MS,
  });
export const nodesQuery = (cluster?: string | null) => polled<NodesView>(cluster, "nodes", "/api/v1/nodes");
export const nodeDetailQuery = (cluster: string | null | undefined, node: string) =>
  polled<NodeDetailView>(cluster, "node", `/api/v1/nodes/${encodeURIComponent(node)}`, {});
export const collectorsQuery = (cluster?: string | null) => polled<CollectorsView>(cluster, "collectors", "/api/v1/collectors");
export const ownershipQuery = (cluster?: string | null) => polled<OwnershipView>(cluster, "ownership", "/api/v1/monitors");
export const lostQuery = (cluster?: string | null) => polled<LostView>(cluster, "lost", "/api/v1/lost");
export const alertsQuery = (cluster?: string | null) => polled<AlertsView>(cluster, "alerts", "/api/v1/alerts");
export const targetsQuery = (cluster: string | null | undefined, params: Record<string, string | number | undefined | null>) =>
  polled<TargetsView>(cluster, "targets", "/api/v1/targets", params);

/** The cluster chosen in the URL (?cluster=), or null for the configuration's first cluster. */
export function useCluster(): string | null {
  const [cluster] = useQueryState("cluster");
  return cluster;
}

export const useClusters = () => useQuery(clustersQuery());
export const useSummary = () => useQuery(summaryQuery(useCluster()));
export const useNodes = () => useQuery(nodesQuery(useCluster()));
export const useNodeDetail = (node: string | null) => {
  const cluster = useCluster();
  return useQuery({ ...nodeDetailQuery(cluster, node ?? ""), enabled: Boolean(node) });
};
export const useCollectors = () => useQuery(collectorsQuery(useCluster()));
export const useOwnership = () => useQuery(ownershipQuery(useCluster()));
export const useLost = () => useQuery(lostQuery(useCluster()));
export const useAlerts = () => useQuery(alertsQuery(useCluster()));
export const useTargets = (params: Record<string, string | number | undefined | null>) => useQuery(targetsQuery(useCluster(), params));
