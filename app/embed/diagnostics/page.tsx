import { EmbedShell } from "@/components/shell/AppShell";
import { DiagnosticsView } from "@/components/diagnostics/DiagnosticsView";

export default function EmbedDiagnosticsPage() {
  return (
    <EmbedShell>
      <DiagnosticsView embed />
    </EmbedShell>
  );
}
