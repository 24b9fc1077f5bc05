import { EmbedShell } from "@/components/shell/AppShell";
import { fleetContent } from "@/app/fleet/content";

export default async function EmbedFleetPage() {
  return <EmbedShell>{await fleetContent(true)}</EmbedShell>;
}
