import { AppShell } from "@/components/shell/AppShell";
import { fleetContent } from "./content";

export default async function FleetPage() {
  return <AppShell>{await fleetContent(false)}</AppShell>;
}
