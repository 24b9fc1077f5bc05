import { AppShell } from "@/components/shell/AppShell";
import { CollectorsView } from "@/components/collectors/CollectorsView";

export default function CollectorsPage() {
  return (
    <AppShell>
      <CollectorsView />
    </AppShell>
  );
}
