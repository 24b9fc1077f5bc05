import { handle, snapshotFor } from "@/server/api";
import { nodesViewFor } from "@/lib/views/nodes";
import { freshness } from "@/lib/views/summary";

export async function GET(request: Request) {
  return handle(async () => {
    const s = await snapshotFor(request.url);
    return nodesViewFor(s.analysis, freshness(s));
  });
}
