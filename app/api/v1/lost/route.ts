import { handle, snapshotFor } from "@/server/api";
import { toLostView } from "@/lib/views/lost";
import { freshness } from "@/lib/views/summary";

export async function GET(request: Request) {
  return handle(async () => {
    const s = await snapshotFor(request.url);
    return toLostView(s.analysis, freshness(s));
  });
}
