"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { NuqsAdapter } from "nuqs/adapters/next/app";
import { useState, type ReactNode } from "react";
import { isUnknownCluster } from "@/components/data/queries";

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        // one retry, except for a cluster the configuration does not have
        defaultOptions: { queries: { retry: (failures, error) => failures < 1 && !isUnknownCluster(error), refetchOnWindowFocus: false } },
      }),
  );
  return (
    <NuqsAdapter>
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    </NuqsAdapter>
  );
}
