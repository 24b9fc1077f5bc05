import { clusterFor, handle } from "@/server/api";
import { flappingFor } from "@/server/history/churn-service";
import { diagnosticsOptions, toDiagnosticsView } from "@/lib/views/diagnostics";

export async function GET(request: Request) {
  return handle(async () => {
    const { snapshot, config } = await clusterFor(request.url);
    return toDiagnosticsView(snapshot, await flappingFor(snapshot), diagnosticsOptions(config.targetAllocators));
  });
}
