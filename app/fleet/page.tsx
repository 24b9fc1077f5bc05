import { preload } from "react-dom";
import { AppShell } from "@/components/shell/AppShell";
import { FleetNotConfigured, FleetView } from "@/components/fleet/FleetView";
import { Seeded } from "@/components/data/Seeded";
import { FLEET_QUERY_KEY } from "@/lib/api/query-keys";
import { pageData } from "@/server/api";
import { fleetForPage } from "@/server/fleet/service";

/**
 * The fleet answer (a hundred clusters: rows with a 24-hour trend each) is rendered into the HTML when the server has it
 * at once (its last good answer, or the backend's within the page's wait), so the rows are painted before the scripts run,
 * and the view asks again when that answer is a poll interval old. Without it, the browser fetches it from the HTML's
 * head, and the view's fetch of the same URL takes the preloaded response.
 */
export default async function FleetPage() {
  const page = await pageData(() => fleetForPage());
  // no fleet in the configuration: said at once, nothing asked (the API would answer 404)
  if (page?.configured === false)
    return (
      <AppShell>
        <FleetNotConfigured embed={false} />
      </AppShell>
    );
  const data = page?.view;
  // without an answer in the HTML the browser asks for it from the head; with one, the view asks when it is a poll old
  if (data === undefined) preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}/api/v1/fleet`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <AppShell>
      <Seeded queryKey={FLEET_QUERY_KEY} data={data} updatedAt={data?.at}>
        <FleetView />
      </Seeded>
    </AppShell>
  );
}
