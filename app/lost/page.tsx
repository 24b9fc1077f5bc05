import { AppShell } from "@/components/shell/AppShell";
import { LostView } from "@/components/lost/LostView";

export default function LostPage() {
  return (
    <AppShell>
      <LostView />
    </AppShell>
  );
}
