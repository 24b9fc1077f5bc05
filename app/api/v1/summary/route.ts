import { handle, snapshotFor } from "@/server/api";
import { toSummaryView } from "@/lib/views/summary";

export async function GET(request: Request) {
  return handle(async () => toSummaryView(await snapshotFor(request.url)));
}
