import { preload } from "react-dom";
import { AppShell } from "@/components/shell/AppShell";
import { NodesView } from "@/components/nodes/NodesView";

/**
 * The node map's data is the largest answer of the API (1.8 MB at 5,000 nodes): the browser starts fetching it from the
 * HTML's head, while the scripts load and hydrate, and the view's fetch of the same URL takes the preloaded response.
 * The URL is built as the client builds it (components/data/queries.ts: BASE + path + ?cluster=).
 */
export default async function NodesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { cluster } = await searchParams;
  const q = typeof cluster === "string" && cluster ? `?${new URLSearchParams({ cluster })}` : "";
  preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}/api/v1/nodes${q}`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <AppShell>
      <NodesView />
    </AppShell>
  );
}
