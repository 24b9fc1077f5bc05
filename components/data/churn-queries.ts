"use client";
/**
 * Query factories and hooks of the Churn and Diagnostics views, and the node detail's readiness history, built on the
 * shared keys and fetcher of ./queries. Keys: ["al", cluster, "churn", params], ["al", cluster, "diagnostics", {}].
 */
import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import type { ReadinessEvent } from "@/lib/analysis/readiness";
import type { ChurnView } from "@/lib/views/churn";
import type { DiagnosticsView } from "@/lib/views/diagnostics";
import type { ChurnRangeRequest } from "@/lib/views/churn-ranges";
import { apiPath, pollInterval, getJson, queryKeys, useCluster } from "@/components/data/queries";

/** `last` (a window ending at the server's now) or `from`/`to`; `node`/`pod` narrow it (see lib/views/churn.ts). */
export interface ChurnParams {
  last?: number;
  from?: number;
  to?: number;
  buckets?: number;
  node?: string;
  pod?: string;
}

/** The API parameters of a range request from the page's URL state. */
export function churnParams(r: ChurnRangeRequest): ChurnParams {
  if (r.kind === "preset") return { last: r.last, buckets: r.buckets };
  return r.to === null ? { from: r.from, buckets: r.buckets } : { from: r.from, to: r.to, buckets: r.buckets };
}

export const churnQuery = (cluster: string | null | undefined, params: ChurnParams) =>
  queryOptions({
    queryKey: queryKeys.view(cluster, "churn", { ...params }),
    queryFn: ({ signal }) => getJson<ChurnView>(apiPath("/api/v1/churn", { ...params, cluster }), signal),
    refetchInterval: pollInterval,
    placeholderData: keepPreviousData,
  });

export const diagnosticsQuery = (cluster?: string | null) =>
  queryOptions({
    queryKey: queryKeys.view(cluster, "diagnostics"),
    queryFn: ({ signal }) => getJson<DiagnosticsView>(apiPath("/api/v1/diagnostics", { cluster }), signal),
    refetchInterval: pollInterval,
    placeholderData: keepPreviousData,
  });

export const useChurn = (params: ChurnParams) => useQuery(churnQuery(useCluster(), params));
export const useDiagnostics = () => useQuery(diagnosticsQuery(useCluster()));

export const NODE_READINESS_WINDOW_MS = 3_600_000;

export interface NodeReadiness {
  node: string;
  /** the readiness events of the node's collector pods in [from, to], newest first (at most the API's EVENTS_SHOWN) */
  events: ReadinessEvent[];
  /** the window, ms since the epoch (server clock) */
  from: number;
  to: number;
  /** when it is `memory` with an error, the history does not survive a restart */
  backend: ChurnView["backend"];
  at: number;
}

const toNodeReadiness = (v: ChurnView): NodeReadiness => ({
  node: v.filter?.node ?? "",
  events: v.events,
  from: v.from,
  to: v.to,
  backend: v.backend,
  at: v.at,
});

/**
 * One node's collector readiness history over the last hour (the node map's detail panel). Polls like every view; no
 * placeholder from another node while a newly opened one loads. Disabled while `node` is null.
 */
export function useNodeReadiness(node: string | null) {
  const cluster = useCluster();
  return useQuery({
    ...churnQuery(cluster, { node: node ?? "", last: NODE_READINESS_WINDOW_MS, buckets: 1 }),
    placeholderData: undefined,
    enabled: Boolean(node),
    select: toNodeReadiness,
  });
}
