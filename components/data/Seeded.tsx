import { dehydrate, HydrationBoundary, QueryClient, type QueryKey } from "@tanstack/react-query";
import type { ReactNode } from "react";

/**
 * A server-rendered page's first answer, given to the browser's query cache under the view's own key: the HTML is
 * rendered with the view's figures, and the browser paints them before its scripts load. Without `data` (the server
 * had none in time), the children render as they always do.
 */
export function Seeded({ queryKey, data, children }: { queryKey: QueryKey; data: unknown; children: ReactNode }) {
  if (data === undefined) return <>{children}</>;
  const client = new QueryClient();
  client.setQueryData(queryKey, data);
  return <HydrationBoundary state={dehydrate(client)}>{children}</HydrationBoundary>;
}
