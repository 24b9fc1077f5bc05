import { EmbedShell } from "@/components/shell/AppShell";
import { AlertsView } from "@/components/alerts/AlertsView";

export default function EmbedAlertsPage() {
  return (
    <EmbedShell>
      <AlertsView embed />
    </EmbedShell>
  );
}
