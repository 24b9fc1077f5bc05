import "server-only";
/**
 * The process-wide runtime of the serving thread: configuration, the poll worker with one handle per cluster
 * (server/poll/host.ts: the polling, the history and the answers live in a worker thread), and the demo child when there
 * is no configuration. Kept on globalThis so that route bundles and instrumentation share one instance.
 */
import type { Config } from "@/lib/config/schema";
import { PollHost, type ClusterHandle } from "@/server/poll/host";
import { hasSourceTree, launchDemo } from "@allocation-lens/demo-cluster/launcher";
import { configPathFromEnv, loadConfigFile, NO_CONFIGURATION } from "@/server/config";

export interface Runtime {
  config: Config;
  configFile: string;
  demo: boolean;
  /** one handle per cluster, by name */
  pollers: Map<string, ClusterHandle>;
  host: PollHost;
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
  // validated here, before the worker starts, so that a bad file stops the server with every problem named
  const config = loadConfigFile(file);
  const host = new PollHost(config, file);
  host.start();
  return {
    config,
    configFile: file,
    demo: demo || Boolean(config.demo),
    pollers: host.clusters,
    host,
    startedAt: Date.now(),
    async stop() {
      await host.stop();
      stopDemo();
    },
  };
}

export function getRuntime(): Promise<Runtime> {
  const holder = globalThis as Holder;
  holder[KEY] ??= create();
  return holder[KEY];
}
