import { handle } from "@/server/api";
import { getRuntime } from "@/server/runtime";

export async function GET() {
  return handle(async () => {
    const runtime = await getRuntime();
    return {
      demo: Boolean(runtime.config.demo),
      clusters: runtime.config.clusters.map((c) => ({
        name: c.name,
        pollIntervalSeconds: c.pollIntervalSeconds,
        roles: Object.entries(c.targetAllocators)
          .filter(([, ta]) => ta)
          .map(([role, ta]) => ({ role, flavor: ta!.flavor })),
      })),
    };
  });
}
