import { EmbedShell } from "@/components/shell/AppShell";
import { OwnershipView } from "@/components/ownership/OwnershipView";

export default function EmbedOwnershipPage() {
  return (
    <EmbedShell>
      <OwnershipView embed />
    </EmbedShell>
  );
}
