import { preload } from "react-dom";
import { EmbedShell } from "@/components/shell/AppShell";
import { FleetView } from "@/components/fleet/FleetView";
import { Seeded } from "@/components/data/Seeded";
import { FLEET_QUERY_KEY } from "@/lib/api/query-keys";
import { pageData } from "@/server/api";
import { fleetForPage } from "@/server/fleet/service";

/** As the fleet page: the answer rendered into the HTML when the server has it at once, and fetched from the HTML's head. */
export default async function EmbedFleetPage() {
  preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}/api/v1/fleet`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <EmbedShell>
      <Seeded queryKey={FLEET_QUERY_KEY} data={await pageData(() => fleetForPage())}>
        <FleetView embed />
      </Seeded>
    </EmbedShell>
  );
}
