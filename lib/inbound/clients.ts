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
