/** Bounded waiting: every wait has a deadline and says what it waited for, and the last thing it saw, when it gives up. */
import type { ChildProcess } from "node:child_process";

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const show = (v: unknown, max = 2000) => {
  try {
    return JSON.stringify(v)?.slice(0, max);
  } catch {
    return String(v);
  }
};

/**
 * Polls `probe` until it returns a value that is not undefined/false, or throws after `timeoutMs` with the last value
 * (`last()`) or error in the message. Probe errors count as "not yet".
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 10_000, intervalMs = 200, last }: { timeoutMs?: number; intervalMs?: number; last?: () => unknown } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
      lastError = undefined;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const detail = lastError ? `last error: ${(lastError as Error).message}` : last ? `last: ${show(last())}` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}. ${detail}`);
    }
    await sleep(intervalMs);
  }
}

/** `fn()` once `ok` holds for it, polling every `intervalMs`; fails naming `what` and the last value after `ms`. */
export async function until<T>(fn: () => T | undefined, ok: (v: T) => boolean, ms: number, what: string, intervalMs = 25): Promise<T> {
  const end = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < end) {
    last = fn();
    if (last !== undefined && ok(last)) return last;
    await sleep(intervalMs);
  }
  throw new Error(`${what}: not within ${ms} ms; last: ${show(last, 500)}`);
}

/** Resolves once `cond()` holds, polling every 20 ms; `what` may be computed when the wait fails. */
export async function waitUntil(cond: () => boolean, what: string | (() => string), ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === "function" ? what() : what}`);
    await sleep(20);
  }
}

/**
 * Resolves once GET `url` answers 2xx; throws when `child` exits first or `timeoutMs` passes. Answers are read to the end
 * so that no socket is left open.
 */
export async function waitForHttp(
  url: string,
  { timeoutMs = 60_000, intervalMs = 300, headers = {}, child, what = url }: { timeoutMs?: number; intervalMs?: number; headers?: Record<string, string>; child?: ChildProcess; what?: string } = {},
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child && child.exitCode !== null) throw new Error(`${what}: the process exited with code ${child.exitCode} before ${url} answered`);
    const r = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) }).catch(() => null);
    await r?.arrayBuffer().catch(() => {});
    if (r?.ok) return;
    await sleep(intervalMs);
  }
  throw new Error(`${what}: ${url} did not answer within ${timeoutMs / 1000} s`);
}
