import { AppShell } from "@/components/shell/AppShell";
import { TargetsView } from "@/components/targets/TargetsView";

export default function TargetsPage() {
  return (
    <AppShell>
      <TargetsView />
    </AppShell>
  );
}
