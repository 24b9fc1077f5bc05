import { handle, snapshotFor } from "@/server/api";
import { toCollectorsView } from "@/lib/views/collectors";
import { freshness } from "@/lib/views/summary";

export async function GET(request: Request) {
  return handle(async () => {
    const s = await snapshotFor(request.url);
    return toCollectorsView(s.analysis, freshness(s));
  });
}
