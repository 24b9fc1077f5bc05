import { preload } from "react-dom";
import { AppShell } from "@/components/shell/AppShell";
import { Overview } from "@/components/overview/Overview";
import { apiPath } from "@/lib/api/paths";

/**
 * The overview's figures come from the summary answer: the browser starts fetching it from the HTML's head, while the
 * scripts load and hydrate, and the view's fetch of the same URL (built as the client builds it, with the base path)
 * takes the preloaded response.
 */
export default async function OverviewPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { cluster } = await searchParams;
  preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}${apiPath("/api/v1/summary", { cluster: typeof cluster === "string" ? cluster : undefined })}`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <AppShell>
      <Overview />
    </AppShell>
  );
}
