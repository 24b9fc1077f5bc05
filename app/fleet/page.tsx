import { preload } from "react-dom";
import { AppShell } from "@/components/shell/AppShell";
import { FleetView } from "@/components/fleet/FleetView";

/**
 * The fleet answer (a hundred clusters: rows with a 24-hour trend each) is fetched from the HTML's head, while the
 * scripts load and hydrate; the view's fetch of the same URL takes the preloaded response.
 */
export default function FleetPage() {
  preload(`${process.env.NEXT_PUBLIC_BASE_PATH ?? ""}/api/v1/fleet`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <AppShell>
      <FleetView />
    </AppShell>
  );
}
