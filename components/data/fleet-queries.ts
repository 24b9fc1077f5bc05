"use client";
/**
 * The fleet view's query (GET /api/v1/fleet): not per cluster, polled; the last answer stays while a refetch fails. An
 * answer rendered into the page is fresh for one poll interval: hydration does not ask for it again at once.
 */
import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import type { FleetView } from "@/lib/api/schemas";
import { getJson, POLL_MS } from "@/components/data/queries";
import { FLEET_QUERY_KEY } from "@/lib/api/query-keys";

export const fleetQuery = () =>
  queryOptions({
    queryKey: FLEET_QUERY_KEY,
    queryFn: ({ signal }) => getJson<FleetView>("/api/v1/fleet", signal),
    refetchInterval: POLL_MS,
    staleTime: POLL_MS,
    placeholderData: keepPreviousData,
  });

export const useFleet = () => useQuery(fleetQuery());
