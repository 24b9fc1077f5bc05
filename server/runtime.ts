import "server-only";
/**
 * The process-wide runtime: configuration, one poller per cluster, the demo child when there is no configuration.
 * Kept on globalThis so that route bundles and instrumentation share one instance.
 */
import type { Config } from "@/lib/config/schema";
import { ClusterPoller } from "@/server/poller";
import { configPathFromEnv, loadConfigFile } from "@/server/config";
import { launchDemo } from "@/server/demo-launcher";

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
    const { info, child } = await launchDemo(args);
    file = info.dashboardConfig;
    demo = true;
    stopDemo = () => child.kill("SIGTERM");
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
