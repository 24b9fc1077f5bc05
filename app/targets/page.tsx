import { preload } from "react-dom";
import { AppShell } from "@/components/shell/AppShell";
import { TargetsView } from "@/components/targets/TargetsView";
import { apiPath } from "@/lib/api/paths";
import { TARGET_PAGE_SIZE } from "@/lib/views/target-window";
import { KEPT_PARAMS } from "@/lib/views/cluster-link";

/** Query parameters that do not filter or sort the listing. */
const NOT_FILTERS = new Set<string>(KEPT_PARAMS);

/**
 * The unfiltered listing's first page is fetched from the HTML's head, as the node map's data is (app/nodes/page.tsx):
 * while the scripts load, and the view's fetch of the same URL (built as the client builds it) takes the preloaded
 * response. A filtered listing is left to the client, which alone parses the filters.
 */
export default async function TargetsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  if (Object.keys(params).every((k) => NOT_FILTERS.has(k))) {
    const cluster = typeof params.cluster === "string" && params.cluster ? params.cluster : undefined;
    preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}${apiPath("/api/v1/targets", { offset: 0, limit: TARGET_PAGE_SIZE, cluster })}`, { as: "fetch", crossOrigin: "anonymous" });
  }
  return (
    <AppShell>
      <TargetsView />
    </AppShell>
  );
}
