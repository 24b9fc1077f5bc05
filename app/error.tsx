"use client";
/** A view that throws while rendering (outside any panel's boundary) keeps the navigation: the page shows what failed. */
import { AppShell } from "@/components/shell/AppShell";
import { PageFailed } from "@/components/shell/PageFailed";

export default function PageError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <AppShell>
      <PageFailed error={error} retry={retry} />
    </AppShell>
  );
}
