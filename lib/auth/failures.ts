/**
 * Failed authentication attempts per client address, so that a wrong bearer token cannot be retried at wire speed: after
 * `maxFailures` failures from one address within `windowMs`, that address is refused (429 with Retry-After) until the window
 * that started with its first failure is over. Memory is bounded: at most `maxEntries` addresses are tracked; when the table
 * is full, expired entries go first, then the oldest.
 *
 * IPv6 peers are counted per /64 (one host usually owns a whole /64, so per-address counting would not limit it); an
 * IPv4-mapped IPv6 address is its IPv4 address.
 */
import { parseIp } from "@/lib/auth/cidr";

export interface FailureLimitSettings {
  maxFailures: number;
  windowMs: number;
  maxEntries: number;
}

export const DEFAULT_FAILURE_LIMIT: FailureLimitSettings = { maxFailures: 10, windowMs: 60_000, maxEntries: 10_000 };

/** The key an address is counted under: the IPv4 address, the IPv6 /64 prefix, or "unknown" for an unknown peer. */
export function clientKey(peer: string | undefined): string {
  const ip = peer ? parseIp(peer) : null;
  if (!ip) return "unknown";
  if (ip.family === 4) {
    const v = Number(ip.value);
    return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join(".");
  }
  return `${(ip.value >> BigInt(64)).toString(16).padStart(16, "0")}::/64`;
}

export class FailureLimiter {
  private readonly entries = new Map<string, { count: number; since: number }>();

  constructor(readonly settings: FailureLimitSettings = DEFAULT_FAILURE_LIMIT) {}

  get size(): number {
    return this.entries.size;
  }

  /** Seconds until `key` may try again; 0 when it may now. */
  retryAfterSeconds(key: string, now: number): number {
    const e = this.entries.get(key);
    if (!e) return 0;
    const end = e.since + this.settings.windowMs;
    if (now >= end) {
      this.entries.delete(key);
      return 0;
    }
    return e.count >= this.settings.maxFailures ? Math.max(1, Math.ceil((end - now) / 1000)) : 0;
  }

  /** One more failure from `key`. */
  fail(key: string, now: number): void {
    const e = this.entries.get(key);
    if (e && now < e.since + this.settings.windowMs) {
      e.count++;
      return;
    }
    if (e) this.entries.delete(key);
    if (this.entries.size >= this.settings.maxEntries) this.evict(now);
    this.entries.set(key, { count: 1, since: now });
  }

  /** A success from `key` forgets its failures. */
  succeed(key: string): void {
    this.entries.delete(key);
  }

  /** Entries are in insertion order, which is the order of their windows' start: the oldest come first. */
  private evict(now: number): void {
    for (const [k, e] of this.entries) {
      if (now < e.since + this.settings.windowMs) break;
      this.entries.delete(k);
    }
    while (this.entries.size >= this.settings.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
