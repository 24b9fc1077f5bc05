import { EmbedShell } from "@/components/shell/AppShell";
import { NodesView } from "@/components/nodes/NodesView";

export default function EmbedNodesPage() {
  return (
    <EmbedShell>
      <NodesView embed />
    </EmbedShell>
  );
}
