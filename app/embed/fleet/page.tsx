import { preload } from "react-dom";
import { EmbedShell } from "@/components/shell/AppShell";
import { FleetView } from "@/components/fleet/FleetView";

/** As the fleet page: the answer is fetched from the HTML's head. */
export default function EmbedFleetPage() {
  preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}/api/v1/fleet`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <EmbedShell>
      <FleetView embed />
    </EmbedShell>
  );
}
