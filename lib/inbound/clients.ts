/**
 * Who a request comes from, for the server's per-client limits, and how many of its requests are in flight.
 *
 * A client is its address (IPv6 per /64, as the failure limit counts it). Behind the authenticating proxy every request
 * comes from the proxy's own address, so there a client is the user the proxy names (the first of `auth.userHeaders`
 * that is set), and only when the TCP peer is one of `trustedProxies`: a header from anyone else is ignored.
 *
 * `InFlight` keeps a count per client of the requests being answered; a client at its limit is refused at once (429) in
 * front of Next.js, so that one client flooding the server with parallel requests queues behind itself, not in front of
 * everyone else. Entries leave the map when their count returns to 0: memory is bounded by the requests in flight.
 */
import { isTrustedPeer, type AuthPolicy } from "@/lib/auth/decide";
import { clientKey } from "@/lib/auth/failures";

export function clientOf(peer: string | undefined, header: (name: string) => string | undefined, auth: AuthPolicy | null): string {
  if (auth?.mode === "proxy" && peer && isTrustedPeer(peer, auth.trustedProxies)) {
    for (const name of auth.userHeaders ?? []) {
      const user = header(name.toLowerCase())?.trim();
      if (user) return `user:${user.slice(0, 256)}`;
    }
  }
  return clientKey(peer);
}

export class InFlight {
  private readonly counts = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** Counts one more request of `client`; false (and nothing counted) when it already has `limit` in flight. */
  enter(client: string): boolean {
    const n = this.counts.get(client) ?? 0;
    if (n >= this.limit) return false;
    this.counts.set(client, n + 1);
    return true;
  }

  leave(client: string): void {
    const n = (this.counts.get(client) ?? 0) - 1;
    if (n > 0) this.counts.set(client, n);
    else this.counts.delete(client);
  }

  get clients(): number {
    return this.counts.size;
  }

  of(client: string): number {
    return this.counts.get(client) ?? 0;
  }
}

/**
 * A token bucket per client: `burst` requests at once, refilled at `perSecond`. A request finding its client's bucket
 * empty is refused (429) in front of Next.js, where a refusal costs a small fraction of a request Next.js answers, so a
 * client sending requests as fast as it can is held to its rate without slowing everyone else down. A page load (HTML,
 * scripts, data) is a burst of a few dozen requests; polling views send a few per interval.
 *
 * At most `maxClients` buckets are kept: when full, buckets that have refilled completely (their client idle) are dropped
 * first (forgetting them changes nothing), then the oldest.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    readonly maxClients = 10_000,
  ) {}

  /** Takes one token of `client`: 0 when the request may go on, else the seconds until a token is there. */
  take(client: string, now: number): number {
    let b = this.buckets.get(client);
    if (b) {
      b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSecond);
      b.at = now;
      // most recently used last: the oldest come first when the map is full
      this.buckets.delete(client);
    } else {
      if (this.buckets.size >= this.maxClients) this.evict(now);
      b = { tokens: this.burst, at: now };
    }
    this.buckets.set(client, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
  }

  get clients(): number {
    return this.buckets.size;
  }

  private evict(now: number): void {
    const full = (this.burst * 1000) / this.perSecond;
    for (const [k, b] of this.buckets) if (now - b.at >= full) this.buckets.delete(k);
    while (this.buckets.size >= this.maxClients) {
      const oldest = this.buckets.keys().next().value;
      if (oldest === undefined) break;
      this.buckets.delete(oldest);
    }
  }
}
