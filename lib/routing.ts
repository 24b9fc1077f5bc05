/**
 * Monitor routing, job names and job escaping, declared in the allocation package (packages/allocation/src/routing.ts):
 * the demo's TAs route monitors with it and the dashboard's analysis judges ownership with it. Re-exported here so the
 * dashboard says `@/lib/routing`.
 */
export * from "@allocation-lens/allocation/routing";
