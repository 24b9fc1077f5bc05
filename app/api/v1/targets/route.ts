import { clusterFor, handle, queryParams } from "@/server/api";
import { pageTargets, targetQuerySchema } from "@/lib/views/targets";
import { freshness } from "@/lib/views/summary";
import type { TargetsPage } from "@/lib/api/schemas";

export async function GET(request: Request) {
  return handle(async (): Promise<TargetsPage> => {
    const query = queryParams(request.url, targetQuerySchema);
    const { snapshot } = await clusterFor(request.url);
    return { ...freshness(snapshot), cluster: snapshot.cluster, ...pageTargets(snapshot.analysis.targets, query) };
  });
}
