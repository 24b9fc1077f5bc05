import { AppShell } from "@/components/shell/AppShell";
import { DiagnosticsView } from "@/components/diagnostics/DiagnosticsView";

export default function DiagnosticsPage() {
  return (
    <AppShell>
      <DiagnosticsView />
    </AppShell>
  );
}
