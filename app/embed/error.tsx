"use client";
/** An embedded view that throws while rendering: the failure in the tile, without navigation chrome. */
import { EmbedShell } from "@/components/shell/AppShell";
import { PageFailed } from "@/components/shell/PageFailed";

export default function EmbedError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <EmbedShell>
      <PageFailed error={error} retry={retry} home={false} />
    </EmbedShell>
  );
}
