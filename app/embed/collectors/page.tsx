import { EmbedShell } from "@/components/shell/AppShell";
import { CollectorsView } from "@/components/collectors/CollectorsView";

export default function EmbedCollectorsPage() {
  return (
    <EmbedShell>
      <CollectorsView embed />
    </EmbedShell>
  );
}
