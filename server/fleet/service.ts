import "server-only";
/**
 * The fleet service (GET /api/v1/fleet): every cluster's figures from the metrics backend of `fleet.prometheus`, never from
 * this dashboard's own pollers (it reads the configuration only). The queries (lib/fleet/queries.ts) go through the
 * bounded Prometheus client of history.prometheus (a deadline per query, a response-size limit, TLS, token, headers),
 * their answers become rows in lib/fleet/rows.ts.
 *
 * The backend is asked at most once per `fleet.refreshSeconds`, whatever the number of browsers: concurrent requests
 * share one pending answer, later ones its result until the interval ends (a failure too, so a failing backend is not
 * asked more often). A failing backend does not empty the view: the last good answer is served with the backend in
 * `stale` (its error, when it last succeeded); with no good answer yet the route answers 502. The error is logged once
 * per change of message.
 */
import type { Config, FleetConfig } from "@/lib/config/schema";
import type { FleetView } from "@/lib/api/schemas";
import type { Matrix, Vector } from "@/lib/prometheus/schemas";
import { SourceError } from "@/lib/source-error";
import { FIGURE_KEYS, FLEET_TREND_REFRESH_MS, fleetQueries, stoppedFigureQueries, trendGrid, withStopped, type FigureKey, type FleetQueries } from "@/lib/fleet/queries";
import { toFleetRows, type FleetResults } from "@/lib/fleet/rows";
import { after } from "next/server";
import { ApiError } from "@/server/api";
import { getRuntime } from "@/server/runtime";
import { PrometheusClient } from "@/server/history/prometheus-client";
import { matchersOf } from "@/server/history/prometheus";
import { perConfig } from "@/server/per-config";

/** What the service needs of a Prometheus client (PrometheusClient; a fake in unit tests). */
export interface FleetClient {
  readonly endpoint: string;
  query(query: string, time: number): Promise<Vector>;
  queryRange(query: string, grid: { start: number; end: number; step: number }): Promise<Matrix>;
}

type Log = (message: string) => void;

export class FleetService {
  private last: FleetView | null = null;
  private lastSuccess: number | null = null;
  private latencyMs: number | null = null;
  private current: { until: number; answer: Promise<FleetView> } | null = null;
  private logged: string | null = null;
  /** refreshes started (tests) */
  refreshes = 0;

  constructor(
    readonly config: FleetConfig,
    private readonly client: FleetClient,
    private readonly log: Log = (m) => console.warn(m),
  ) {}

  get source(): string {
    return `fleet prometheus ${this.client.endpoint}`;
  }

  /** The fleet answer: the cached one within the refresh interval, else a new one from the backend. */
  get(now = Date.now()): Promise<FleetView> {
    if (this.current && now < this.current.until) return this.current.answer;
    const answer = this.refresh(now);
    this.current = { until: now + this.config.refreshSeconds * 1000, answer };
    return answer;
  }

  /**
   * For a server-rendered page: the last good answer at once when there is one, else a new one. A due refresh is handed
   * to `later` (Next.js's after(): once the page is sent), so that the backend's work and its answer's parsing do not
   * share the page's render; the browser asks again when the answer is a poll interval old, and gets the new one.
   */
  forPage(now = Date.now(), later: (work: () => void) => void = (work) => work()): Promise<FleetView> {
    if (!this.last) return this.get(now);
    later(() => void this.get(now).catch(() => {}));
    return Promise.resolve(this.last);
  }

