/**
 * The shared vocabulary (docs/ARCHITECTURE.md, "Vocabulary"), declared in the allocation package that the dashboard and
 * the demo cluster both depend on (packages/allocation/src/model.ts). Re-exported here so the dashboard says `@/lib/model`.
 */
export * from "@allocation-lens/allocation/model";
