import { EmbedShell } from "@/components/shell/AppShell";
import { LostView } from "@/components/lost/LostView";

export default function EmbedLostPage() {
  return (
    <EmbedShell>
      <LostView embed />
    </EmbedShell>
  );
}
