import { preload } from "react-dom";
import { AppShell } from "@/components/shell/AppShell";
import { NodesView } from "@/components/nodes/NodesView";
import { apiPath } from "@/lib/api/paths";

/**
 * The node map's data is the largest answer of the API (1.8 MB at 5,000 nodes): the browser starts fetching it from the
 * HTML's head, while the scripts load and hydrate, and the view's fetch of the same URL takes the preloaded response.
 * The URL is built as the client builds it (lib/api/paths.ts, with the base path).
 */
export default async function NodesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { cluster } = await searchParams;
  preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}${apiPath("/api/v1/nodes", { cluster: typeof cluster === "string" ? cluster : undefined })}`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <AppShell>
      <NodesView />
    </AppShell>
  );
}
