/**
 * Following the holders (`lease`): a replica reads, for each cluster another replica holds, that holder's latest poll
 * summary about twice per poll interval, so that its pages and answers know when the holder has polled. One request per
 * holder and round asks for every cluster this replica follows there (`metas`, server/lease/peer.ts), instead of one per
 * cluster: with N clusters over M replicas, a replica follows N(M-1)/M of them, and asking for each on its own was two
 * requests a second each way at 20 clusters on two replicas.
 *
 * A holder that does not know `metas` (an older replica, during a rollout) refuses it; that round then asks for each
 * cluster on its own, as before.
 *
 * No "server-only" import: bundled with the poll host into the server entry's runtime.
 */
import { asPeerError, PeerError, peerMeta, peerMetas, type PeerMetas, type PeerToken } from "@/server/lease/peer";
import type { SnapshotMeta } from "@/server/poll/protocol";

export interface FollowCallbacks {
  /** the holder's latest poll summary of the cluster */
  meta(meta: SnapshotMeta): void;
  /** why the holder could not say it this round */
  problem(e: PeerError): void;
}

interface Follower {
  cluster: string;
  everyMs: number;
  callbacks: FollowCallbacks;
}

interface Holder {
  /** by cluster: the handles following a cluster at this address (one each; a later one replaces an earlier one) */
  readonly followers: Map<string, Follower>;
  timer: NodeJS.Timeout | undefined;
  /** a round is being asked */
  asking: boolean;
  /** a follower came while a round was being asked: the next round at once */
  again: boolean;
}

export interface PeerCalls {
  metas(address: string, clusters: readonly string[], token: PeerToken): Promise<PeerMetas>;
  meta(address: string, cluster: string, token: PeerToken): Promise<SnapshotMeta>;
}

const PEER_CALLS: PeerCalls = { metas: peerMetas, meta: peerMeta };

export class HolderFollower {
  private readonly holders = new Map<string, Holder>();
  private closed = false;

  constructor(
    private readonly token: PeerToken,
    private readonly calls: PeerCalls = PEER_CALLS,
  ) {}

  /**
   * Follows `cluster` at the holder at `address`, every `everyMs` (the shortest of a holder's followers sets its rounds);
   * the first round is asked at once. Returns the function that stops it: no callback comes after that.
   */
  follow(address: string, cluster: string, everyMs: number, callbacks: FollowCallbacks): () => void {
    let holder = this.holders.get(address);
    if (!holder) this.holders.set(address, (holder = { followers: new Map(), timer: undefined, asking: false, again: false }));
    const follower: Follower = { cluster, everyMs, callbacks };
    holder.followers.set(cluster, follower);
    if (holder.asking) holder.again = true;
    else this.schedule(address, holder, 0);
    return () => {
      const h = this.holders.get(address);
      if (!h || h.followers.get(cluster) !== follower) return;
      h.followers.delete(cluster);
      if (h.followers.size === 0) {
        clearTimeout(h.timer);
        this.holders.delete(address);
      }
    };
  }

  /** The clusters followed, at every holder. */
  followed(): number {
    let n = 0;
    for (const h of this.holders.values()) n += h.followers.size;
    return n;
  }

  /** Stops every round; no callback comes after this. */
  close(): void {
    this.closed = true;
    for (const h of this.holders.values()) clearTimeout(h.timer);
    this.holders.clear();
  }

  private schedule(address: string, holder: Holder, delayMs: number): void {
    clearTimeout(holder.timer);
    holder.timer = setTimeout(() => void this.round(address, holder), delayMs);
  }

  private async round(address: string, holder: Holder): Promise<void> {
    if (this.closed || this.holders.get(address) !== holder) return;
    holder.asking = true;
    holder.again = false;
    const followers = [...holder.followers.values()];
    try {
      await this.ask(address, followers);
    } finally {
      holder.asking = false;
    }
    if (this.closed || this.holders.get(address) !== holder || holder.followers.size === 0) return;
    const everyMs = Math.min(...[...holder.followers.values()].map((f) => f.everyMs));
    this.schedule(address, holder, holder.again ? 0 : everyMs);
  }

  /** One round: every follower hears from the holder, or why not. Callbacks only for followers still following. */
  private async ask(address: string, followers: Follower[]): Promise<void> {
    const current = (f: Follower) => !this.closed && this.holders.get(address)?.followers.get(f.cluster) === f;
    const tell = (f: Follower, what: SnapshotMeta | PeerError) => {
      if (!current(f)) return;
      if (what instanceof PeerError) f.callbacks.problem(what);
      else f.callbacks.meta(what);
    };
    let answer: PeerMetas;
    try {
      answer = await this.calls.metas(address, followers.map((f) => f.cluster), this.token);
    } catch (e) {
      const err = asPeerError(e);
      for (const f of followers) tell(f, err);
      return;
    }
    if (answer === "unsupported") {
      await Promise.all(
        followers.map((f) =>
          this.calls.meta(address, f.cluster, this.token).then(
            (m) => tell(f, m),
            (e) => tell(f, asPeerError(e)),
          ),
        ),
      );
      return;
    }
    const metas = new Map(answer.metas.map((m) => [m.cluster, m.meta]));
    const refused = new Map(answer.refused.map((r) => [r.cluster, r]));
    for (const f of followers) {
      const m = metas.get(f.cluster);
      const r = refused.get(f.cluster);
      if (m) tell(f, m);
      else if (r) tell(f, new PeerError("http", `the holder at ${address} answered HTTP ${r.status} (${r.code})`, r.status));
      else tell(f, new PeerError("parse", `the holder at ${address} said nothing of ${f.cluster}`));
    }
  }
}
