import "server-only";
/**
 * The clusters shared out over the replicas (lib/lease/shards.ts has the rules): this replica's membership Lease
 * `<lease.name>-member-<identity>` (a ClusterLease on a Lease nobody else takes: created, renewed, released on stop), a
 * list of the membership Leases by label every renewal period, and one gate per cluster election that lets it take a
 * free Lease only below this replica's share and hands one over when above it.
 *
 * Without the right to list Leases (a Role from before the clusters were shared out: get, create and update only) it
 * says so once and each replica takes every free Lease, as before: one poller per cluster still, but no balance.
 */
import * as k8s from "@kubernetes/client-node";
import { observe, type Candidate, type Observation } from "@/lib/lease/election";
import { fairShare, liveMembers, mayHandOver, memberLabelValue, memberLeaseName, membershipSettled, memberSelector, MEMBER_LABEL, toHandOver, type HandOver } from "@/lib/lease/shards";
import { abortable } from "@/server/kube/informers";
import { ClusterLease, describe, leaseCalls, recordOf, statusOf, type LeaseGate, type LeaseView } from "@/server/lease/elector";

/** How the membership Leases are listed (CoordinationV1Api, or a fake in tests). */
export interface MemberCalls {
  list(signal: AbortSignal): Promise<k8s.V1Lease[]>;
}

export function memberCalls(api: k8s.CoordinationV1Api, namespace: string, prefix: string): MemberCalls {
  const labelSelector = memberSelector(prefix);
  return { list: async (signal) => (await api.listNamespacedLease({ namespace, labelSelector }, abortable(signal))).items };
}

export interface ShardOptions {
  namespace: string;
  /** `lease.name`: the prefix of every Lease name */
  prefix: string;
  me: Candidate;
  renewSeconds: number;
  /** every cluster of the configuration (the same in every replica) */
  clusters: string[];
  requestTimeoutMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

/** What a replica knows of the sharing: its members and share, the clusters it holds, hand-overs done. */
export interface ShardView {
  members: string[];
  share: number;
  held: string[];
  /** the membership has settled (the replica may claim clusters) */
  settled: boolean;
  /** listing the membership is forbidden: every replica takes every free Lease (no balance) */
  unshared: boolean;
}

export class ShardedLeases {
  readonly elections = new Map<string, ClusterLease>();
  readonly member: ClusterLease;
  readonly memberName: string;
  private members = new Map<string, Observation>();
  private joinedAt: number | null = null;
  private listedAt: number | null = null;
  private unshared = false;
  private readonly claimed = new Set<string>();
  private last: HandOver | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private listing: Promise<void> | undefined;
  private lastError: string | null = null;

  constructor(
    private readonly api: { lease: (name: string) => ReturnType<typeof leaseCalls>; members: MemberCalls },
    private readonly o: ShardOptions,
    onChange: (cluster: string, v: LeaseView) => void,
  ) {
    this.memberName = memberLeaseName(o.prefix, o.me.identity);
    const common = { namespace: o.namespace, me: o.me, renewSeconds: o.renewSeconds, requestTimeoutMs: o.requestTimeoutMs, log: o.log, now: o.now };
    this.member = new ClusterLease(api.lease(this.memberName), { ...common, name: this.memberName, labels: { [MEMBER_LABEL]: memberLabelValue(o.prefix) } }, (v) => {
      if (v.self && this.joinedAt === null) this.joinedAt = this.now();
    });
    for (const cluster of o.clusters) {
      const name = `${o.prefix}-${cluster}`;
      this.elections.set(cluster, new ClusterLease(api.lease(name), { ...common, name, gate: this.gate(cluster) }, (v) => onChange(cluster, v)));
    }
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private get durationMs(): number {
    return this.o.me.durationSeconds * 1000;
  }

  /** the live members, this replica among them */
  liveMembers(): string[] {
    return liveMembers(this.members.values(), this.now(), this.o.me.durationSeconds, this.o.me.identity);
  }

  share(): number {
    return this.unshared ? this.o.clusters.length : fairShare(this.o.clusters.length, this.liveMembers().length);
  }

  private settled(): boolean {
    return this.unshared || membershipSettled(this.joinedAt, this.listedAt, this.o.renewSeconds * 1000);
  }

  get view(): ShardView {
    const held = [...this.elections].filter(([, e]) => e.current.self).map(([c]) => c);
    return { members: this.liveMembers(), share: this.share(), held: held.sort(), settled: this.settled(), unshared: this.unshared };
  }

  private gate(cluster: string): LeaseGate {
    return {
      claim: () => {
        if (this.claimed.has(cluster) || this.unshared) {
          this.claimed.add(cluster);
          return true;
        }
        if (!this.settled() || this.claimed.size >= this.share()) return false;
        this.claimed.add(cluster);
        return true;
      },
      handOver: () => {
        if (this.unshared || !this.settled()) return false;
        const holderOf = (c: string) => this.elections.get(c)?.current.holder;
        return toHandOver(this.claimed, this.share(), this.o.me.identity) === cluster && mayHandOver(this.last, holderOf, this.o.me.identity, this.now(), this.durationMs);
      },
      handedOver: () => {
        this.last = { cluster, at: this.now() };
      },
      holding: (self) => {
        if (self) this.claimed.add(cluster);
        else this.claimed.delete(cluster);
      },
    };
  }

  start(): void {
    this.member.start();
    this.scheduleList(0);
    for (const e of this.elections.values()) e.start();
  }

  private scheduleList(ms: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.listing = this.list().finally(() => (this.listing = undefined));
    }, ms);
  }

  private async list(): Promise<void> {
    try {
      const items = await this.api.members.list(AbortSignal.timeout(this.o.requestTimeoutMs ?? this.o.renewSeconds * 1000));
      const now = this.now();
      const next = new Map<string, Observation>();
      for (const l of items) {
        const name = l.metadata?.name;
        if (name) next.set(name, observe(this.members.get(name), recordOf(l), now));
      }
      this.members = next;
      this.listedAt = now;
      this.lastError = null;
      this.unshared = false;
    } catch (e) {
      const forbidden = statusOf(e) === 403;
      const line = forbidden
        ? `allocation-lens: lease: listing the replicas' membership Leases in ${this.o.namespace} is forbidden: the ServiceAccount needs list on leases there (deploy/base/role-leases.yaml); until then every replica takes every free cluster Lease (one poller per cluster, no balance)`
        : `allocation-lens: lease: cannot list the replicas' membership Leases in ${this.o.namespace}: ${describe(e)}`;
      if (line !== this.lastError) this.o.log?.(line);
      this.lastError = line;
      if (forbidden) this.unshared = true;
    }
    this.scheduleList(this.o.renewSeconds * 1000);
  }

  /** Stops: every held cluster Lease is released, then the membership Lease, so that the others take them at their next read. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.listing?.catch(() => undefined);
    await Promise.all([...this.elections.values()].map((e) => e.stop()));
    await this.member.stop();
  }
}
