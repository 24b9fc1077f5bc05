import { AppShell } from "@/components/shell/AppShell";
import { NodesView } from "@/components/nodes/NodesView";

export default function NodesPage() {
  return (
    <AppShell>
      <NodesView />
    </AppShell>
  );
}
