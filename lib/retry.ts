/**
 * Retry policy for source requests, as a pure function (cf. Headlamp's retry.ts): never retry what cannot get better
 * by itself (auth, not found, a payload of the wrong shape, a body over the size limit); retry transient failures with
 * exponential backoff and jitter supplied by the caller.
 */
import type { SourceErrorKind } from "@/lib/source-error";

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 2_000 };

const TERMINAL: ReadonlySet<SourceErrorKind> = new Set(["forbidden", "not_found", "schema", "too_large", "config", "tls", "parse"]);

/**
 * @param attempt the attempt that just failed, starting at 1
 * @param random a number in [0, 1) for jitter
 * @returns the delay before the next attempt in ms, or null for "give up"
 */
export function nextRetryDelay(
  failure: { kind: SourceErrorKind; status?: number },
  attempt: number,
  policy: RetryPolicy = DEFAULT_RETRY,
  random = 0.5,
): number | null {
  if (attempt >= policy.maxAttempts) return null;
  if (TERMINAL.has(failure.kind)) return null;
  if (failure.kind === "http" && failure.status !== undefined && failure.status < 500 && failure.status !== 429) return null;
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp * (0.5 + random / 2));
}
