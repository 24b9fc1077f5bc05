import { AppShell } from "@/components/shell/AppShell";
import { Overview } from "@/components/overview/Overview";

export default async function OverviewPage({ searchParams }: { searchParams: Promise<{ cluster?: string }> }) {
  const { cluster } = await searchParams;
  return (
    <AppShell>
      <Overview cluster={cluster} />
    </AppShell>
  );
}
