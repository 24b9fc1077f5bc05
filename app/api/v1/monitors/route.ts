import { clusterFor, handle } from "@/server/api";
import { toOwnershipView } from "@/lib/views/monitors";
import { freshness } from "@/lib/views/summary";

export async function GET(request: Request) {
  return handle(async () => {
    const { snapshot, config } = await clusterFor(request.url);
    return toOwnershipView(snapshot.analysis, freshness(snapshot), config.scraperAnnotation);
  });
}
