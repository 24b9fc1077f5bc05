import "server-only";
/**
 * One poller per cluster, whatever the number of browsers: reads every TA of the cluster once per interval, on the
 * cluster's phase in it (lib/poll-schedule.ts: clusters polled by one process spread over the interval; never two polls
 * at once; when a poll takes longer than the interval the next one starts right after it), reads the Kubernetes informer
 * caches, runs the analysis and keeps the latest snapshot. A failing source keeps its last good data and is marked stale.
 * Reading a TA has a deadline of its own (TaClient): a TA that answers slowly is cut off and marked stale, and the poll
 * ends with the other sources' data, so a slow TA delays a poll by at most that deadline and never stops the next one.
 */
import type { ClusterConfig } from "@/lib/config/schema";
import type { MonitorRef, Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { analyzeSteps } from "@/lib/analysis/analyze";
import { setImmediate as nextTurn } from "node:timers/promises";
import { runSliced } from "@/server/cooperative";
import type { RoleInput, TaView } from "@/lib/analysis/types";
import type { Snapshot, SourceStatus } from "@/lib/snapshot";
import { SourceError } from "@/lib/source-error";
import { TaClient, type TaReading } from "@/server/ta/client";
import { startKubeSources, type KubeSources, type KubeObj } from "@/server/kube/informers";
import { agentPodFromObject, monitorFromObject, nodeInfoFromObject } from "@/server/kube/reshape";
import { BoundedWaiters } from "@/lib/waiters";
import { SourceErrorLog } from "@/server/net/error-log";
import { threadCpuMs } from "@/lib/thread-cpu";
import { nextPollDelayMs, pollPhaseMs } from "@/lib/poll-schedule";
import type { TaConfig } from "@/lib/config/schema";
import type { DiscoveryView } from "@/lib/api/schemas";
import { discoveryLine, TaDiscovery, type DiscoveryReading } from "@/server/discovery/service";

/** API requests that may wait for a cluster's first poll at once; more are refused (503) at once */
export const MAX_FIRST_POLL_WAITERS = 256;

export type PodEvent = { at: number; role: Role; type: "add" | "update" | "delete"; pod: KubeObj };

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What the diagnostics page shows of a discovery reading. */
function discoveryView(r: DiscoveryReading | null, lastSuccess: number | null): DiscoveryView {
  return {
    at: lastSuccess,
    found: (r?.found ?? []).map((f) => ({
      role: f.role,
      flavor: f.flavor,
      namespace: f.namespace,
      configMap: f.configMap,
      strategy: f.strategy,
      fallbackStrategy: f.fallbackStrategy,
      collectors: f.collectors,
      mtls: f.mtls,
      service: `${f.namespace}/${f.service.name}:${f.service.port}`,
      reach: f.reach,
    })),
    dropped: r?.dropped ?? [],
    problems: r?.problems ?? [],
  };
}

export class ClusterPoller {
  private readonly tas = new Map<Role, TaClient>();
  private readonly taStatus = new Map<Role, SourceStatus>();
  private readonly lastGood = new Map<Role, TaView>();
  private kube: KubeSources | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** the instant the timer's poll is due (an instant of the cluster's phase), while one is set */
  private dueAt: number | undefined;
  private running = false;
  private stopped = false;
  /** suspended by suspend() until the next start(): no timer, no informers */
  private suspended = false;
  private snapshot: Snapshot | undefined;
  private readonly waiters = new BoundedWaiters<Snapshot>(MAX_FIRST_POLL_WAITERS);
  private readonly errorLog: SourceErrorLog;
  private readonly podListeners = new Set<(e: PodEvent) => void>();
  private readonly snapshotListeners = new Set<(s: Snapshot, previous: Snapshot | undefined) => void>();
  polls = 0;
  /** the cluster's configuration; with discovery, `targetAllocators` is what the last discovery reading gave */
  config: ClusterConfig;
  private readonly discovery: TaDiscovery | undefined;
  private discoveryStatus: SourceStatus | undefined;
  private discoveryReading: DiscoveryReading | null = null;
  private discoveredAt = 0;
  private discoveryLogged = "";
  private readonly log: (line: string) => void;

  constructor(config: ClusterConfig, log?: (line: string) => void) {
    this.config = config;
    this.log = log ?? ((line) => console.log(line));
    this.errorLog = new SourceErrorLog(log);
    if (config.discover) {
      this.discovery = new TaDiscovery(config, config.discover);
      this.discoveryStatus = { source: `${config.name}/discovery`, state: "starting", lastSuccess: null, lastAttempt: null, latencyMs: null, error: null };
    }
    for (const role of ROLES) {
      const ta = config.targetAllocators[role];
      if (ta) this.addClient(role, ta);
    }
  }

  private addClient(role: Role, ta: TaConfig): void {
    const source = `${this.config.name}/ta/${role}`;
    this.taStatus.set(role, { source, state: "starting", lastSuccess: null, lastAttempt: null, latencyMs: null, error: null });
    try {
      // the cluster's Kubernetes access serves a reach through the API server and tlsSecret; direct TLS files need none
      this.tas.set(role, new TaClient(this.config.name, role, ta, this.config.pollIntervalSeconds, { kube: this.config.kubernetes }));
    } catch (e) {
      const err = e instanceof SourceError ? e : new SourceError({ source, kind: "config", message: String(e) });
      this.errorLog.note(source, err);
      this.taStatus.set(role, { source, state: "error", lastSuccess: null, lastAttempt: null, latencyMs: null, error: err.toJSON() });
    }
  }

  /** The role's client, status and last good data dropped, and a fresh client for `ta` (none when the role has no TA). */
  private renewClient(role: Role, ta: TaConfig | undefined): void {
    this.tas.get(role)?.close();
    this.tas.delete(role);
    this.taStatus.delete(role);
    this.lastGood.delete(role);
    if (ta) this.addClient(role, ta);
  }

  /**
   * Reads the TAs of `entries` from now on (discovery found others, or the same ones changed): a role whose entry is
   * unchanged keeps its client and last good data; when the collectors' selectors changed, the informers start again
   * and the next poll waits for their first list (at most the Kubernetes request deadline).
   */
  private async setTargetAllocators(entries: Partial<Record<Role, TaConfig>>): Promise<void> {
    const before = this.config.targetAllocators;
    if (sameJson(before, entries)) return;
    const collectorsChanged = !sameJson(
      ROLES.map((r) => before[r]?.collectors ?? null),
      ROLES.map((r) => entries[r]?.collectors ?? null),
    );
    this.config = { ...this.config, targetAllocators: entries };
    for (const role of ROLES) {
      if (!sameJson(before[role], entries[role])) this.renewClient(role, entries[role]);
    }
    const kube = this.kube;
    if (collectorsChanged && kube) {
      this.kube = this.startKube();
      await kube.stop();
      const wait = this.config.kubernetes.requestTimeoutSeconds * 1000;
      await Promise.all(Object.values(this.kube.pods).map((w) => w?.whenListed(wait)));
    }
  }

  /** Reads the cluster's TAs from its Kubernetes API when discovery is due (before each poll, every intervalSeconds). */
  private async rediscover(): Promise<void> {
    const discovery = this.discovery;
    const status = this.discoveryStatus;
    if (!discovery || !status || !this.config.discover) return;
    if (this.discoveredAt && Date.now() - this.discoveredAt < this.config.discover.intervalSeconds * 1000) return;
    this.discoveredAt = Date.now();
    status.lastAttempt = Date.now();
    const started = performance.now();
    try {
      const reading = await discovery.read();
      this.discoveryReading = reading;
      Object.assign(status, { state: "ok", lastSuccess: Date.now(), latencyMs: performance.now() - started, error: null });
      this.errorLog.note(status.source, null);
      const line = discoveryLine(this.config.name, reading);
      if (line !== this.discoveryLogged) this.log(line);
      this.discoveryLogged = line;
      await this.setTargetAllocators(reading.entries);
    } catch (e) {
      const err = e instanceof SourceError ? e : new SourceError({ source: status.source, kind: "network", message: String((e as Error)?.message ?? e) });
      this.errorLog.note(status.source, err);
      Object.assign(status, { state: status.lastSuccess ? "stale" : "error", error: err.toJSON() });
    }
  }

  private startKube(): KubeSources {
    return startKubeSources(this.config, (role, type, pod) => {
      const event: PodEvent = { at: Date.now(), role, type, pod };
      for (const l of this.podListeners) l(event);
    });
  }

  /** Starts polling (the informers, then a poll every interval); after suspend(), starts again from a fresh list. */
  start(): void {
    if (this.stopped || this.kube) return;
    this.suspended = false;
    this.kube = this.startKube();
    // a fresh discovery after a suspension: the TAs may have changed meanwhile
    this.discoveredAt = 0;
    // the first poll at once, due now
    this.dueAt = undefined;
    void this.tick();
  }

  /**
   * Stops polling until the next start(): the timer, the informers and the TAs' clients, and forgets the latest snapshot
   * and the TAs' last good data (another replica polls the cluster meanwhile; the next snapshot here starts a new series
   * from fresh readings, not a diff against this one, and a replica that handed clusters over does not keep their data).
   * A poll in flight finishes without publishing or keeping what it read.
   */
  async suspend(): Promise<void> {
    this.suspended = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.dueAt = undefined;
    const kube = this.kube;
    this.kube = undefined;
    this.snapshot = undefined;
    for (const role of ROLES) this.renewClient(role, this.config.targetAllocators[role]);
    await kube?.stop();
  }

  /** polling now (started and neither suspended nor stopped) */
  get polling(): boolean {
    return Boolean(this.kube) && !this.suspended && !this.stopped;
  }

  onPodEvent(listener: (e: PodEvent) => void): () => void {
    this.podListeners.add(listener);
    return () => this.podListeners.delete(listener);
  }

  onSnapshot(listener: (s: Snapshot, previous: Snapshot | undefined) => void): () => void {
    this.snapshotListeners.add(listener);
    return () => this.snapshotListeners.delete(listener);
  }

  get latest(): Snapshot | undefined {
    return this.snapshot;
  }

  /**
   * The latest snapshot, waiting up to `timeoutMs` for the first poll when there is none yet. Rejects with a WaitRefused:
   * `timeout`, or `full` at once when MAX_FIRST_POLL_WAITERS requests already wait.
   */
  next(timeoutMs = 15_000): Promise<Snapshot> {
    if (this.snapshot) return Promise.resolve(this.snapshot);
    return this.waiters.wait(timeoutMs);
  }

  /** requests waiting for the first poll (tests) */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Requests sent to each TA since start: one poll's worth per interval, whatever the number of API clients. */
  taRequests(): Partial<Record<Role, number>> {
    return Object.fromEntries([...this.tas].map(([r, c]) => [r, c.http.requests]));
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.suspended || this.running) return;
    this.running = true;
    // the instant this poll was due (its timer's, however late the timer fired), or now for an unscheduled one
    const dueAt = this.dueAt ?? Date.now();
    this.dueAt = undefined;
    try {
      await this.rediscover();
      await this.poll();
    } finally {
      this.running = false;
      // the next poll on the cluster's phase in the interval (lib/poll-schedule.ts), at once when this one ran past it
      const intervalMs = this.config.pollIntervalSeconds * 1000;
      const now = Date.now();
      const delay = nextPollDelayMs({ now, dueAt, intervalMs, phaseMs: pollPhaseMs(this.config.name, intervalMs) });
      if (!this.stopped && !this.suspended) {
        this.dueAt = delay > 0 ? now + delay : undefined;
        this.timer = setTimeout(() => void this.tick(), delay);
      }
    }
  }

  private async poll(): Promise<void> {
    const started = performance.now();
    const cpuStarted = threadCpuMs();
    const readings = await Promise.all(
      [...this.tas].map(async ([role, client]) => {
        const status = this.taStatus.get(role)!;
        status.lastAttempt = Date.now();
        try {
          const r = await client.read();
          // the client was replaced meanwhile (suspended, or the TA's entry changed): its reading is not kept
          if (this.tas.get(role) !== client) return null;
          this.lastGood.set(role, toView(r));
          Object.assign(status, { state: "ok", lastSuccess: Date.now(), latencyMs: r.ms, error: null });
          this.errorLog.note(status.source, null);
          return r;
        } catch (e) {
          if (this.tas.get(role) !== client) return null;
          const err = e instanceof SourceError ? e : new SourceError({ source: status.source, kind: "network", message: String((e as Error)?.message ?? e) });
          this.errorLog.note(status.source, err);
          Object.assign(status, { state: this.lastGood.has(role) ? "stale" : "error", error: err.toJSON() });
          return null;
        }
      }),
    );
    const kube = this.kube;
    if (!kube) return; // suspended while the TAs were read
    const roles: Partial<Record<Role, RoleInput>> = {};
    for (const role of ROLES) {
      const ta = this.config.targetAllocators[role];
      if (!ta) continue;
      // reshaping 5,000 pods takes ~20 ms: a turn of its own
      await nextTurn();
      roles[role] = {
        flavor: ta.flavor,
        pods: (kube.pods[role]?.list() ?? []).map(agentPodFromObject),
        ta: this.lastGood.get(role) ?? null,
      };
    }
    await nextTurn();
    const nodes = kube.nodes.list().map(nodeInfoFromObject);
    await nextTurn();
    const monitorsKnown = kube.serviceMonitors.status.state === "ok" || kube.podMonitors.status.state === "ok";
    // A kind whose CRD is not installed has no objects (removing a CRD deletes them): the informer's cache from before is
    // not shown, or every one of them would read "orphaned". Other errors keep the cached objects (stale, not gone).
    const objectsOf = (w: typeof kube.podMonitors) => (w.status.error?.kind === "not_found" ? [] : w.list());
    const monitors: MonitorRef[] | null = monitorsKnown
      ? [
          ...objectsOf(kube.serviceMonitors).map((m) => monitorFromObject(m, "ServiceMonitor")),
          ...objectsOf(kube.podMonitors).map((m) => monitorFromObject(m, "PodMonitor")),
        ]
      : null;
    // In slices: API requests are answered between them while 150,000 targets are analysed.
    const { value: analysis, longestSliceMs } = await runSliced(
      analyzeSteps({
        cluster: this.config.name,
        nowMs: Date.now(),
        scraperAnnotation: this.config.scraperAnnotation ?? null,
        nodes,
        roles,
        monitors,
      }),
    );
    const kubeStatuses: SourceStatus[] = kube.statuses().map((s) => ({
      source: s.source,
      state: s.state === "ok" ? "ok" : s.state === "starting" ? "starting" : s.lastSuccess ? "stale" : "error",
      lastSuccess: s.lastSuccess,
      lastAttempt: null,
      latencyMs: null,
      error: s.error,
    }));
    if (this.suspended || this.stopped) return;
    const previous = this.snapshot;
    this.polls++;
    this.snapshot = {
      cluster: this.config.name,
      at: Date.now(),
      pollMs: performance.now() - started,
      pollCpuMs: threadCpuMs() - cpuStarted,
      pollIntervalMs: this.config.pollIntervalSeconds * 1000,
      analysis,
      sources: [...(this.discoveryStatus ? [{ ...this.discoveryStatus }] : []), ...[...this.taStatus.values()].map((s) => ({ ...s })), ...kubeStatuses],
      taRequestsLastPoll: readings.reduce((s, r) => s + (r?.requests ?? 0), 0),
      bytesLastPoll: readings.reduce((s, r) => s + (r?.bytes ?? 0), 0),
      answersLastPoll: {
        scan: readings.reduce((s, r) => s + (r?.scanned ?? 0), 0),
        parse: readings.reduce((s, r) => s + (r ? r.jobs.size - r.scanned : 0), 0),
      },
      analysisLongestSliceMs: longestSliceMs,
      roles: ROLES.flatMap((role) => (this.config.targetAllocators[role] ? [{ role, flavor: this.config.targetAllocators[role]!.flavor }] : [])),
      discovery: this.discoveryStatus ? discoveryView(this.discoveryReading, this.discoveryStatus.lastSuccess) : null,
    };
    // A turn for pending requests between the analysis' last slice and the listeners' work (the churn diff).
    await nextTurn();
    for (const l of this.snapshotListeners) l(this.snapshot, previous);
    this.waiters.release(this.snapshot);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const c of this.tas.values()) c.close();
    await this.kube?.stop();
  }
}

function toView(r: TaReading): TaView {
  return {
    ready: r.ready,
    jobs: r.jobs,
    collectors: r.collectors,
    unassignedLive: r.metrics?.unassignedLive ?? null,
    unassignedReported: r.metrics?.unassignedReported ?? null,
    strategy: r.metrics?.strategy ?? null,
    scrapeConfigJobs: r.scrapeConfigJobs,
  };
}
