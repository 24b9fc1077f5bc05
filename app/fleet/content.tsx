import type { ReactNode } from "react";
import { preload } from "react-dom";
import { FleetNotConfigured, FleetView } from "@/components/fleet/FleetView";
import { Seeded } from "@/components/data/Seeded";
import { FLEET_QUERY_KEY } from "@/lib/api/query-keys";
import { pageData } from "@/server/api";
import { fleetForPage } from "@/server/fleet/service";

/**
 * The fleet page's content, in the app's shell or the embed's. The fleet answer (a hundred clusters: rows with a 24-hour
 * trend each) is rendered into the HTML when the server has it at once (its last good answer, or the backend's within the
 * page's wait), so the rows are painted before the scripts run, and the view asks again when that answer is a poll
 * interval old. Without it, the browser fetches it from the HTML's head, and the view's fetch of the same URL takes the
 * preloaded response. Without a fleet in the configuration it says so at once and asks nothing (the API would answer 404).
 * Awaited by the page itself (not rendered as an async child, which the shell's Suspense would stream after an empty
 * main), so that the HTML comes whole.
 */
export async function fleetContent(embed: boolean): Promise<ReactNode> {
  const page = await pageData(() => fleetForPage());
  if (page?.configured === false) return <FleetNotConfigured embed={embed} />;
  const data = page?.view;
  if (data === undefined) preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}/api/v1/fleet`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <Seeded queryKey={FLEET_QUERY_KEY} data={data} updatedAt={data?.at}>
      <FleetView embed={embed} />
    </Seeded>
  );
}
