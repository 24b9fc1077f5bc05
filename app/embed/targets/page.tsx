import { EmbedShell } from "@/components/shell/AppShell";
import { TargetsView } from "@/components/targets/TargetsView";

export default function EmbedTargetsPage() {
  return (
    <EmbedShell>
      <TargetsView embed />
    </EmbedShell>
  );
}
