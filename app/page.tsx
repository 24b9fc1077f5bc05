import { AppShell } from "@/components/shell/AppShell";
import { Overview } from "@/components/overview/Overview";

export default function OverviewPage() {
  return (
    <AppShell>
      <Overview />
    </AppShell>
  );
}
