import { EmbedShell } from "@/components/shell/AppShell";
import { ChurnView } from "@/components/churn/ChurnView";

export default function EmbedChurnPage() {
  return (
    <EmbedShell>
      <ChurnView embed />
    </EmbedShell>
  );
}
