import "server-only";
/**
 * One cluster's Lease election (`lease` in the configuration): reads the coordination.k8s.io/v1 Lease
 * `<lease.name>-<cluster>` through @kubernetes/client-node's CoordinationV1Api every `renewSeconds` (a waiting replica also
 * right after it runs out), and creates, renews or takes it over as lib/lease/election.ts decides, with the resourceVersion
 * read as the update's precondition: a 409 Conflict means another replica wrote first, and the Lease is read again at once.
 *
 * It reports who holds the Lease and where that replica serves (`onChange`). A holder that has not renewed within the
 * renew deadline (duration less one renewal) reports that it no longer holds it, before its Lease runs out for the others.
 * On stop, a holder releases its Lease (no holder, duration 1 s), so that another replica takes it at its next read.
 */
import * as k8s from "@kubernetes/client-node";
import {
  ADDRESS_ANNOTATION,
  decide,
  identityClash,
  nextReadIn,
  observe,
  release,
  renewDeadlineMs,
  stillHolding,
  type Candidate,
  type Decision,
  type LeaseRecord,
  type Observation,
} from "@/lib/lease/election";
import { abortable } from "@/server/kube/informers";
import { HANDED_OVER } from "@/lib/lease/shards";

export interface LeaseView {
  /** the holder's identity, null when the Lease is free or not read yet */
  holder: string | null;
  /** where the holder serves the other replicas (host:port) */
  address: string | null;
  /** this replica holds it */
  self: boolean;
}

/** The calls the election makes (CoordinationV1Api, or a fake in tests). */
export interface LeaseCalls {
  read(signal: AbortSignal): Promise<k8s.V1Lease | null>;
  create(body: k8s.V1Lease, signal: AbortSignal): Promise<k8s.V1Lease>;
  replace(body: k8s.V1Lease, signal: AbortSignal): Promise<k8s.V1Lease>;
}

export function leaseCalls(api: k8s.CoordinationV1Api, namespace: string, name: string): LeaseCalls {
  return {
    async read(signal) {
      try {
        return await api.readNamespacedLease({ name, namespace }, abortable(signal));
      } catch (e) {
        if (statusOf(e) === 404) return null;
        throw e;
      }
    },
    create: (body, signal) => api.createNamespacedLease({ namespace, body }, abortable(signal)),
    replace: (body, signal) => api.replaceNamespacedLease({ name, namespace, body }, abortable(signal)),
  };
}

/**
 * The Kubernetes API calls of the Lease elections, for the RBAC test: get, create and update of leases in
 * `lease.namespace`, and list there (the replicas' membership Leases, server/lease/shards.ts).
 */
export function leaseApiCalls(lease: { namespace: string } | undefined): Array<{ group: string; resource: string; verb: "get" | "list" | "create" | "update"; namespace: string }> {
  if (!lease) return [];
  return (["get", "list", "create", "update"] as const).map((verb) => ({ group: "coordination.k8s.io", resource: "leases", verb, namespace: lease.namespace }));
}

export function statusOf(e: unknown): number | undefined {
  const x = e as { code?: unknown; statusCode?: unknown };
  return typeof x?.code === "number" ? x.code : typeof x?.statusCode === "number" ? x.statusCode : undefined;
}

const timeText = (t: unknown): string | null => (t === undefined || t === null ? null : t instanceof Date ? new k8s.V1MicroTime(t.getTime()).toISOString() : String(t));

export function recordOf(l: k8s.V1Lease): LeaseRecord {
  return {
    holderIdentity: l.spec?.holderIdentity || null,
    address: l.metadata?.annotations?.[ADDRESS_ANNOTATION] ?? null,
    acquireTime: timeText(l.spec?.acquireTime),
    renewTime: timeText(l.spec?.renewTime),
    leaseDurationSeconds: l.spec?.leaseDurationSeconds ?? null,
    leaseTransitions: l.spec?.leaseTransitions ?? 0,
    resourceVersion: l.metadata?.resourceVersion ?? null,
  };
}

