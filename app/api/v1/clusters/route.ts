import { handle } from "@/server/api";
import { getRuntime } from "@/server/runtime";
import type { ClustersView } from "@/lib/api/schemas";
import type { Role } from "@/lib/model";

export async function GET() {
  return handle(async (): Promise<ClustersView> => {
    const runtime = await getRuntime();
    return {
      demo: Boolean(runtime.config.demo),
      fleet: Boolean(runtime.config.fleet),
      clusters: runtime.config.clusters.map((c) => ({
        name: c.name,
        pollIntervalSeconds: c.pollIntervalSeconds,
        // discovered TAs are known from the latest poll; configured ones from the configuration
        roles: c.discover
          ? (runtime.pollers.get(c.name)?.latest?.roles ?? [])
          : Object.entries(c.targetAllocators)
              .filter(([, ta]) => ta)
              .map(([role, ta]) => ({ role: role as Role, flavor: ta!.flavor })),
      })),
    };
  });
}
