import { handle } from "@/server/api";
import { fleetFor } from "@/server/fleet/service";

/** GET /api/v1/fleet: one row per cluster found in the fleet's metrics backend, worst first. */
export async function GET() {
  return handle(() => fleetFor());
}
