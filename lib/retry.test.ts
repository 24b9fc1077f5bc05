import { describe, expect, it } from "vitest";
import { nextRetryDelay, DEFAULT_RETRY } from "./retry";

describe("nextRetryDelay", () => {
  it("never retries auth, not-found, schema or size failures", () => {
    for (const kind of ["forbidden", "not_found", "schema", "too_large", "tls"] as const) {
      expect(nextRetryDelay({ kind }, 1)).toBeNull();
    }
    expect(nextRetryDelay({ kind: "http", status: 401 }, 1)).toBeNull();
    expect(nextRetryDelay({ kind: "http", status: 404 }, 1)).toBeNull();
  });

  it("retries network errors, timeouts, 5xx and 429 with growing delays, up to the attempt limit", () => {
    const d1 = nextRetryDelay({ kind: "network" }, 1, DEFAULT_RETRY, 1)!;
    const d2 = nextRetryDelay({ kind: "timeout" }, 2, DEFAULT_RETRY, 1)!;
    expect(d1).toBe(200);
    expect(d2).toBe(400);
    expect(nextRetryDelay({ kind: "http", status: 503 }, 1)).not.toBeNull();
    expect(nextRetryDelay({ kind: "http", status: 429 }, 1)).not.toBeNull();
    expect(nextRetryDelay({ kind: "network" }, DEFAULT_RETRY.maxAttempts)).toBeNull();
  });

  it("caps the delay and applies jitter within [50%, 100%]", () => {
    const policy = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 500 };
    expect(nextRetryDelay({ kind: "network" }, 9, policy, 0.999)).toBeLessThanOrEqual(500);
    expect(nextRetryDelay({ kind: "network" }, 1, policy, 0)).toBe(50);
  });
});
