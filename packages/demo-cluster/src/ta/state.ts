/**
 * The immutable snapshot one simulated Target Allocator serves (its routes and its own metrics). The allocation engine builds
 * a new one per allocation pass with `buildTaState`; the HTTP server only reads it. Serving indexes (per job: collector ->
 * items) are derived lazily and cached per state object, so 150k targets x 5k collectors x 400 jobs stay cheap.
 */
import type { Flavor, Role, SdItem, StrategyName, Target } from "@allocation-lens/allocation/model";

export interface TaJobState {
  /** targets kept after relabel filtering, in serving order */
  targets: readonly Target[];
  /** target key -> collector id, or null when unassigned; a missing key means unassigned */
  assignment: ReadonlyMap<string, string | null>;
}

export interface TaState {
  role: Role;
  flavor: Flavor;
  strategy: StrategyName;
  /** /readyz: false until the first allocation */
  ready: boolean;
  /** registered collectors (keys of /jobs/{job}/targets), sorted */
  collectors: readonly string[];
  /** every job with >= 1 target */
  jobs: ReadonlyMap<string, TaJobState>;
  /** EVERY job, also the ones without targets; values may carry credentials (redacted over plain HTTP) */
  scrapeConfigs: Readonly<Record<string, Record<string, unknown>>>;
  metrics: TaMetricState;
}

/** A histogram as exposed: `counts[i]` observations in (bounds[i-1], bounds[i]], the last entry is the +Inf bucket. */
export interface HistogramState {
  readonly bounds: readonly number[];
  readonly counts: readonly number[];
  readonly sum: number;
  readonly count: number;
}

export interface TaMetricState {
  /** `*_targets{job_name}`: targets discovered per job, BEFORE relabel filtering */
  targetsPerJob: ReadonlyMap<string, number>;
  /** upstream gauge `targets_remaining`: targets kept after filtering, now */
  targetsRemaining: number;
  /** cloudwatch counter `targets_remaining`: running sum, adds the kept count on every allocation pass */
  targetsRemainingTotal: number;
  /** `targets_per_collector{collector_name}`: registered collectors, plus collectors removed earlier at 0 */
  targetsPerCollector: ReadonlyMap<string, number>;
  /** `targets_unassigned` as the flavor reports it (upstream: sticky last non-zero; cloudwatch: live) */
  unassigned: number;
  /** the truth: kept targets with no registered collector */
  unassignedLive: number;
  collectorsAllocatable: number;
  collectorsDiscovered: number;
  /** `events{source}` counter, cumulative (sources upstream: EventSourceConfigMap, EventSourcePrometheusCR) */
  events: ReadonlyMap<string, number>;
  /** `time_to_allocate{method}` (methods: SetTargets, SetCollectors), seconds */
  timeToAllocate: ReadonlyMap<string, HistogramState>;
}

/** OpenTelemetry SDK default explicit bucket boundaries (upstream exports these, unit-less). */
export const OTEL_DEFAULT_BUCKETS: readonly number[] = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];
/** client_golang DefBuckets (cloudwatch fork, promauto). */
export const PROM_DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
export const bucketsFor = (flavor: Flavor) => (flavor === "upstream" ? OTEL_DEFAULT_BUCKETS : PROM_DEFAULT_BUCKETS);

export function observe(h: HistogramState | undefined, bounds: readonly number[], value: number): HistogramState {
  const counts = h && h.bounds === bounds ? [...h.counts] : new Array<number>(bounds.length + 1).fill(0);
  let i = 0;
  while (i < bounds.length && value > bounds[i]) i++;
  counts[i]++;
  return { bounds, counts, sum: (h?.sum ?? 0) + value, count: (h?.count ?? 0) + 1 };
}

export const emptyMetricState = (): TaMetricState => ({
  targetsPerJob: new Map(),
  targetsRemaining: 0,
  targetsRemainingTotal: 0,
  targetsPerCollector: new Map(),
  unassigned: 0,
  unassignedLive: 0,
  collectorsAllocatable: 0,
  collectorsDiscovered: 0,
  events: new Map(),
  timeToAllocate: new Map(),
});

export interface AllocationPass {
  seconds: number;
  /** default "SetTargets" */
  method?: "SetTargets" | "SetCollectors";
}

