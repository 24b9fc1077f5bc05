import { AppShell } from "@/components/shell/AppShell";
import { FleetView } from "@/components/fleet/FleetView";

export default function FleetPage() {
  return (
    <AppShell>
      <FleetView />
    </AppShell>
  );
}
