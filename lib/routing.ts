/**
 * Monitor routing, job names and job escaping, declared in the allocation package (packages/allocation/src/routing.ts):
 * the demo's TAs route monitors with it and the dashboard's analysis judges ownership with it. Re-exported here so the
 * dashboard says `@/lib/routing`.
 */
// Named, not `export *` (see lib/model.ts).
export {
  DEFAULT_SCRAPER_ANNOTATION,
  EARLIER_SCRAPER_ANNOTATION,
  SCRAPER_ANNOTATIONS,
  CLUSTER_SCRAPER_VALUE,
  monitorRole,
  keepsMonitor,
  recognisedScraperKeys,
  expectedRoute,
  jobName,
  parseJobName,
  escapeJobId,
  unescapeJobId,
} from "@allocation-lens/allocation/routing";
export type { ExpectedRoute, MonitorKind, ParsedJob, ScraperAnnotation } from "@allocation-lens/allocation/routing";