/** The Lease to write: `record` over what was read (its other metadata and spec fields kept); `labels` on a new one. */
export function leaseOf(namespace: string, name: string, record: LeaseRecord, read?: k8s.V1Lease, labels?: Record<string, string>): k8s.V1Lease {
  const annotations = { ...(read?.metadata?.annotations ?? {}) };
  if (record.address) annotations[ADDRESS_ANNOTATION] = record.address;
  else delete annotations[ADDRESS_ANNOTATION];
  const time = (t: string | null) => (t ? (t as unknown as k8s.V1MicroTime) : undefined);
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      ...(read?.metadata ?? {}),
      name,
      namespace,
      ...(labels ? { labels: { ...(read?.metadata?.labels ?? {}), ...labels } } : {}),
      annotations,
      ...(record.resourceVersion ? { resourceVersion: record.resourceVersion } : {}),
    },
    spec: {
      ...(read?.spec ?? {}),
      holderIdentity: record.holderIdentity ?? undefined,
      acquireTime: time(record.acquireTime),
      renewTime: time(record.renewTime),
      leaseDurationSeconds: record.leaseDurationSeconds ?? undefined,
      leaseTransitions: record.leaseTransitions,
    },
  };
}

export interface ElectorOptions {
  namespace: string;
  /** the Lease's name: `<lease.name>-<cluster>` */
  name: string;
  me: Candidate;
  renewSeconds: number;
  /** a deadline for each call to the API server; default the renewal period */
  requestTimeoutMs?: number;
  log?: (line: string) => void;
  now?: () => number;
  /** labels of the Lease (written with every write) */
  labels?: Record<string, string>;
  /** with the clusters shared out (server/lease/shards.ts): whether this Lease may be taken, or is to be handed over */
  gate?: LeaseGate;
}

/**
 * What decides, for the clusters shared out over the replicas, whether one election may take its Lease and whether it
 * hands it over (lib/lease/shards.ts). The election tells it whenever it starts or stops holding.
 */
export interface LeaseGate {
  /** a free or run-out Lease may be taken (or created) now; true counts it as claimed until `holding(false)` */
  claim(): boolean;
  /** the held Lease is to be handed over now */
  handOver(): boolean;
  /** the hand-over was written */
  handedOver(): void;
  holding(self: boolean): void;
}

export class ClusterLease {
  private observation: Observation | undefined;
  private read: k8s.V1Lease | undefined;
  private renewedAt: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private stepDown: NodeJS.Timeout | undefined;
  private stopped = false;
  private view: LeaseView = { holder: null, address: null, self: false };
  private lastError: string | null = null;
  private running: Promise<void> | undefined;
  /** writes the API server accepted (create, renew, take over) and 409 Conflicts met */
  readonly counts = { writes: 0, conflicts: 0, takeovers: 0, handOvers: 0 };

  constructor(
    private readonly calls: LeaseCalls,
    private readonly o: ElectorOptions,
    private readonly onChange: (v: LeaseView) => void,
  ) {}

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private get deadline(): number {
    return renewDeadlineMs(this.o.me.durationSeconds, this.o.renewSeconds);
  }

  get current(): LeaseView {
    return this.view;
  }

