import "server-only";
/**
 * Server start: load the configuration (or start the embedded demo), start the poll worker (one poller per cluster, the
 * churn history), stop cleanly on SIGTERM/SIGINT (the worker stops its pollers and flushes the history). A bad
 * configuration prints each problem and exits non-zero before serving.
 */
import { ConfigError } from "@/server/config";
import { getRuntime } from "@/server/runtime";

export async function startServerRuntime(): Promise<void> {
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  try {
    const runtime = await getRuntime();
    console.log(`allocation-lens: ${runtime.demo ? "embedded demo cluster" : runtime.configFile}; clusters: ${runtime.config.clusters.map((c) => c.name).join(", ")}`);
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      void runtime.stop().finally(() => process.exit(0));
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  } catch (e) {
    console.error(e instanceof ConfigError ? e.message : `allocation-lens: cannot start: ${(e as Error).message}`);
    process.exit(1);
  }
}
