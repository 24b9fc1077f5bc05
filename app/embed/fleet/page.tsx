import { EmbedShell } from "@/components/shell/AppShell";
import { FleetView } from "@/components/fleet/FleetView";

export default function EmbedFleetPage() {
  return (
    <EmbedShell>
      <FleetView embed />
    </EmbedShell>
  );
}
