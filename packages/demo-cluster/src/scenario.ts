/**
 * Named timelines for the demo cluster, played by a clock: `calm` (nothing happens) and `demo` (a loop that shows per-node
 * locality, then a collector that stops being Ready, a rolling update with two agent pods per node, and a monitor
 * re-annotated to the cluster-scraper and back).
 */
import type { Fault } from "./contract/faults";
import type { FaultEngine } from "./faults";

import { SCENARIOS, type ScenarioName } from "./contract/info";

export { SCENARIOS, type ScenarioName };

export interface Step {
  atSeconds: number;
  fault?: Fault;
  heal?: true;
}

export function timeline(name: ScenarioName, ctx: { nodes: string[]; monitor: { namespace: string; name: string } | null; twoRoles: boolean }): { steps: Step[]; loopSeconds: number } {
  if (name === "calm") return { steps: [], loopSeconds: 0 };
  const node = ctx.nodes[Math.min(2, ctx.nodes.length - 1)];
  const steps: Step[] = [
    { atSeconds: 30, fault: { fault: "collector-not-ready", node } },
    { atSeconds: 75, heal: true },
    { atSeconds: 90, fault: { fault: "rollout", role: "per-node" } },
  ];
  if (ctx.monitor && ctx.twoRoles) {
    steps.push({ atSeconds: 130, fault: { fault: "annotate-monitor", namespace: ctx.monitor.namespace, name: ctx.monitor.name, value: "cluster-scraper" } });
  }
  steps.push({ atSeconds: 170, heal: true });
  return { steps, loopSeconds: 200 };
}

export class ScenarioPlayer {
  private timers: NodeJS.Timeout[] = [];
  current: ScenarioName = "calm";

  constructor(
    private readonly faults: FaultEngine,
    private readonly context: () => Parameters<typeof timeline>[1],
  ) {}

  play(name: ScenarioName): void {
    this.stop();
    this.current = name;
    const { steps, loopSeconds } = timeline(name, this.context());
    if (!steps.length) return;
    const run = () => {
      for (const s of steps) {
        this.timers.push(
          setTimeout(() => {
            try {
              if (s.heal) this.faults.heal();
              else if (s.fault) this.faults.apply(s.fault);
            } catch (e) {
              console.error(`demo scenario ${name}: ${(e as Error).message}`);
            }
          }, s.atSeconds * 1000),
        );
      }
      this.timers.push(setTimeout(run, loopSeconds * 1000));
    };
    run();
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }
}
