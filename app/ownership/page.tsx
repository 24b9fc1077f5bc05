import { AppShell } from "@/components/shell/AppShell";
import { OwnershipView } from "@/components/ownership/OwnershipView";

export default function OwnershipPage() {
  return (
    <AppShell>
      <OwnershipView />
    </AppShell>
  );
}