  start(): void {
    this.schedule(0);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => (this.running = undefined));
    }, ms);
  }

  private report(v: LeaseView): void {
    const changed = v.self !== this.view.self || v.holder !== this.view.holder || v.address !== this.view.address;
    this.view = v;
    this.o.gate?.holding(v.self);
    if (changed) this.onChange(v);
  }

  private notHolding(v: LeaseView): void {
    this.renewedAt = null;
    clearTimeout(this.stepDown);
    this.report(v);
  }

  private held(now: number): void {
    this.renewedAt = now;
    clearTimeout(this.stepDown);
    // a holder that cannot renew in time stops counting itself as one, whether or not the API answers meanwhile
    this.stepDown = setTimeout(() => {
      if (!stillHolding(this.renewedAt, this.now(), this.deadline) && this.view.self) {
        this.o.log?.(`allocation-lens: lease ${this.o.namespace}/${this.o.name}: not renewed within ${this.deadline / 1000} s; no longer polling`);
        this.report({ holder: null, address: null, self: false });
      }
    }, this.deadline);
    this.report({ holder: this.o.me.identity, address: this.o.me.address, self: true });
  }

  private async call<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return run(AbortSignal.timeout(this.o.requestTimeoutMs ?? this.o.renewSeconds * 1000));
  }

  private async tick(): Promise<void> {
    let decision: Decision | undefined;
    let again: number | undefined;
    try {
      const read = await this.call((s) => this.calls.read(s));
      const now = this.now();
      this.read = read ?? undefined;
      this.observation = read ? observe(this.observation, recordOf(read), now) : undefined;
      decision = decide(this.observation, now, this.o.me);
      if (this.observation && identityClash(this.observation.record, this.o.me)) {
        const line = `allocation-lens: lease ${this.o.namespace}/${this.o.name}: another replica holds it under this replica's identity ${this.o.me.identity} (at ${this.observation.record.address}, this one is at ${this.o.me.address}): give each replica a POD_NAME of its own`;
        if (line !== this.lastError) this.o.log?.(line);
        this.lastError = line;
      }
      const gate = this.o.gate;
      if (decision.action === "wait") {
        this.notHolding({ holder: decision.holder, address: decision.address, self: false });
      } else if ((decision.action === "create" || decision.action === "take") && gate && !gate.claim()) {
        // free or run out, but this replica holds its share: another one takes it
        this.notHolding({ holder: null, address: null, self: false });
      } else if (decision.action === "renew" && gate?.handOver() && read) {
        const released = release(recordOf(read), this.o.me, now)!;
        const written = await this.call((s) => this.calls.replace(leaseOf(this.o.namespace, this.o.name, released, read, this.o.labels), s));
        this.counts.writes++;
        this.counts.handOvers++;
        this.o.log?.(`allocation-lens: lease ${this.o.namespace}/${this.o.name}: ${HANDED_OVER}; no longer polling`);
        this.read = written;
        this.observation = observe(undefined, recordOf(written), this.now());
        this.notHolding({ holder: null, address: null, self: false });
        gate.handedOver();
      } else {
        const body = leaseOf(this.o.namespace, this.o.name, decision.record, read ?? undefined, this.o.labels);
        try {
          const written = await this.call((s) => (decision!.action === "create" ? this.calls.create(body, s) : this.calls.replace(body, s)));
          this.counts.writes++;
          if (decision.action === "take") {
            this.counts.takeovers++;
            this.o.log?.(`allocation-lens: lease ${this.o.namespace}/${this.o.name}: taken over${decision.previous ? ` from ${decision.previous}` : ""}; polling`);
          } else if (decision.action === "create") this.o.log?.(`allocation-lens: lease ${this.o.namespace}/${this.o.name}: created; polling`);
          this.read = written;
          this.observation = observe(undefined, recordOf(written), this.now());
          this.held(now);
        } catch (e) {
          // a claim that was not written is no claim
          gate?.holding(this.view.self);
          // 409: another replica created or wrote the Lease since it was read; read it again at once
          if (statusOf(e) !== 409) throw e;
          this.counts.conflicts++;
          again = 0;
        }
      }
      if (!(this.observation && identityClash(this.observation.record, this.o.me))) this.lastError = null;
    } catch (e) {
      const line = `allocation-lens: lease ${this.o.namespace}/${this.o.name}: ${describe(e)}`;
      if (line !== this.lastError) this.o.log?.(line);
      this.lastError = line;
    }
    this.schedule(again ?? nextReadIn(decision, this.now(), this.o.renewSeconds));
  }

  /** Stops reading; a holder releases its Lease (bounded by the request deadline). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.stepDown);
    await this.running?.catch(() => undefined);
    const wasHolder = this.view.self;
    this.report({ holder: null, address: null, self: false });
    if (!wasHolder || !this.read) return;
    const released = release(recordOf(this.read), this.o.me, this.now());
    if (!released) return;
    try {
      await this.call((s) => this.calls.replace(leaseOf(this.o.namespace, this.o.name, released, this.read), s));
    } catch (e) {
      this.o.log?.(`allocation-lens: lease ${this.o.namespace}/${this.o.name}: could not release it: ${describe(e)}`);
    }
  }
}

/** An error of the Lease API as a log line's tail: the API server's own message (from its Status body), with the status. */
export function describe(e: unknown): string {
  const status = statusOf(e);
  const body = (e as { body?: unknown })?.body;
  let message = (e as Error)?.message ?? String(e);
  if (typeof body === "string") {
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? message;
    } catch {
      /* keep the error's message */
    }
  }
  if (status === 403) return `forbidden (${message.split("\n")[0]}): the ServiceAccount needs get, list, create and update on leases in this namespace (deploy/base/role-leases.yaml)`;
  return status ? `HTTP ${status}: ${message.split("\n")[0]}` : message.split("\n")[0];
}
