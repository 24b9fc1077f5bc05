import "server-only";
/**
 * The process-wide runtime: configuration, one poller per cluster, the demo child when there is no configuration.
 * Kept on globalThis so that route bundles and instrumentation share one instance.
 */
import type { Config } from "@/lib/config/schema";
import { ClusterPoller } from "@/server/poller";
import { hasSourceTree, launchDemo } from "@allocation-lens/demo-cluster/launcher";
import { configPathFromEnv, loadConfigFile, NO_CONFIGURATION } from "@/server/config";

export interface Runtime {
  config: Config;
  configFile: string;
  demo: boolean;
  pollers: Map<string, ClusterPoller>;
  startedAt: number;
  stop(): Promise<void>;
}

const KEY = Symbol.for("allocation-lens.runtime");
type Holder = { [KEY]?: Promise<Runtime> };

async function create(): Promise<Runtime> {
  let file = configPathFromEnv();
  let demo = false;
  let stopDemo = () => {};
  if (!file) {
    const args = (process.env.ALLOCATION_LENS_DEMO_ARGS ?? "").split(/\s+/).filter(Boolean);
    // The standalone output (the container image) has no source tree to run the demo from.
    if (!hasSourceTree(process.cwd())) throw new Error(NO_CONFIGURATION);
    const launched = await launchDemo(args, { onLine: (line) => process.stdout.write(`[demo] ${line}\n`) });
    file = launched.info.dashboardConfig;
    demo = true;
    stopDemo = () => void launched.stop();
  }
  const config = loadConfigFile(file);
  const pollers = new Map(config.clusters.map((c) => [c.name, new ClusterPoller(c)]));
  for (const p of pollers.values()) p.start();
  return {
    config,
    configFile: file,
    demo: demo || Boolean(config.demo),
    pollers,
    startedAt: Date.now(),
    async stop() {
      await Promise.all([...pollers.values()].map((p) => p.stop()));
      stopDemo();
    },
  };
}

export function getRuntime(): Promise<Runtime> {
  const holder = globalThis as Holder;
  holder[KEY] ??= create();
  return holder[KEY];
}
