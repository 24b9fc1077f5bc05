/**
 * PromQL for the churn view read from a Prometheus-compatible backend (Prometheus, Thanos, Mimir) that scraped this
 * dashboard's /metrics. Pure: strings in, strings out.
 *
 * Two things to know:
 * - Several dashboard replicas scraped by the same backend each export the same counters for the same cluster (different
 *   `instance`/`pod` labels), each counting the same events: summing them would double count. The flapping ranking takes
 *   `max by (role, pod, node)` over the replicas. The timeline cannot take a max per bucket: replicas are scraped at
 *   different moments, so a flip near a bucket edge lands in bucket k for one replica and k+1 for the other and a max per
 *   bucket counts it twice (the integration test saw 8 flips for 6). Its queries return each replica's own increments and
 *   lib/prometheus/reshape.ts takes the max over replicas of their cumulative counts, which telescopes.
 * - A counter's increase over a window w, exact where it can be: `(X - X offset w) >= 0`, the difference between the
 *   values at the window's two ends (a flip between two scrapes that straddle a bucket edge is not lost, as it is with
 *   increase(), which also extrapolates); for a series born inside the window, `X - min_over_time(X[w])`: what it gained
 *   since its first sample (a counter that existed before the backend first scraped it does not count its past, and
 *   this dashboard creates its series at 0, so nothing is lost before the first scrape); for a series with a counter reset
 *   inside the window (a dashboard restarted with the same labels), `increase()`, which handles resets. Sample values are
 *   rounded by the caller.
 */

/** The label-matcher grammar of PromQL: `name op "value"` with op one of = != =~ !~. */
export const MATCHER_PATTERN = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\\n]|\\.)*)"\s*$/;

export interface Matcher {
  name: string;
  op: "=" | "!=" | "=~" | "!~";
  value: string;
}

/** Escapes a label value for a double-quoted PromQL string. */
export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** Escapes a literal for use inside a PromQL regular expression (RE2), before escapeLabelValue. */
export function escapeRegex(v: string): string {
  return v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Parses one configured matcher such as `job="allocation-lens"`, or returns why it is not one. */
export function parseMatcher(text: string): { ok: true; matcher: Matcher } | { ok: false; message: string } {
  const m = MATCHER_PATTERN.exec(text);
  if (!m) return { ok: false, message: 'expected a PromQL label matcher such as job="allocation-lens" (name, then = != =~ or !~, then a double-quoted value)' };
  const [, name, op, raw] = m;
  if (name === "__name__") return { ok: false, message: "the metric name is chosen by the dashboard: match on other labels" };
  if (name === "cluster") return { ok: false, message: "the cluster label is set by the dashboard from the cluster's name: match on other labels (job, namespace...)" };
  // unescape \" \\ \n; any other escape is kept as written (Prometheus accepts Go string escapes)
  const value = raw.replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c));
  return { ok: true, matcher: { name, op: op as Matcher["op"], value } };
}

const render = (m: Matcher) => `${m.name}${m.op}"${escapeLabelValue(m.value)}"`;

/** `metric{<matchers>}` with every value escaped. */
export function matcherSelector(metric: string, matchers: readonly Matcher[]): string {
  return `${metric}{${matchers.map(render).join(",")}}`;
}

/** `metric{cluster="c",<extra>,<configured matchers>}` with every value escaped. */
export function selector(metric: string, cluster: string, extra: readonly Matcher[] = [], matchers: readonly Matcher[] = []): string {
  return matcherSelector(metric, [{ name: "cluster", op: "=", value: cluster }, ...extra, ...matchers]);
}

/** Prometheus duration for whole milliseconds (`90000ms` is valid PromQL; seconds when exact, for readability). */
export function duration(ms: number): string {
  const whole = Math.max(1, Math.round(ms));
  return whole % 1000 === 0 ? `${whole / 1000}s` : `${whole}ms`;
}

/** Per series, the increase of counter selector `sel` over the `windowMs` ending at each evaluation instant (see the header). */
export function counterIncrease(sel: string, windowMs: number): string {
  const w = duration(windowMs);
  const reset = `resets(${sel}[${w}]) > 0`;
  return `((${sel} - ${sel} offset ${w}) >= 0 unless ${reset}) or ((${sel} - min_over_time(${sel}[${w}])) unless ${sel} offset ${w} unless ${reset}) or increase(${sel}[${w}])`;
}

export const CHURN_SERIES = {
  readiness: "allocation_lens_readiness_transitions_total",
  reassignments: "allocation_lens_target_reassignments_total",
  collectorReadiness: "allocation_lens_collector_readiness_transitions_total",
  targets: "allocation_lens_targets",
  unassigned: "allocation_lens_unassigned_targets",
  locality: "allocation_lens_locality_ratio",
} as const;

export interface ChurnQueries {
  /** query_range, step = bucket width: per replica and role, the increase over each bucket (reshape.ts takes the max) */
  readiness: string;
  reassignments: string;
  /** query_range: per role, the mean ratio over each bucket */
  locality: string;
  /** query_range: per role, the worst value over each bucket */
  ghosts: string;
  unassigned: string;
  /** instant query at the range's end: the `limit` pods with most readiness flips over the whole range */
  flapping: string;
}

/** The queries of one churn view: `bucketMs` is the bucket width, `rangeMs` the whole range. */
export function churnQueries(cluster: string, matchers: readonly Matcher[], bucketMs: number, rangeMs: number, limit = 20): ChurnQueries {
  const sel = (metric: string, extra: Matcher[] = []) => selector(metric, cluster, extra, matchers);
  const w = duration(bucketMs);
  return {
    // per replica: the max over replicas is taken on cumulative counts in reshape.ts (see the header)
    readiness: counterIncrease(sel(CHURN_SERIES.readiness), bucketMs),
    reassignments: counterIncrease(sel(CHURN_SERIES.reassignments), bucketMs),
    // max over the dashboard's replicas (see the header), per role: gauges, no double count possible, one value per role
    locality: `max by (role) (avg_over_time(${sel(CHURN_SERIES.locality)}[${w}]))`,
    ghosts: `max by (role) (max_over_time(${sel(CHURN_SERIES.targets, [{ name: "class", op: "=", value: "ghost" }])}[${w}]))`,
    unassigned: `max by (role) (max_over_time(${sel(CHURN_SERIES.unassigned)}[${w}]))`,
    // max over the dashboard's replicas, per pod: one window, so no bucket edge to straddle
    flapping: `topk(${limit}, max by (role, pod, node) (${counterIncrease(sel(CHURN_SERIES.collectorReadiness), rangeMs)}) > 0)`,
  };
}

/**
 * query_range over just these pods: per bucket, the flips of each (lastAt = the end of the last bucket with one). The max
 * over replicas per bucket is fine here: only whether a bucket has a flip matters.
 */
export function flappingBucketsQuery(cluster: string, matchers: readonly Matcher[], pods: readonly string[], bucketMs: number): string {
  const podRe = pods.map(escapeRegex).join("|");
  const sel = selector(CHURN_SERIES.collectorReadiness, cluster, [{ name: "pod", op: "=~", value: podRe }], matchers);
  return `max by (role, pod) (${counterIncrease(sel, bucketMs)}) > 0`;
}