  private async refresh(now: number): Promise<FleetView> {
    this.refreshes++;
    const matchers = matchersOf(this.config.prometheus);
    const q = fleetQueries(matchers);
    const t = now / 1000;
    const started = Date.now();
    try {
      const kept = this.trendCache !== undefined && now < this.trendCache.until;
      const [figures, [seen, stopped], trendsNow] = await Promise.all([
        Promise.all(FIGURE_KEYS.map((k) => this.client.query(q[k], t))),
        Promise.all([this.client.query(q.seen, t), this.client.query(q.stopped, t)]),
        this.trends(q, now),
      ]);
      let [trendGhosts, trendLocality] = trendsNow;
      // kept trends that lack a cluster seen now (a new one): asked again, so that it does not wait a minute for its trend
      if (kept) {
        const trended = new Set([...trendGhosts, ...trendLocality].map((s) => s.metric.cluster));
        if (seen.some((s) => s.metric.cluster && !trended.has(s.metric.cluster))) {
          this.trendCache = undefined;
          [trendGhosts, trendLocality] = await this.trends(q, now);
        }
      }
      const byKey = Object.fromEntries(FIGURE_KEYS.map((k, i) => [k, figures[i]])) as Record<FigureKey, Vector>;
      // the stopped clusters' last figures: a second round, only when there are any
      const gone = new Set(stopped.map((s) => s.metric.cluster).filter((c): c is string => Boolean(c)));
      if (gone.size) {
        const sq = stoppedFigureQueries(matchers, [...gone]);
        const last = await Promise.all(FIGURE_KEYS.map((k) => this.client.query(sq[k], t)));
        FIGURE_KEYS.forEach((k, i) => (byKey[k] = withStopped(byKey[k], last[i], gone)));
      }
      const results: FleetResults = { ...byKey, seen, trendGhosts, trendLocality };
      const { rows, truncated } = toFleetRows(results, { nowMs: now, staleAfterMs: this.config.staleAfterSeconds * 1000, dashboardUrl: this.config.dashboardUrl });
      this.latencyMs = Date.now() - started;
      this.lastSuccess = now;
      if (this.logged !== null) this.log(`allocation-lens: ${this.source} answers again`);
      this.logged = null;
      this.last = {
        at: now,
        pollIntervalMs: this.config.refreshSeconds * 1000,
        stale: [],
        backend: this.client.endpoint,
        staleAfterMs: this.config.staleAfterSeconds * 1000,
        clusters: rows,
        truncated,
      };
      return this.last;
    } catch (e) {
      if (!(e instanceof SourceError)) throw e;
      if (this.logged !== e.message) this.log(`allocation-lens: ${this.source} failed (${e.kind}): ${e.message}${e.detail ? ` (${e.detail})` : ""}${this.last ? "; showing its last answer" : ""}`);
      this.logged = e.message;
      if (!this.last) throw new ApiError(502, "fleet_unavailable", `${e.source}: ${e.message}${e.hint ? ` (${e.hint})` : ""}`);
      return { ...this.last, stale: [{ source: this.source, state: "stale", lastSuccess: this.lastSuccess, latencyMs: this.latencyMs, error: e.toJSON() }] };
    }
  }

  private trendCache: { until: number; answer: Promise<[Matrix, Matrix]> } | undefined;

  /** The two trends: asked at most once per FLEET_TREND_REFRESH_MS; a failed or empty answer is not kept. */
  private trends(q: FleetQueries, now: number): Promise<[Matrix, Matrix]> {
    if (this.trendCache && now < this.trendCache.until) return this.trendCache.answer;
    const grid = trendGrid(now);
    const answer = Promise.all([this.client.queryRange(q.trendGhosts, grid), this.client.queryRange(q.trendLocality, grid)]);
    const entry = { until: now + FLEET_TREND_REFRESH_MS, answer };
    this.trendCache = entry;
    // an empty answer (a new backend, nothing scraped yet) is not kept either: it costs nothing to ask again
    answer.then(
      ([ghosts, locality]) => {
        if (this.trendCache === entry && !ghosts.length && !locality.length) this.trendCache = undefined;
      },
      () => {
        if (this.trendCache === entry) this.trendCache = undefined;
      },
    );
    return answer;
  }

  close(): void {
    if (this.client instanceof PrometheusClient) this.client.close();
  }
}

const KEY = Symbol.for("allocation-lens.fleet");

/** The service of the configured fleet backend (one per configuration, kept on globalThis), or null without one. */
export function fleetServiceFor(config: FleetConfig | undefined): FleetService | null {
  return config ? perConfig(KEY, config, (c) => new FleetService(c, new PrometheusClient(c.prometheus, "fleet.prometheus")), (s) => s.close()) : null;
}

export const FLEET_NOT_CONFIGURED = "no fleet is configured: add a fleet section naming the metrics backend that scrapes every dashboard (README, Configuration)";

/**
 * What a server-rendered fleet page starts from: that no fleet is configured (the page says so, and asks nothing), or the
 * fleet answer at hand (FleetService.forPage; undefined when there is none yet).
 */
export async function fleetForPage(): Promise<{ configured: false } | { configured: true; view: FleetView | undefined }> {
  const service = fleetServiceFor((await getRuntime()).config.fleet);
  return service ? { configured: true, view: await service.forPage(Date.now(), after) } : { configured: false };
}

/** GET /api/v1/fleet: the configuration is the runtime's (read only: no poller, no snapshot is used). */
export async function fleetFor(config?: Pick<Config, "fleet">): Promise<FleetView> {
  const service = fleetServiceFor((config ?? (await getRuntime()).config).fleet);
  if (!service) throw new ApiError(404, "fleet_not_configured", FLEET_NOT_CONFIGURED);
  return service.get();
}
