import { preload } from "react-dom";
import { EmbedShell } from "@/components/shell/AppShell";
import { FleetNotConfigured, FleetView } from "@/components/fleet/FleetView";
import { Seeded } from "@/components/data/Seeded";
import { FLEET_QUERY_KEY } from "@/lib/api/query-keys";
import { pageData } from "@/server/api";
import { fleetForPage } from "@/server/fleet/service";

/** As the fleet page: the answer rendered into the HTML when the server has it at once, else fetched from the HTML's head. */
export default async function EmbedFleetPage() {
  const page = await pageData(() => fleetForPage());
  // no fleet in the configuration: said at once, nothing asked (the API would answer 404)
  if (page?.configured === false)
    return (
      <EmbedShell>
        <FleetNotConfigured embed />
      </EmbedShell>
    );
  const data = page?.view;
  // without an answer in the HTML the browser asks for it from the head; with one, the view asks when it is a poll old
  if (data === undefined) preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}/api/v1/fleet`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <EmbedShell>
      <Seeded queryKey={FLEET_QUERY_KEY} data={data} updatedAt={data?.at}>
        <FleetView embed />
      </Seeded>
    </EmbedShell>
  );
}
