/**
 * The shared vocabulary (docs/ARCHITECTURE.md, "Vocabulary"), declared in the allocation package that the dashboard and
 * the demo cluster both depend on (packages/allocation/src/model.ts). Re-exported here so the dashboard says `@/lib/model`.
 */
// Named, not `export *`: Node's ESM loader finds a CommonJS module's exports only by name (the bench and the attack suite
// run under tsx as ES modules and import these).
export { ROLES, FLAVORS, TARGET_CLASSES, OWNERSHIPS } from "@allocation-lens/allocation/model";
export type { Role, Flavor, Tracking, StrategyName, TargetClass, Ownership, Labels, SdItem, Target, Collector, PodView, MonitorRef } from "@allocation-lens/allocation/model";
