/**
 * The embedded demo cluster's world: a pure, seeded function of (nodes, seed, flavor, nowMs).
 * `generateWorld` is the one-shot entry; keep a `WorldBuilder` instead when the world must grow later (faults).
 */
import { WorldBuilder, type World, type WorldOptions } from "./builder";

export { WorldBuilder, type AddedNode, type World, type WorldOptions } from "./builder";
export type { AgentInfo } from "./agents";
export type { StaticJob, StaticInput } from "./static-jobs";
export type { KubeObject } from "./kube";
export { CLUSTER_SCRAPER, DEMO_SECRET_MARKER, SCRAPER_ANNOTATION, ZONES } from "./constants";

export function generateWorld(opts: WorldOptions): World {
  return new WorldBuilder(opts).generate();
}
