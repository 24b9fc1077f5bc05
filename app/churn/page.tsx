import { AppShell } from "@/components/shell/AppShell";
import { ChurnView } from "@/components/churn/ChurnView";

export default function ChurnPage() {
  return (
    <AppShell>
      <ChurnView />
    </AppShell>
  );
}
