import { dehydrate, HydrationBoundary, QueryClient, type QueryKey } from "@tanstack/react-query";
import type { ReactNode } from "react";

/**
 * A server-rendered page's first answer, given to the browser's query cache under the view's own key: the HTML is
 * rendered with the view's figures, and the browser paints them before its scripts load. Without `data` (the server
 * had none in time), the children render as they always do. `updatedAt`: when the answer was made, when it says (the
 * query's staleTime then counts from there: an answer already older is asked again once the page runs).
 */
export function Seeded({ queryKey, data, updatedAt, children }: { queryKey: QueryKey; data: unknown; updatedAt?: number; children: ReactNode }) {
  if (data === undefined) return <>{children}</>;
  const client = new QueryClient();
  client.setQueryData(queryKey, data, updatedAt === undefined ? undefined : { updatedAt });
  return <HydrationBoundary state={dehydrate(client)}>{children}</HydrationBoundary>;
}
