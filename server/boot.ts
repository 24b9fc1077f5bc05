import "server-only";
/**
 * Server start: load the configuration (or start the embedded demo), start one poller per cluster, stop cleanly on
 * SIGTERM/SIGINT. A bad configuration prints each problem and exits non-zero before serving.
 */
import { ConfigError } from "@/server/config";
import { getRuntime } from "@/server/runtime";
import { startHistory, stopHistory } from "@/server/history/registry";
import { churnCounters } from "@/server/metrics";

export async function startServerRuntime(): Promise<void> {
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  try {
    const runtime = await getRuntime();
    console.log(`allocation-lens: ${runtime.demo ? "embedded demo cluster" : runtime.configFile}; clusters: ${runtime.config.clusters.map((c) => c.name).join(", ")}`);
    startHistory(runtime, { counters: churnCounters() });
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      stopHistory();
      void runtime.stop().finally(() => process.exit(0));
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  } catch (e) {
    console.error(e instanceof ConfigError ? e.message : `allocation-lens: cannot start: ${(e as Error).message}`);
    process.exit(1);
  }
}
