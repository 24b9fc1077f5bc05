import { AppShell } from "@/components/shell/AppShell";
import { AlertsView } from "@/components/alerts/AlertsView";

export default function AlertsPage() {
  return (
    <AppShell>
      <AlertsView />
    </AppShell>
  );
}
