/**
 * Monitor routing between the per-node and cluster-scraper agents' TAs (docs/target-allocator.md, "Scraper roles").
 * Pure helpers: the demo TAs filter monitors with them and the analysis maps jobs back to monitors.
 */
import type { MonitorRef, Role } from "./model";

/**
 * The annotation key a TA of the operator's merged scraper-role change reads. A TA reads exactly one key: this one, or
 * EARLIER_SCRAPER_ANNOTATION for the earlier build. Declared here only: the configuration, the demo world and the checks use it.
 */
export const DEFAULT_SCRAPER_ANNOTATION = "cloudwatch.aws.amazon.com/scraper";
/** The key the operator's earlier build of the same feature reads (still deployed by some clusters). */
export const EARLIER_SCRAPER_ANNOTATION = "cloudwatch.aws/scraper";
/** Both spellings, the merged one first: what the dashboard recognises when its configuration names no key. */
export const SCRAPER_ANNOTATIONS: readonly string[] = [DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION];
/** The annotation value that routes a monitor to the cluster-scraper TA: the role's own name. */
export const CLUSTER_SCRAPER_VALUE = "cluster-scraper" satisfies Role;

const own = (annotations: Readonly<Record<string, string>> | undefined, key: string): string | undefined =>
  annotations && Object.prototype.hasOwnProperty.call(annotations, key) ? annotations[key] : undefined;
const roleOf = (value: string | undefined): Role => (value === CLUSTER_SCRAPER_VALUE ? "cluster-scraper" : "per-node");

/**
 * The role a TA reading `key` routes a monitor to: `cluster-scraper` iff the annotation value is exactly "cluster-scraper";
 * any other value, or none, goes to the default `per-node` role (upstream's annotationRoleMatches).
 */
export function monitorRole(annotations: Readonly<Record<string, string>> | undefined, key = DEFAULT_SCRAPER_ANNOTATION): Role {
  return roleOf(own(annotations, key));
}

/** Whether a TA of `taRole` reading `key` keeps `monitor`. With routing off the TA keeps every monitor. */
export function keepsMonitor(taRole: Role, monitor: MonitorRef, key = DEFAULT_SCRAPER_ANNOTATION, routingEnabled = true): boolean {
  return !routingEnabled || monitorRole(monitor.annotations, key) === taRole;
}

/** The keys the dashboard recognises: the configured key alone, or both spellings (SCRAPER_ANNOTATIONS) when none is. */
export function recognisedScraperKeys(configured: string | null | undefined): readonly string[] {
  return configured ? [configured] : SCRAPER_ANNOTATIONS;
}

export interface ScraperAnnotation {
  key: string;
  value: string;
}

export interface ExpectedRoute {
  /** the role the carried keys route the monitor to; null when they disagree (one says cluster-scraper, another not) */
  role: Role | null;
  /** the keys of `keys` the monitor carries, in the order of `keys`, with their values */
  carried: ScraperAnnotation[];
}

/**
 * Where the dashboard expects a monitor, judged by several keys at once (a TA reads one; the dashboard cannot know which
 * build runs): each carried key routes it as monitorRole does, no key at all means per-node, and keys that route it to
 * different roles leave the expected role unknown (null) instead of picking one.
 */
export function expectedRoute(annotations: Readonly<Record<string, string>> | undefined, keys: readonly string[]): ExpectedRoute {
  const carried: ScraperAnnotation[] = [];
  for (const key of new Set(keys)) {
    const value = own(annotations, key);
    if (value !== undefined) carried.push({ key, value });
  }
  const roles = new Set(carried.map((a) => roleOf(a.value)));
  return { role: roles.size > 1 ? null : roles.size === 1 ? [...roles][0] : "per-node", carried };
}

export type MonitorKind = MonitorRef["kind"];
const PREFIX: Record<MonitorKind, string> = { ServiceMonitor: "serviceMonitor", PodMonitor: "podMonitor" };

/** The TA job name of one monitor endpoint: `serviceMonitor/<ns>/<name>/<idx>` or `podMonitor/<ns>/<name>/<idx>`. */
export function jobName(kind: MonitorKind, namespace: string, name: string, endpointIndex: number): string {
  return `${PREFIX[kind]}/${namespace}/${name}/${endpointIndex}`;
}

export interface ParsedJob {
  kind: MonitorKind;
  namespace: string;
  name: string;
  index: number;
}

/**
 * Map a job name back to its monitor endpoint, or null for static jobs and anything not shaped like one.
 * Kubernetes names cannot contain "/", so exactly four parts are required; the index must be a plain integer.
 */
export function parseJobName(job: string): ParsedJob | null {
  if (typeof job !== "string") return null;
  const parts = job.split("/");
  if (parts.length !== 4) return null;
  const [prefix, namespace, name, idx] = parts;
  const kind = prefix === "serviceMonitor" ? "ServiceMonitor" : prefix === "podMonitor" ? "PodMonitor" : null;
  if (kind === null || namespace === "" || name === "" || !/^(0|[1-9][0-9]{0,8})$/.test(idx)) return null;
  return { kind, namespace, name, index: Number(idx) };
}

const UNRESERVED = /[A-Za-z0-9\-_.~]/;
const encoder = new TextEncoder();

/**
 * Escape a job name for a URL path segment like Go's url.QueryEscape, as TAs expect it: unreserved bytes stay,
 * space becomes "+", every other UTF-8 byte becomes %XX (uppercase hex), so "/" becomes %2F.
 */
export function escapeJobId(job: string): string {
  let out = "";
  for (const ch of job) {
    if (ch === " ") out += "+";
    else if (UNRESERVED.test(ch)) out += ch;
    else for (const b of encoder.encode(ch)) out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** Inverse of escapeJobId (Go's url.QueryUnescape: "+" is a space). Throws on a malformed escape. */
export function unescapeJobId(escaped: string): string {
  return decodeURIComponent(escaped.replace(/\+/g, " "));
}