export interface BuildTaStateInput {
  role: Role;
  flavor: Flavor;
  strategy: StrategyName;
  /** default true */
  ready?: boolean;
  collectors: Iterable<string>;
  /** jobs with their kept targets and assignment; jobs without targets are dropped (they stay in scrapeConfigs) */
  jobs: ReadonlyMap<string, TaJobState>;
  scrapeConfigs: Readonly<Record<string, Record<string, unknown>>>;
  /** the previous state's metrics (or the previous state): counters and sticky values carry over */
  previous?: TaMetricState | TaState;
  /** the allocation pass(es) that produced this state; none = no pass (no histogram sample, no running sum) */
  allocation?: AllocationPass | readonly AllocationPass[];
  /** discovered targets per job before filtering; default: the kept counts */
  discoveredPerJob?: ReadonlyMap<string, number>;
  /** collector pods seen after the readiness filter; default: the registered count */
  collectorsDiscovered?: number;
  /** events since the previous state, by source */
  events?: Readonly<Record<string, number>>;
}

export function buildTaState(input: BuildTaStateInput): TaState {
  const { flavor } = input;
  const prev: TaMetricState =
    input.previous === undefined ? emptyMetricState() : "metrics" in input.previous ? input.previous.metrics : input.previous;
  const collectors = [...new Set(input.collectors)].sort();
  const registered = new Set(collectors);
  const jobs = new Map<string, TaJobState>();
  for (const [name, job] of input.jobs) if (job.targets.length > 0) jobs.set(name, job);
  const passes = input.allocation === undefined ? [] : Array.isArray(input.allocation) ? input.allocation : [input.allocation as AllocationPass];

  const perCollector = new Map<string, number>();
  for (const name of prev.targetsPerCollector.keys()) perCollector.set(name, 0);
  for (const c of collectors) perCollector.set(c, 0);
  let remaining = 0;
  let assigned = 0;
  const kept = new Map<string, number>();
  for (const [name, job] of jobs) {
    remaining += job.targets.length;
    kept.set(name, job.targets.length);
    for (const t of job.targets) {
      const c = job.assignment.get(t.key);
      if (c != null && registered.has(c)) {
        perCollector.set(c, perCollector.get(c)! + 1);
        assigned++;
      }
    }
  }
  const live = remaining - assigned;
  // Upstream writes the gauge only when an assignment failed in a pass (with collectors present), never back to 0.
  const unassigned = flavor === "cloudwatch" ? live : passes.length > 0 && live > 0 && collectors.length > 0 ? live : prev.unassigned;

  const events = new Map(prev.events);
  for (const [source, n] of Object.entries(input.events ?? {})) events.set(source, (events.get(source) ?? 0) + n);
  const timeToAllocate = new Map(prev.timeToAllocate);
  const bounds = bucketsFor(flavor);
  for (const p of passes) {
    const method = p.method ?? "SetTargets";
    timeToAllocate.set(method, observe(timeToAllocate.get(method), bounds, p.seconds));
  }

  return {
    role: input.role,
    flavor,
    strategy: input.strategy,
    ready: input.ready ?? true,
    collectors,
    jobs,
    scrapeConfigs: input.scrapeConfigs,
    metrics: {
      targetsPerJob: input.discoveredPerJob ?? kept,
      targetsRemaining: remaining,
      targetsRemainingTotal: prev.targetsRemainingTotal + (passes.length > 0 ? remaining : 0),
      targetsPerCollector: perCollector,
      unassigned,
      unassignedLive: live,
      collectorsAllocatable: collectors.length,
      collectorsDiscovered: input.collectorsDiscovered ?? collectors.length,
      events,
      timeToAllocate,
    },
  };
}

/** One HTTP SD item: one address, the discovered labels sorted by name (as Prometheus' labels.Labels marshals). */
export function sdItem(t: Target): SdItem {
  const labels: Record<string, string> = {};
  const src = "__address__" in t.labels ? t.labels : { ...t.labels, __address__: t.address };
  for (const k of Object.keys(src).sort()) labels[k] = src[k];
  return { targets: [t.address], labels };
}

const itemIndex = new WeakMap<TaState, Map<string, ReadonlyMap<string, readonly SdItem[]>>>();

/** job -> collector -> items, built on first use and cached on the state (only collectors with >= 1 item appear). */
export function jobItems(state: TaState, job: string): ReadonlyMap<string, readonly SdItem[]> {
  let perJob = itemIndex.get(state);
  if (!perJob) itemIndex.set(state, (perJob = new Map()));
  let idx = perJob.get(job);
  if (!idx) {
    const m = new Map<string, SdItem[]>();
    const j = state.jobs.get(job);
    for (const t of j?.targets ?? []) {
      const c = j!.assignment.get(t.key);
      if (c == null) continue;
      let list = m.get(c);
      if (!list) m.set(c, (list = []));
      list.push(sdItem(t));
    }
    perJob.set(job, (idx = m));
  }
  return idx;
}
