import { preload } from "react-dom";
import { AppShell } from "@/components/shell/AppShell";
import { Overview } from "@/components/overview/Overview";
import { Seeded } from "@/components/data/Seeded";
import { apiPath } from "@/lib/api/paths";
import { queryKeys } from "@/lib/api/query-keys";
import { pageAnswer } from "@/server/api";
import type { SummaryView } from "@/lib/views/summary";

/**
 * The overview's figures come from the summary answer. The HTML is rendered with it when the server has it at once
 * (server/api.ts, pageAnswer), so the figures are painted before the scripts run, and the view asks again when it is a
 * poll interval old. Without it, the browser starts fetching it from the HTML's head (the view's fetch of the same URL,
 * built as the client builds it, takes the preloaded response).
 */
export default async function OverviewPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { cluster: param } = await searchParams;
  const cluster = typeof param === "string" ? param : undefined;
  const data = (await pageAnswer("summary", cluster)) as SummaryView | undefined;
  if (data === undefined) preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}${apiPath("/api/v1/summary", { cluster })}`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <AppShell>
      <Seeded queryKey={queryKeys.view(cluster ?? null, "summary", {})} data={data} updatedAt={data?.at}>
        <Overview />
      </Seeded>
    </AppShell>
  );
}
